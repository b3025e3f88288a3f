"""The checks every write runs before storage sees it (upstream's ``rest.BeforeCreate`` and
``rest.BeforeUpdate``): the object's identity against the request, validation of metadata and
of the strategy's rules, and the generation bump of a spec change. ``GenericStore`` calls them.
"""

from __future__ import annotations

from apiserver.registry import meta as objectmeta
from apiserver.registry.strategy import Strategy
from minikube_py.api import errors
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object


def check_identity(rt: ResourceType, obj: Object, namespace: str, name: str = "") -> None:
    """Type-check ``obj``'s identifying metadata and align it with the request's namespace and
    (on updates) the URL's name, rejecting a mismatch as upstream does."""
    if not isinstance(obj.get("metadata", {}), dict):
        raise errors.bad_request("metadata must be an object")
    meta = obj.setdefault("metadata", {})
    for field in ("name", "generateName", "namespace", "resourceVersion", "uid"):
        if field in meta and meta[field] is not None and not isinstance(meta[field], str):
            raise errors.bad_request(
                f"json: cannot unmarshal {type(meta[field]).__name__} into Go struct field "
                f"ObjectMeta.metadata.{field} of type string"
            )
    if rt.namespaced:
        if meta.get("namespace") and meta["namespace"] != namespace:
            raise errors.bad_request(
                "the namespace of the provided object does not match the namespace sent on the request"
            )
        meta["namespace"] = namespace
    else:
        meta.pop("namespace", None)
    if name and meta.get("name") and meta["name"] != name:
        raise errors.bad_request("the name of the object does not match the name on the URL")
    if name:
        meta["name"] = name


def validate(
    rt: ResourceType, strategy: Strategy, obj: Object, old: Object | None = None
) -> list[errors.Cause]:
    """The causes ``obj`` is invalid: metadata first, then the strategy's (create or update) rules."""
    causes = objectmeta.validate_meta(obj, namespaced=rt.namespaced, name_rule=strategy.name_rule)
    if old is None:
        return causes + strategy.validate(obj)
    return causes + objectmeta.validate_meta_update(obj, old) + strategy.validate_update(obj, old)


def raise_invalid(rt: ResourceType, obj: Object, causes: list[errors.Cause]) -> None:
    if causes:
        name = obj.get("metadata", {}).get("name", "")
        raise errors.invalid(rt.kind, name, rt.group, causes)


def bump_generation(strategy: Strategy, new: Object, old: Object) -> None:
    """Count a change of the strategy's spec field in ``metadata.generation``."""
    spec = strategy.spec_field
    if spec is not None and new.get(spec) != old.get(spec):
        new["metadata"]["generation"] = old["metadata"].get("generation", 1) + 1
