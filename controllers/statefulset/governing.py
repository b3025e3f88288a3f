"""The governing Service check (our addition; upstream creates the pods silently).

A set's ``serviceName`` names the headless Service that gives its members DNS names
(``<pod>.<service>.<ns>.svc.cluster.local``). The pods are made either way; when that Service
is missing, or is not headless, the set gets one Warning event per episode saying so, and the
controller checks again when a Service of that name appears or changes.
"""

from __future__ import annotations

from minikube_py.api.unstructured import Object
from minikube_py.cache.store import Indexer
from minikube_py.events import Recorder

NOT_FOUND = "GoverningServiceNotFound"
NOT_HEADLESS = "GoverningServiceNotHeadless"


def governing_service_problem(sts: Object, services: Indexer) -> tuple[str, str] | None:
    """(reason, message) when the set's pods cannot get DNS names from their Service."""
    name = sts["spec"].get("serviceName")
    if not name:
        return None
    namespace = sts["metadata"].get("namespace")
    svc = services.get_by_key(f"{namespace}/{name}")
    if svc is None:
        return NOT_FOUND, (
            f'governing Service "{name}" not found in namespace "{namespace}": pods are created '
            f"but get no DNS names (<pod>.{name}.{namespace}.svc) until a headless Service "
            f'"{name}" exists'
        )
    if (svc.get("spec") or {}).get("clusterIP") != "None":
        return NOT_HEADLESS, (
            f'governing Service "{name}" is not headless (clusterIP is not None): pods get no '
            f"DNS names (<pod>.{name}.{namespace}.svc)"
        )
    return None


class GoverningServiceCheck:
    """Warns once per set and problem, again only after the problem went away and came back."""

    def __init__(self, services: Indexer, recorder: Recorder) -> None:
        self._services = services
        self._recorder = recorder
        self._warned: dict[str, str] = {}

    def check(self, key: str, sts: Object) -> None:
        problem = governing_service_problem(sts, self._services)
        if problem is None:
            self._warned.pop(key, None)
            return
        reason, message = problem
        if self._warned.get(key) == reason:
            return
        self._warned[key] = reason
        self._recorder.event(sts, "Warning", reason, message)

    def forget(self, key: str) -> None:
        self._warned.pop(key, None)
