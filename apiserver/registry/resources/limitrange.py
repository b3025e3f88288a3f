"""core/v1 LimitRange: the common spec shape, no status.

One deviation from upstream's encoding: ``spec.limits`` has no ``omitempty`` upstream, so Go
writes a LimitRange created without limits as ``"limits": null`` (upstream's validation accepts
an empty list). Its own OpenAPI calls the field required and an array, and typed clients (the
official Python client) refuse both null and a missing key when they read such an object; the
empty list here is what they accept, and means the same."""

from __future__ import annotations

from apiserver.registry.resources.generic import PlainStrategy
from minikube_py.api.models import core_objects
from minikube_py.api.unstructured import Object


class LimitRangeStrategy(PlainStrategy):
    kinds = (core_objects.LimitRange,)

    def default(self, obj: Object) -> None:
        spec = obj.get("spec")
        if spec is None:
            obj["spec"] = spec = {}
        if isinstance(spec, dict) and spec.get("limits") is None:
            spec["limits"] = []
