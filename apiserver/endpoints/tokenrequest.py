"""``serviceaccounts/token``: a TokenRequest (``authentication.k8s.io/v1``) returns a signed
service-account token (upstream's ``TokenREST``). ``expirationSeconds`` defaults to an hour
and must be 10 minutes to 2^32 seconds; ``audiences`` default to the API audiences; a
``boundObjectRef`` (Pod, Secret or Node, with a matching uid when given) ties the token's
life to that object, and a pod's node is recorded too."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from apiserver.authn.config import SETUP_KEY, AuthenticationSetup
from apiserver.authn.objects import ObjectGetter
from apiserver.authn.serviceaccount import Bound
from apiserver.endpoints import body as bodies
from apiserver.endpoints.encoding import JSONResponse
from apiserver.endpoints.requestbody import read_body
from apiserver.registry.store import GenericStore
from minikube_py.api import errors
from minikube_py.api.unstructured import Object

GROUP = "authentication.k8s.io"
API_VERSION = f"{GROUP}/v1"
DEFAULT_EXPIRATION_SECONDS = 3600
MIN_EXPIRATION_SECONDS = 600
MAX_EXPIRATION_SECONDS = 1 << 32
NOT_FOUND = "the server could not find the requested resource"
BINDABLE = {"Pod": "pods", "Secret": "secrets", "Node": "nodes"}


async def token_request(
    request: Request, store: GenericStore, verb: str, namespace: str, name: str
) -> Response:
    setup: AuthenticationSetup | None = request.scope.get(SETUP_KEY)
    if setup is None or setup.generator is None or setup.objects is None:
        raise errors.ApiError(404, "NotFound", NOT_FOUND)  # upstream serves it only with an issuer
    if verb != "create":
        raise errors.method_not_supported(store.rt.resource, store.rt.group, verb)
    obj = bodies.decode_object(await read_body(request), request.headers.get("content-type"))
    bodies.check_kind(obj, API_VERSION, "TokenRequest")
    metadata, spec = dict(obj.get("metadata") or {}), dict(obj.get("spec") or {})
    if spec.get("expirationSeconds") is None:  # absent, or null (a protobuf body's unset field)
        spec["expirationSeconds"] = DEFAULT_EXPIRATION_SECONDS
    _validate(metadata.get("name", ""), spec["expirationSeconds"])
    _check_identity(metadata, namespace, name)
    sa = await store.get(namespace, name)
    bound = await _bound(setup.objects, spec.get("boundObjectRef"), namespace, name)
    spec = {
        "audiences": list(spec.get("audiences") or setup.api_audiences),
        "expirationSeconds": spec["expirationSeconds"],
        "boundObjectRef": spec.get("boundObjectRef"),
    }
    token, expiry = setup.generator.generate(sa, spec["audiences"], spec["expirationSeconds"], bound)
    expires = datetime.fromtimestamp(expiry, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    body = {
        "kind": "TokenRequest",
        "apiVersion": API_VERSION,
        "metadata": {"name": name, "namespace": namespace, "creationTimestamp": None, **metadata},
        "spec": spec,
        "status": {"token": token, "expirationTimestamp": expires},
    }
    return JSONResponse(body, status_code=201)


def _validate(name: str, expiration: Any) -> None:
    if not isinstance(expiration, int) or isinstance(expiration, bool):
        raise errors.bad_request("spec.expirationSeconds must be an integer")
    detail = ""
    if expiration < MIN_EXPIRATION_SECONDS:
        detail = "may not specify a duration less than 10 minutes"
    elif expiration > MAX_EXPIRATION_SECONDS:
        detail = "may not specify a duration larger than 2^32 seconds"
    if detail:
        cause = errors.Cause(
            "FieldValueInvalid", f"Invalid value: {expiration}: {detail}", "spec.expirationSeconds"
        )
        raise errors.invalid("TokenRequest", name, GROUP, [cause])


def _check_identity(metadata: dict[str, Any], namespace: str, name: str) -> None:
    """A name or namespace in the body must be the URL's."""
    for field, wanted, what in (("name", name, "name"), ("namespace", namespace, "namespace")):
        value = metadata.get(field)
        if value and value != wanted:
            message = f'Invalid value: "{value}": must match the service account {what} if specified'
            cause = errors.Cause("FieldValueInvalid", message, f"metadata.{field}")
            raise errors.invalid("TokenRequest", name, GROUP, [cause])


async def _bound(objects: ObjectGetter, ref: Any, namespace: str, sa_name: str) -> Bound:
    if not ref:
        return Bound()
    if not isinstance(ref, dict):
        raise errors.bad_request("spec.boundObjectRef must be an object")
    kind, api_version = str(ref.get("kind", "")), str(ref.get("apiVersion", ""))
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    resource = BINDABLE.get(kind) if group == "" else None
    if resource is None:
        version = api_version.rpartition("/")[2]
        raise errors.bad_request(f"cannot bind token to object of type {group}/{version}, Kind={kind}")
    ref_name = str(ref.get("name", ""))
    obj = await objects.get(resource, "" if kind == "Node" else namespace, ref_name)
    if obj is None:
        raise errors.not_found(resource, ref_name)
    uid = obj["metadata"].get("uid", "")
    if ref.get("uid") and ref["uid"] != uid:
        why = (
            f"the UID in the bound object reference ({ref['uid']}) does not match the UID in record. "
            "The object might have been deleted and then recreated"
        )
        raise errors.conflict(kind, ref_name, "", why)
    if kind == "Pod":
        return await _pod_bound(objects, obj, sa_name)
    return Bound(secret=obj) if kind == "Secret" else Bound(node=obj)


async def _pod_bound(objects: ObjectGetter, pod: Object, sa_name: str) -> Bound:
    pod_sa = pod.get("spec", {}).get("serviceAccountName", "")
    if pod_sa != sa_name:
        raise errors.bad_request(
            f'cannot bind token for serviceaccount "{sa_name}" to pod running with serviceaccount "{pod_sa}"'
        )
    node_name = pod.get("spec", {}).get("nodeName", "")
    node = await objects.get("nodes", "", node_name) if node_name else None
    return Bound(pod=pod, node=node)
