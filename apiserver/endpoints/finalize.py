"""``PUT /api/v1/namespaces/{name}/finalize``: the namespace controller's update of
``spec.finalizers`` (upstream's ``FinalizeREST``). The body is a whole Namespace; the store
keeps its status, and removes a terminating namespace that nothing holds any more."""

from __future__ import annotations

import copy

from starlette.requests import Request
from starlette.responses import Response

from apiserver.endpoints import body as bodies
from apiserver.endpoints.encoding import JSONResponse
from apiserver.endpoints.fieldvalidation import FieldValidation
from apiserver.endpoints.ownership import field_manager, manager_name, tracker
from apiserver.endpoints.requestbody import read_body
from apiserver.endpoints.typecheck import typed_object
from apiserver.registry.resources.namespace import NamespaceFinalizeStrategy
from apiserver.registry.store import GenericStore
from apiserver.request.queryparams import first_values
from minikube_py.api import errors
from minikube_py.api.unstructured import Object


async def finalize(request: Request, store: GenericStore, verb: str, namespace: str, name: str) -> Response:
    if verb != "update":
        raise errors.method_not_supported(f"{store.rt.resource}/finalize", store.rt.group, verb)
    query = first_values(request.query_params.multi_items())
    fields = FieldValidation(store.rt, query, "UpdateOptions")
    raw = await read_body(request)
    checked = fields.check_update(typed_object(store.rt, raw, request.headers.get("content-type")))

    def mutate(current: Object) -> Object:
        return copy.deepcopy(checked(current))  # a retried update starts from the body again

    manager = manager_name(request, query, "UpdateOptions")
    finalizing = store.with_strategy(NamespaceFinalizeStrategy())
    updated = await finalizing.update(
        namespace,
        name,
        mutate,
        subresource="finalize",
        dry_run=bodies.dry_run(query),
        track=tracker(field_manager(store), manager),
    )
    body = {**updated, "apiVersion": store.rt.api_version, "kind": store.rt.kind}
    return fields.respond(JSONResponse(body))
