"""Subresources that are views or actions on their parent object: ``scale`` (autoscaling/v1
Scale of deployments, replica sets, stateful sets and replication controllers),
``pods/binding`` (the scheduler sets ``spec.nodeName``, once) and ``pods/eviction`` (policy/v1;
a delete that disruption budgets may refuse, once they exist)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from apiserver.endpoints import body as bodies
from apiserver.endpoints.encoding import JSONResponse
from apiserver.endpoints.ownership import field_manager, manager_name, tracker
from apiserver.endpoints.requestbody import read_body
from apiserver.endpoints.typecheck import check_body, check_kind_body, typed_patch
from apiserver.registry.store import GenericStore
from apiserver.request.queryparams import first_values
from minikube_py.api import errors
from minikube_py.api.labels import label_selector_as_selector, selector_from_set
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.jsonutil import dumps

# What the resource endpoints call for a subresource: (request, store, verb, namespace, name).
Handler = Callable[[Request, GenericStore, str, str, str], Awaitable[Response]]

SCALE_RT = ResourceType("autoscaling", "v1", "Scale", "scale", True)
SCALE_META = ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def scale_selector(obj: Object) -> str:
    """``status.selector`` of the Scale: the workload's label selector as a string; a
    ReplicationController's selector is a plain label map (``labels.SelectorFromSet``)."""
    selector = obj.get("spec", {}).get("selector")
    if not selector:
        return ""
    if obj.get("kind") == "ReplicationController":
        return str(selector_from_set({str(k): str(v) for k, v in selector.items()}))
    return str(label_selector_as_selector(selector))


def to_scale(obj: Object) -> Object:
    meta = obj["metadata"]
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            k: meta[k]
            for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
            if k in meta
        },
        "spec": {"replicas": obj.get("spec", {}).get("replicas", 0)},
        "status": {
            "replicas": obj.get("status", {}).get("replicas", 0),
            "selector": scale_selector(obj),
        },
    }


async def scale(request: Request, store: GenericStore, verb: str, namespace: str, name: str) -> Response:
    if verb == "get":
        return JSONResponse(to_scale(await store.get(namespace, name)))
    if verb not in ("update", "patch"):
        raise errors.method_not_supported(store.rt.resource, store.rt.group, verb)
    raw = await read_body(request)
    content_type = request.headers.get("content-type")
    if verb == "patch":
        apply_patch = typed_patch(SCALE_RT, content_type, raw)

        def desired_scale(current: Object) -> Object:
            return apply_patch(to_scale(current))
    else:
        # JSON (kubectl may send no Content-Type here) or client-go's protobuf (UpdateScale)
        wanted = bodies.decode_object(raw, content_type)
        check_body(SCALE_RT, wanted, raw)

        def desired_scale(current: Object) -> Object:
            return wanted

    def mutate(current: Object) -> Object:
        desired = desired_scale(current)
        if not all(isinstance(desired.get(part, {}), dict) for part in ("metadata", "spec")):
            raise errors.bad_request("Scale metadata and spec must be objects")
        replicas = desired.get("spec", {}).get("replicas")
        if replicas is None:  # int32 omitempty: absent (protobuf's zero, or JSON null) is 0
            replicas = 0
        if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
            message = f"Invalid value: {replicas}: must be greater than or equal to 0"
            raise errors.invalid(
                "Scale", name, "autoscaling", [errors.Cause("FieldValueInvalid", message, "spec.replicas")]
            )
        rv = desired.get("metadata", {}).get("resourceVersion")
        current.setdefault("spec", {})["replicas"] = replicas
        if rv:
            current["metadata"]["resourceVersion"] = rv
        return current

    query = first_values(request.query_params.multi_items())
    options = "PatchOptions" if verb == "patch" else "UpdateOptions"
    manager = manager_name(request, query, options)
    track = tracker(field_manager(store, "scale"), manager)  # an Update entry on the parent
    updated = await store.update(namespace, name, mutate, dry_run=bodies.dry_run(query, options), track=track)
    return JSONResponse(to_scale(updated))


def _only_create(store: GenericStore, subresource: str, verb: str) -> None:
    if verb != "create":
        raise errors.method_not_supported(f"{store.rt.resource}/{subresource}", store.rt.group, verb)


def _check_name(body: Object, kind: str, name: str) -> None:
    """Upstream's binding and eviction storage: the body names the object of the URL."""
    if (body.get("metadata") or {}).get("name", "") != name:
        raise errors.bad_request(f"name in URL does not match name in {kind} object")


async def binding(request: Request, store: GenericStore, verb: str, namespace: str, name: str) -> Response:
    _only_create(store, "binding", verb)
    raw = await read_body(request)
    body = bodies.decode_object(raw, request.headers.get("content-type"))
    check_kind_body("v1", "Binding", body, raw)
    _check_name(body, "Binding", name)
    target = body.get("target") or {}
    node = target.get("name")
    if not node or target.get("kind", "Node") != "Node":
        cause = errors.Cause("FieldValueRequired", "Required value", "target.name")
        raise errors.invalid("Binding", name, "", [cause])

    def bind(pod: Object) -> Object:
        spec = pod.setdefault("spec", {})
        if pod["metadata"].get("deletionTimestamp"):
            raise errors.conflict(
                "pods/binding", name, "", f"pod {name} is being deleted, cannot be assigned to a host"
            )
        if spec.get("nodeName"):
            why = f'pod {name} is already assigned to node "{spec["nodeName"]}"'
            raise errors.conflict("pods/binding", name, "", why)
        spec["nodeName"] = node
        annotations = (body.get("metadata") or {}).get("annotations") or {}
        pod["metadata"].setdefault("annotations", {}).update(annotations)
        return pod

    await store.update(
        namespace,
        name,
        bind,
        subresource="binding",
        dry_run=bodies.dry_run(first_values(request.query_params.multi_items()), "CreateOptions"),
    )
    return JSONResponse(SUCCESS, status_code=201)


async def eviction(request: Request, store: GenericStore, verb: str, namespace: str, name: str) -> Response:
    _only_create(store, "eviction", verb)
    raw = await read_body(request)
    body: dict[str, Any] = bodies.decode_object(raw, request.headers.get("content-type"))
    check_kind_body("policy/v1", "Eviction", body, raw)
    _check_name(body, "Eviction", name)
    options = body.get("deleteOptions") or {}
    await store.delete(namespace, name, bodies.delete_options(dumps(options), {}))
    return JSONResponse(SUCCESS, status_code=201)
