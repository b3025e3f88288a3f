"""What a frontend (an address, port and protocol the proxy listens on) forwards to: its
service port's name, the usable backends and the balancer. A listener holds a ``RouteRef``;
a sync swaps the route inside it, so established connections keep their backends while new
ones see the new set."""

from __future__ import annotations

from dataclasses import dataclass

from nodeagent.proxy.balancer import Balancer
from nodeagent.proxy.endpoints import Backend

# (protocol, address, port)
FrontendKey = tuple[str, str, int]


@dataclass(frozen=True)
class Route:
    name: str  # the service port, "namespace/name:port"
    backends: tuple[Backend, ...]
    balancer: Balancer

    def candidates(self, client_ip: str) -> list[Backend]:
        return self.balancer.candidates(client_ip, self.backends)


class RouteRef:
    """The current route of one listener (swapped by syncs)."""

    def __init__(self, route: Route) -> None:
        self.route = route


def source_address(client_ip: str, backend_ip: str) -> str:
    """Where the proxy dials from: the client's own loopback address (so the backend sees the
    client, as upstream's DNAT keeps the source), or the loopback address of the backend's
    family when the two families differ."""
    if (":" in client_ip) == (":" in backend_ip):
        return client_ip
    return "::1" if ":" in backend_ip else "127.0.0.1"
