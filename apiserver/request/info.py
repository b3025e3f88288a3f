"""``RequestInfo``: what a request path and method mean, as upstream's RequestInfoFactory.

``/api/v1/namespaces/default/pods/web/status`` is a resource request: group "", version v1,
namespace default, resource pods, name web, subresource status, verb by method (GET is get,
or without a name list, or watch when ``watch`` is true as upstream converts it: given and
neither ``0`` nor ``false`` in any case, ``watch=True`` and ``watch=`` too). Anything else (``/healthz``,
``/openapi/v3``) is a non-resource request with the lower-cased method as its verb.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from apiserver.request.queryparams import to_bool

NAMESPACE_SUBRESOURCES = {"status", "finalize"}
_METHOD_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


@dataclass(slots=True)
class RequestInfo:
    path: str
    verb: str
    is_resource_request: bool = False
    api_prefix: str = ""
    api_group: str = ""
    api_version: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)


def request_info(method: str, path: str, query: dict[str, str]) -> RequestInfo:
    """Parse a request (upstream's rules, including the legacy ``/watch/`` prefix)."""
    info = RequestInfo(path=path, verb=method.lower())
    segments = [s for s in path.strip("/").split("/") if s]
    if not segments or segments[0] not in ("api", "apis"):
        return info
    prefix, rest = segments[0], segments[1:]
    if prefix == "apis":
        if len(rest) < 2:
            return info
        info.api_group, rest = rest[0], rest[1:]
    if not rest:
        return info
    info.api_prefix, info.api_version, rest = prefix, rest[0], rest[1:]
    if not rest:
        return info  # discovery of a group version: a non-resource request
    info.is_resource_request = True
    watch_prefix = bool(rest) and rest[0] == "watch"
    if watch_prefix:
        rest = rest[1:]
    _fill_names(info, rest)
    info.verb = _verb(method, info, query, watch_prefix)
    return info


def _fill_names(info: RequestInfo, parts: list[str]) -> None:
    if parts and parts[0] == "namespaces" and len(parts) > 1:
        info.namespace = parts[1]
        if len(parts) > 2 and parts[2] not in NAMESPACE_SUBRESOURCES:
            parts = parts[2:]
    info.parts = parts
    if parts:
        info.resource = parts[0]
    if len(parts) > 1:
        info.name = parts[1]
    if len(parts) > 2:
        info.subresource = parts[2]
    if info.resource == "namespaces":
        info.namespace = info.name  # upstream: a namespace's namespace is itself


def _verb(method: str, info: RequestInfo, query: dict[str, str], watch_prefix: bool) -> str:
    if method == "GET" or method == "HEAD":
        if watch_prefix:
            return "watch"
        if info.name:  # upstream decodes ListOptions (and so watch) only without a name
            return "get"
        watch = query.get("watch")
        return "watch" if watch is not None and to_bool(watch) else "list"
    verb = _METHOD_VERBS.get(method, method.lower())
    if verb == "delete" and not info.name:
        return "deletecollection"
    return verb
