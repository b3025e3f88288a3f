"""The strategy of ``pods/ephemeralcontainers`` (upstream's ``podEphemeralContainersStrategy``):
an update of a pod that changes only its ``spec.ephemeralContainers``, by additions (see
``ephemeralvalidation``)."""

from __future__ import annotations

from apiserver.registry.resources.ephemeralvalidation import validate_ephemeral_update
from apiserver.registry.resources.pod import PodStrategy
from apiserver.registry.resources.podvalidation import to_causes
from minikube_py import jsonutil
from minikube_py.api.errors import Cause
from minikube_py.api.unstructured import Object


class EphemeralContainersStrategy(PodStrategy):
    """``pods/ephemeralcontainers``: the update keeps everything of the stored pod but its
    ``spec.ephemeralContainers`` (and the request's resourceVersion and managedFields)."""

    def prepare_for_update(self, new: Object, old: Object) -> None:
        wanted = (new.get("spec") or {}).get("ephemeralContainers")
        meta = new.get("metadata") or {}
        kept = {k: meta[k] for k in ("resourceVersion", "managedFields") if k in meta}
        new.clear()
        new.update(jsonutil.clone(old))
        new["metadata"].update(kept)
        if wanted:
            new.setdefault("spec", {})["ephemeralContainers"] = wanted
        else:
            new.setdefault("spec", {}).pop("ephemeralContainers", None)

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        errs = validate_ephemeral_update(new, old)
        if errs:
            return to_causes(errs)
        return self.validate_spec(new)
