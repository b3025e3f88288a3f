"""``pods/{name}/ephemeralcontainers``: GET, PUT and PATCH (JSON, merge and strategic merge, as
``kubectl debug`` sends) of the whole Pod, of which only ``spec.ephemeralContainers`` may
change, by additions (``registry.resources.ephemeralcontainers``). Admission sees the update
as subresource ``ephemeralcontainers`` (PodSecurity judges the pod's new containers)."""

from __future__ import annotations

import copy

from starlette.requests import Request
from starlette.responses import Response

from apiserver.endpoints import body as bodies
from apiserver.endpoints.encoding import JSONResponse
from apiserver.endpoints.fieldvalidation import FieldValidation
from apiserver.endpoints.ownership import field_manager, manager_name, tracker
from apiserver.endpoints.requestbody import read_body
from apiserver.endpoints.typecheck import typed_object, typed_patch
from apiserver.registry.resources.ephemeralcontainers import EphemeralContainersStrategy
from apiserver.registry.store import GenericStore
from apiserver.request.queryparams import first_values
from minikube_py.api import errors
from minikube_py.api.unstructured import Object

SUBRESOURCE = "ephemeralcontainers"


async def ephemeral_containers(
    request: Request, store: GenericStore, verb: str, namespace: str, name: str
) -> Response:
    if verb == "get":
        return _pod(store, await store.get(namespace, name))
    if verb not in ("update", "patch"):
        raise errors.method_not_supported(f"{store.rt.resource}/{SUBRESOURCE}", store.rt.group, verb)
    query = first_values(request.query_params.multi_items())
    options = "PatchOptions" if verb == "patch" else "UpdateOptions"
    fields = FieldValidation(store.rt, query, options)
    raw = await read_body(request)
    content_type = request.headers.get("content-type")
    if verb == "patch":
        mutate = fields.check_patch(typed_patch(store.rt, content_type, raw), raw)
    else:
        checked = fields.check_update(typed_object(store.rt, raw, content_type))

        def mutate(current: Object) -> Object:
            return copy.deepcopy(checked(current))  # a retried update starts from the body again

    updating = store.with_strategy(EphemeralContainersStrategy())
    updated = await updating.update(
        namespace,
        name,
        mutate,
        subresource=SUBRESOURCE,
        dry_run=bodies.dry_run(query, options),
        track=tracker(field_manager(store, SUBRESOURCE), manager_name(request, query, options)),
    )
    return fields.respond(_pod(store, updated))


def _pod(store: GenericStore, obj: Object) -> Response:
    return JSONResponse({**obj, "apiVersion": store.rt.api_version, "kind": store.rt.kind})
