"""Discovery, generated from the scheme: legacy (``/api``, ``/apis``, one APIResourceList per
group-version) and aggregated (``apidiscovery.k8s.io`` v2 and v2beta1, chosen exactly from the
client's Accept list, as kubectl 1.27 only understands v2beta1)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from apiserver.endpoints.encoding import JSONResponse
from minikube_py.api.scheme import ResourceType, Scheme

AGGREGATED = "application/json;g=apidiscovery.k8s.io;v={v};as=APIGroupDiscoveryList"


def api_versions(request: Request) -> dict[str, Any]:
    server = f"{request.url.hostname}:{request.url.port}"
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server}],
    }


def api_group_list(scheme: Scheme) -> dict[str, Any]:
    groups: dict[str, list[str]] = {}
    for group, version in scheme.group_versions():
        if group:
            groups.setdefault(group, []).append(version)
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [_group(g, vs) for g, vs in groups.items()]}


def _group(name: str, versions: list[str]) -> dict[str, Any]:
    listed = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
    return {"name": name, "versions": listed, "preferredVersion": listed[0]}


def api_resource_list(scheme: Scheme, group: str, version: str) -> dict[str, Any] | None:
    types = scheme.in_group_version(group, version)
    if not types:
        return None
    resources: list[dict[str, Any]] = []
    for rt in types:
        resources.append(_resource(rt))
        resources += [_subresource(rt, sub.name) for sub in rt.subresources]
    group_version = f"{group}/{version}" if group else version
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": resources,
    }


def _resource(rt: ResourceType) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": rt.resource,
        "singularName": rt.singular_name,
        "namespaced": rt.namespaced,
        "kind": rt.kind,
        "verbs": list(rt.verbs),
    }
    if rt.short_names:
        out["shortNames"] = list(rt.short_names)
    if rt.categories:
        out["categories"] = list(rt.categories)
    return out


def _subresource(rt: ResourceType, name: str) -> dict[str, Any]:
    sub = rt.subresource(name)
    assert sub is not None
    out: dict[str, Any] = {
        "name": f"{rt.resource}/{name}",
        "singularName": "",
        "namespaced": rt.namespaced,
        "kind": sub.kind or rt.kind,
        "verbs": list(sub.verbs),
    }
    if sub.group is not None:
        out["group"], out["version"] = sub.group, sub.version
    return out


def aggregated_version(accept: str) -> str | None:
    """``v2`` or ``v2beta1`` when the Accept list asks for aggregated discovery first."""
    for item in accept.split(","):
        params = dict(p.strip().partition("=")[::2] for p in item.split(";")[1:])
        if params.get("g") == "apidiscovery.k8s.io" and params.get("as") == "APIGroupDiscoveryList":
            if params.get("v") in ("v2", "v2beta1"):
                return params["v"]
        elif item.split(";")[0].strip() in ("application/json", "*/*"):
            return None
    return None


def aggregated(scheme: Scheme, legacy: bool, version: str) -> dict[str, Any]:
    """The APIGroupDiscoveryList of the core group (``legacy``) or of every named group."""
    items: dict[str, dict[str, Any]] = {}
    for group, gv_version in scheme.group_versions():
        if (group == "") != legacy:
            continue
        entry = items.setdefault(group, {"metadata": {"name": group}, "versions": []})
        resources = [_aggregated_resource(rt) for rt in scheme.in_group_version(group, gv_version)]
        entry["versions"].append({"version": gv_version, "freshness": "Current", "resources": resources})
    return {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": f"apidiscovery.k8s.io/{version}",
        "metadata": {},
        "items": list(items.values()),
    }


def _aggregated_resource(rt: ResourceType) -> dict[str, Any]:
    out: dict[str, Any] = {
        "resource": rt.resource,
        "responseKind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
        "scope": "Namespaced" if rt.namespaced else "Cluster",
        "singularResource": rt.singular_name,
        "verbs": list(rt.verbs),
    }
    if rt.short_names:
        out["shortNames"] = list(rt.short_names)
    if rt.categories:
        out["categories"] = list(rt.categories)
    if rt.subresources:
        out["subresources"] = [
            {
                "subresource": sub.name,
                "responseKind": {
                    "group": rt.group if sub.group is None else sub.group,
                    "version": rt.version if sub.version is None else sub.version,
                    "kind": sub.kind or rt.kind,
                },
                "verbs": list(sub.verbs),
            }
            for sub in rt.subresources
        ]
    return out


def discovery_response(scheme: Scheme, request: Request, legacy: bool) -> Response:
    """``/api`` or ``/apis``: aggregated when negotiated, else legacy."""
    version = aggregated_version(request.headers.get("accept", ""))
    if version is not None:
        body = aggregated(scheme, legacy, version)
        return JSONResponse(body, media_type=AGGREGATED.format(v=version))
    return JSONResponse(api_versions(request) if legacy else api_group_list(scheme))
