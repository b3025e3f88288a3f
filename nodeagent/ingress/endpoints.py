"""A backend's ready endpoints: its Service's port (by number or name), then the addresses of
the EndpointSlices labelled ``kubernetes.io/service-name=<service>`` that are ready, on the
slice port named like the Service port. Straight to the pods, as ingress-nginx does, not
through the ClusterIP. Pure: the caller passes what its informers hold."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from minikube_py.api.unstructured import Object
from nodeagent.ingress.routes import Backend

SERVICE_NAME_LABEL = "kubernetes.io/service-name"


@dataclass(frozen=True, slots=True)
class Resolved:
    """``endpoints`` as ``(address, port)``; when empty, ``reason`` says why (the 503's log)."""

    endpoints: tuple[tuple[str, int], ...]
    reason: str = ""


def service_port(service: Object, port: int | str) -> Object | None:
    """The Service port a backend names (its number or its name)."""
    for candidate in (service.get("spec") or {}).get("ports") or []:
        if (candidate.get("port") if isinstance(port, int) else candidate.get("name")) == port:
            return dict(candidate)
    return None


def ready_endpoints(slices: Iterable[Object], port_name: str) -> list[tuple[str, int]]:
    """Every ready address of ``slices`` on the port named ``port_name`` (unset ready is
    ready, as the EndpointSlice API says consumers should read it)."""
    found: list[tuple[str, int]] = []
    for endpoint_slice in slices:
        numbers = [
            p.get("port") for p in endpoint_slice.get("ports") or [] if (p.get("name") or "") == port_name
        ]
        if not numbers or numbers[0] is None:
            continue
        for endpoint in endpoint_slice.get("endpoints") or []:
            if (endpoint.get("conditions") or {}).get("ready") is False:
                continue
            found += [(str(address), int(numbers[0])) for address in endpoint.get("addresses") or []]
    return sorted(set(found))


def resolve(
    backend: Backend,
    service: Callable[[str, str], Object | None],
    slices: Callable[[str, str], list[Object]],
) -> Resolved:
    """``service(namespace, name)`` and ``slices(namespace, service)`` read the caches."""
    svc = service(backend.namespace, backend.service)
    where = f'service "{backend.namespace}/{backend.service}"'
    if svc is None:
        return Resolved((), f"{where} does not exist")
    port = service_port(svc, backend.port)
    if port is None:
        return Resolved((), f"{where} has no port {backend.port}")
    found = ready_endpoints(slices(backend.namespace, backend.service), str(port.get("name") or ""))
    if not found:
        return Resolved((), f"{where} has no ready endpoints on port {backend.port}")
    return Resolved(tuple(found))
