"""The routing table: which backend an HTTP request goes to, from its ``Host`` and path.

Pure (no I/O). Built from the Ingresses the controller serves; matching follows the Ingress
API's rules:

- host: a rule's exact host first, then a ``*.`` wildcard rule covering exactly one more DNS
  label (``*.foo.com`` matches ``bar.foo.com``, not ``foo.com`` nor ``baz.bar.foo.com``), then
  the rules without a host, which apply to every host; the first of these groups with a path
  that matches decides;
- path, within a group: ``Exact`` matches the path exactly (case-sensitive); ``Prefix`` matches
  element by element on ``/`` (``/foo/bar`` matches ``/foo/bar`` and ``/foo/bar/baz``, not
  ``/foo/barbaz``; a trailing ``/`` is ignored); ``ImplementationSpecific`` is treated as
  ``Prefix`` here. The longest matching path wins; at equal length ``Exact`` beats ``Prefix``;
  then the oldest Ingress (ingress-nginx's tie-break), then the rule order;
- no match: the ``defaultBackend`` of the oldest Ingress that has one, else none (the
  controller's own 404 page).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from minikube_py.api.unstructured import Object


@dataclass(frozen=True, slots=True)
class Backend:
    """A Service port in the Ingress's namespace: ``port`` is its number or its name."""

    namespace: str
    service: str
    port: int | str
    ingress: str  # namespace/name of the Ingress that routes here (for logs and events)


@dataclass(frozen=True, slots=True)
class PathRoute:
    path: str
    exact: bool
    backend: Backend
    order: tuple[str, str, int]  # (creation timestamp, ingress key, index): tie-breaks


@dataclass
class RoutingTable:
    """Routes by host: ``exact[host]``, ``wildcard[suffix]`` (``foo.com`` for ``*.foo.com``),
    ``any_host``; ``default`` is the fallback backend (None: the 404 page)."""

    exact: dict[str, list[PathRoute]] = field(default_factory=dict)
    wildcard: dict[str, list[PathRoute]] = field(default_factory=dict)
    any_host: list[PathRoute] = field(default_factory=list)
    default: Backend | None = None

    def match(self, host: str, path: str) -> Backend | None:
        """The backend of a request for ``host`` (a ``Host`` header: any port is dropped,
        case-insensitive) and ``path`` (no query); None when nothing matches."""
        name = host_name(host)
        groups = [self.exact.get(name, [])]
        _, dot, suffix = name.partition(".")
        if dot:
            groups.append(self.wildcard.get(suffix, []))
        groups.append(self.any_host)
        for routes in groups:
            found = best_route(routes, path)
            if found is not None:
                return found.backend
        return self.default


def host_name(host: str) -> str:
    """The host of a ``Host`` header, lower case, without its port (``[::1]:80`` too)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def path_matches(route: PathRoute, path: str) -> bool:
    if route.exact:
        return path == route.path
    prefix = [e for e in route.path.split("/") if e]
    return [e for e in path.split("/") if e][: len(prefix)] == prefix


def best_route(routes: Iterable[PathRoute], path: str) -> PathRoute | None:
    """The longest matching path; Exact before Prefix at equal length; then the oldest."""
    matching = [r for r in routes if path_matches(r, path)]
    if not matching:
        return None
    return min(matching, key=lambda r: (-len(r.path.rstrip("/") or "/"), not r.exact, r.order))


def _backend(spec_backend: Object | None, namespace: str, ingress: str) -> Backend | None:
    service = (spec_backend or {}).get("service")
    if not service:
        return None  # a resource backend: not something this controller can serve
    port = service.get("port") or {}
    return Backend(
        namespace, str(service.get("name") or ""), port.get("name") or int(port.get("number") or 0), ingress
    )


def _created(ingress: Object) -> str:
    return str(ingress["metadata"].get("creationTimestamp") or "")


def build_table(ingresses: Iterable[Object]) -> RoutingTable:
    """The table of these Ingresses (the caller has chosen those of its class)."""
    table = RoutingTable()
    ordered = sorted(
        ingresses, key=lambda i: (_created(i), i["metadata"].get("namespace", ""), i["metadata"]["name"])
    )
    for ing in ordered:
        meta, spec = ing["metadata"], ing.get("spec") or {}
        namespace, key = meta.get("namespace", ""), f"{meta.get('namespace', '')}/{meta['name']}"
        if table.default is None:
            table.default = _backend(spec.get("defaultBackend"), namespace, key)
        for index, rule in enumerate(spec.get("rules") or []):
            routes = _host_routes(table, str(rule.get("host") or "").lower())
            for number, path in enumerate(((rule.get("http") or {}).get("paths")) or []):
                backend = _backend(path.get("backend"), namespace, key)
                if backend is None:
                    continue
                exact = path.get("pathType") == "Exact"
                order = (_created(ing), key, index * 1000 + number)
                routes.append(PathRoute(str(path.get("path") or "/"), exact, backend, order))
    return table


def _host_routes(table: RoutingTable, host: str) -> list[PathRoute]:
    if not host:
        return table.any_host
    if host.startswith("*."):
        return table.wildcard.setdefault(host[2:], [])
    return table.exact.setdefault(host, [])
