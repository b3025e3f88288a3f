"""The routing table, table-driven and without a network: host matching (exact, one-label
``*.`` wildcards, host-less rules), ``Exact``/``Prefix`` paths with the Ingress API's
element-wise prefix semantics (upstream's examples table), longest match first, Exact before
Prefix, the oldest Ingress on ties, and the default backend."""

from __future__ import annotations

from typing import Any

import pytest

from nodeagent.ingress.routes import Backend, build_table, host_name


def ingress(
    name: str, rules: list[Any], created: str = "2024-01-01T00:00:00Z", **spec: Any
) -> dict[str, Any]:
    meta = {"name": name, "namespace": "default", "creationTimestamp": created}
    return {"metadata": meta, "spec": {"rules": rules, **spec}}


def svc(name: str, port: int | str = 80) -> dict[str, Any]:
    key = "number" if isinstance(port, int) else "name"
    return {"service": {"name": name, "port": {key: port}}}


def rule(host: str, *paths: tuple[str, str, str]) -> dict[str, Any]:
    items = [{"path": p, "pathType": kind, "backend": svc(service)} for p, kind, service in paths]
    return {"host": host, "http": {"paths": items}}


def served_by(ingresses: list[dict[str, Any]], host: str, path: str) -> str | None:
    backend = build_table(ingresses).match(host, path)
    return None if backend is None else backend.service


# upstream's examples (concepts/services-networking/ingress, "Examples")
@pytest.mark.parametrize(
    ("kind", "paths", "request_path", "matches"),
    [
        ("Prefix", ["/"], "/anything", True),
        ("Exact", ["/foo"], "/foo", True),
        ("Exact", ["/foo"], "/bar", False),
        ("Exact", ["/foo"], "/foo/", False),
        ("Exact", ["/foo/"], "/foo", False),
        ("Prefix", ["/foo"], "/foo", True),
        ("Prefix", ["/foo"], "/foo/", True),
        ("Prefix", ["/foo/"], "/foo", True),
        ("Prefix", ["/foo/"], "/foo/", True),
        ("Prefix", ["/aaa/bb"], "/aaa/bbb", False),
        ("Prefix", ["/aaa/bbb"], "/aaa/bbb", True),
        ("Prefix", ["/aaa/bbb/"], "/aaa/bbb", True),
        ("Prefix", ["/aaa/bbb"], "/aaa/bbb/", True),
        ("Prefix", ["/aaa/bbb"], "/aaa/bbb/ccc", True),
        ("Prefix", ["/aaa/bbb"], "/aaa/bbbxyz", False),
        ("Prefix", ["/", "/aaa"], "/aaa/ccc", True),
        ("Prefix", ["/", "/aaa", "/aaa/bbb"], "/aaa/bbb", True),
        ("Prefix", ["/", "/aaa", "/aaa/bbb"], "/ccc", True),
        ("Prefix", ["/aaa"], "/ccc", False),
        ("ImplementationSpecific", ["/aaa"], "/aaa/x", True),  # here: as Prefix
        ("ImplementationSpecific", ["/aaa"], "/aaax", False),
    ],
)
def test_path_matching(kind: str, paths: list[str], request_path: str, matches: bool) -> None:
    ing = ingress("i", [rule("", *[(p, kind, f"svc{p}") for p in paths])])
    found = served_by([ing], "any.host", request_path)
    assert (found is not None) == matches
    if request_path == "/aaa/bbb" and len(paths) == 3:
        assert found == "svc/aaa/bbb"  # the longest match


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("foo.bar.com", "exact"),
        ("FOO.bar.com:8080", "exact"),  # case-insensitive, port dropped
        ("baz.bar.com", "wild"),
        ("bar.com", "catchall"),  # a wildcard covers exactly one label more
        ("a.baz.bar.com", "catchall"),
        ("other.localhost", "catchall"),
    ],
)
def test_host_matching(host: str, expected: str) -> None:
    ing = ingress(
        "i",
        [
            rule("foo.bar.com", ("/", "Prefix", "exact")),
            rule("*.bar.com", ("/", "Prefix", "wild")),
            rule("", ("/", "Prefix", "catchall")),
        ],
    )
    assert served_by([ing], host, "/x") == expected


def test_a_host_without_a_matching_path_falls_through_to_wildcard_then_host_less_rules() -> None:
    ing = ingress(
        "i",
        [
            rule("foo.bar.com", ("/api", "Prefix", "api")),
            rule("*.bar.com", ("/static", "Prefix", "static")),
            rule("", ("/", "Prefix", "catchall")),
        ],
    )
    assert served_by([ing], "foo.bar.com", "/api/v1") == "api"
    assert served_by([ing], "foo.bar.com", "/static/a.css") == "static"
    assert served_by([ing], "foo.bar.com", "/") == "catchall"


def test_exact_beats_prefix_at_equal_length_and_longest_wins() -> None:
    ing = ingress(
        "i", [rule("a.io", ("/foo", "Prefix", "prefix"), ("/foo", "Exact", "exact"), ("/", "Prefix", "root"))]
    )
    assert served_by([ing], "a.io", "/foo") == "exact"
    assert served_by([ing], "a.io", "/foo/x") == "prefix"
    assert served_by([ing], "a.io", "/bar") == "root"


def test_two_ingresses_for_one_host_the_oldest_wins_a_tie() -> None:
    old = ingress("old", [rule("a.io", ("/", "Prefix", "old"))], created="2024-01-01T00:00:00Z")
    new = ingress(
        "new",
        [rule("a.io", ("/", "Prefix", "new"), ("/new", "Prefix", "only-new"))],
        created="2024-02-01T00:00:00Z",
    )
    assert served_by([new, old], "a.io", "/x") == "old"
    assert served_by([new, old], "a.io", "/new/x") == "only-new"


def test_default_backend_of_the_oldest_ingress_and_none_without() -> None:
    plain = ingress("plain", [rule("a.io", ("/", "Prefix", "a"))])
    first = ingress("first", [], created="2024-01-02T00:00:00Z", defaultBackend=svc("fallback", "http"))
    second = ingress("second", [], created="2024-01-03T00:00:00Z", defaultBackend=svc("later"))
    table = build_table([second, plain, first])
    assert table.match("b.io", "/") == Backend("default", "fallback", "http", "default/first")
    assert build_table([plain]).match("b.io", "/") is None


def test_resource_backends_are_not_routed() -> None:
    resource = {"resource": {"apiGroup": "k8s.example.com", "kind": "Bucket", "name": "b"}}
    ing = ingress(
        "i", [{"host": "a.io", "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": resource}]}}]
    )
    assert served_by([ing], "a.io", "/") is None


@pytest.mark.parametrize(
    ("header", "host"),
    [
        ("a.localhost", "a.localhost"),
        ("A.Localhost:80", "a.localhost"),
        ("[::1]:8080", "[::1]"),
        ("::1", "::1"),
    ],
)
def test_host_name(header: str, host: str) -> None:
    assert host_name(header) == host
