"""Ingress and IngressClass strategies: served as upstream serves them, validation with
upstream's messages (``pkg/apis/networking/validation``), and the rows ``kubectl get`` prints
(``pkg/printers/internalversion``)."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.registry.resources.ingress import IngressStrategy
from apiserver.registry.resources.ingressclass import IngressClassStrategy
from minikube_py.api.builtin import builtin_scheme
from tests.registry.helpers import NOW, causes, meta, prepared_for_create

SVC = {"service": {"name": "web", "port": {"number": 80}}}
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def ingress(spec: dict[str, Any], **metadata: Any) -> dict[str, Any]:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": meta("web", **metadata),
        "spec": spec,
    }


def rule(host: str = "", *paths: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"http": {"paths": list(paths) or [path()]}}
    return {"host": host, **out} if host else out


def path(value: str = "/", kind: str | None = "Prefix", backend: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"path": value, "backend": SVC if backend is None else backend}
    return {**out, "pathType": kind} if kind is not None else out


def test_both_kinds_are_served_as_upstream_serves_them() -> None:
    scheme = builtin_scheme()
    ingresses = scheme.by_resource("networking.k8s.io", "v1", "ingresses")
    classes = scheme.by_resource("networking.k8s.io", "v1", "ingressclasses")
    assert ingresses is not None and ingresses.kind == "Ingress" and ingresses.namespaced
    assert ingresses.short_names == ("ing",) and [s.name for s in ingresses.subresources] == ["status"]
    assert classes is not None and classes.kind == "IngressClass" and not classes.namespaced
    assert classes.short_names == () and classes.subresources == ()


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"rules": [rule("web.localhost")]}, []),
        ({"rules": [rule("*.foo.com")], "tls": [{"hosts": ["*.foo.com"], "secretName": "tls"}]}, []),
        ({"defaultBackend": SVC}, []),
        ({"rules": [rule("", path("", "ImplementationSpecific"))]}, []),
        (
            {},
            [
                (
                    "FieldValueInvalid",
                    "spec",
                    "Invalid value: null: either `defaultBackend` or `rules` must be specified",
                )
            ],
        ),
        (
            {"rules": [rule("", path("/", None))]},
            [
                (
                    "FieldValueRequired",
                    "spec.rules[0].http.paths[0].pathType",
                    "Required value: pathType must be specified",
                )
            ],
        ),
        (
            {"rules": [rule("", path("foo", "Exact"))]},
            [
                (
                    "FieldValueInvalid",
                    "spec.rules[0].http.paths[0].path",
                    'Invalid value: "foo": must be an absolute path',
                )
            ],
        ),
        (
            {"rules": [rule("", path("/a//b", "Prefix"), path("/a/..", "Exact"))]},
            [
                (
                    "FieldValueInvalid",
                    "spec.rules[0].http.paths[0].path",
                    "Invalid value: \"/a//b\": must not contain '//'",
                ),
                (
                    "FieldValueInvalid",
                    "spec.rules[0].http.paths[1].path",
                    "Invalid value: \"/a/..\": cannot end with '/..'",
                ),
            ],
        ),
        (
            {"rules": [rule("", path("/", "Glob"))]},
            [
                (
                    "FieldValueNotSupported",
                    "spec.rules[0].http.paths[0].pathType",
                    'Unsupported value: "Glob": supported values: '
                    '"Exact", "ImplementationSpecific", "Prefix"',
                )
            ],
        ),
        (
            {"rules": [rule("10.0.0.1")]},
            [
                (
                    "FieldValueInvalid",
                    "spec.rules[0].host",
                    'Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
                )
            ],
        ),
        (
            {"rules": [rule("*.*.foo.com")]},
            [
                (
                    "FieldValueInvalid",
                    "spec.rules[0].host",
                    "Invalid value: \"*.*.foo.com\": a wildcard DNS-1123 subdomain must start with '*.', "
                    "followed by a valid DNS subdomain, which must consist of lower case alphanumeric "
                    "characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', "
                    "regex used for validation is "
                    "'\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                )
            ],
        ),
        (
            {"rules": [rule("Web.Example")]},
            [("FieldValueInvalid", "spec.rules[0].host", f'Invalid value: "Web.Example": {SUBDOMAIN}')],
        ),
        (
            {"defaultBackend": {"service": {"name": "web", "port": {"name": "http", "number": 80}}}},
            [
                (
                    "FieldValueInvalid",
                    "spec.defaultBackend",
                    'Invalid value: "": cannot set both port name & port number',
                )
            ],
        ),
        (
            {"defaultBackend": {"service": {"name": "web"}}},
            [
                (
                    "FieldValueRequired",
                    "spec.defaultBackend",
                    "Required value: port name or number is required",
                )
            ],
        ),
        (
            {"defaultBackend": {"service": {"name": "web", "port": {"number": 70000}}}},
            [
                (
                    "FieldValueInvalid",
                    "spec.defaultBackend.service.port.number",
                    "Invalid value: 70000: must be between 1 and 65535, inclusive",
                )
            ],
        ),
        (
            {"defaultBackend": {"service": {"name": "web", "port": {"name": "HTTP"}}}},
            [
                (
                    "FieldValueInvalid",
                    "spec.defaultBackend.service.port.name",
                    'Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), '
                    "and hyphens (-)",
                ),
                (
                    "FieldValueInvalid",
                    "spec.defaultBackend.service.port.name",
                    'Invalid value: "HTTP": must contain at least one letter (a-z)',
                ),
            ],
        ),
        (
            {"defaultBackend": {"service": {"port": {"number": 80}}}},
            [("FieldValueRequired", "spec.defaultBackend.service.name", "Required value")],
        ),
        (
            {"defaultBackend": {}},
            [
                (
                    "FieldValueInvalid",
                    "spec.defaultBackend",
                    'Invalid value: "": resource or service backend is required',
                )
            ],
        ),
        (
            {"defaultBackend": {**SVC, "resource": {"kind": "Bucket", "name": "b"}}},
            [
                (
                    "FieldValueInvalid",
                    "spec.defaultBackend",
                    'Invalid value: "": cannot set both resource and service backends',
                )
            ],
        ),
        (
            {"rules": [{"host": "a.com", "http": {"paths": []}}]},
            [("FieldValueRequired", "spec.rules[0].http.paths", "Required value")],
        ),
        (
            {"defaultBackend": SVC, "tls": [{"hosts": ["1_bad"]}]},
            [("FieldValueInvalid", "spec.tls[0].hosts[0]", f'Invalid value: "1_bad": {SUBDOMAIN}')],
        ),
    ],
)
def test_ingress_validation(spec: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    obj = ingress(spec)
    prepared_for_create(IngressStrategy(), obj)
    assert causes(IngressStrategy().validate(obj)) == expected


def test_ingress_class_annotation_must_match_the_class_name() -> None:
    obj = ingress(
        {"ingressClassName": "a", "defaultBackend": SVC}, annotations={"kubernetes.io/ingress.class": "b"}
    )
    assert causes(IngressStrategy().validate(obj)) == [
        (
            "FieldValueInvalid",
            "annotations.kubernetes.io/ingress.class",
            'Invalid value: "b": must match `ingressClassName` when both are specified',
        )
    ]


def test_ingress_status_addresses_are_validated_on_update() -> None:
    old = ingress({"defaultBackend": SVC})
    new = {**old, "status": {"loadBalancer": {"ingress": [{"ip": "not-an-ip"}, {"hostname": "1.2.3.4"}]}}}
    assert causes(IngressStrategy().validate_update(new, old)) == [
        (
            "FieldValueInvalid",
            "status.loadBalancer.ingress[0].ip",
            'Invalid value: "not-an-ip": must be a valid IP address',
        ),
        (
            "FieldValueInvalid",
            "status.loadBalancer.ingress[1].hostname",
            'Invalid value: "1.2.3.4": must be a DNS name, not an IP address',
        ),
    ]


def test_create_drops_status_and_pathtype_has_no_default() -> None:
    obj = ingress({"rules": [rule("", path("/", None))]})
    obj["status"] = {"loadBalancer": {"ingress": [{"ip": "127.0.0.1"}]}}
    prepared_for_create(IngressStrategy(), obj)
    assert "status" not in obj
    assert "pathType" not in obj["spec"]["rules"][0]["http"]["paths"][0]


@pytest.mark.parametrize(
    ("spec", "status", "row"),
    [
        ({"defaultBackend": SVC}, {}, ["web", "<none>", "*", "", "80", "60m"]),
        (
            {
                "ingressClassName": "minikube-py",
                "rules": [rule("a.localhost"), rule("b.localhost")],
                "tls": [{}],
            },
            {"loadBalancer": {"ingress": [{"ip": "127.0.0.1"}]}},
            ["web", "minikube-py", "a.localhost,b.localhost", "127.0.0.1", "80, 443", "60m"],
        ),
        (
            {"rules": [rule(h) for h in ("a.io", "b.io", "c.io", "d.io", "e.io")]},
            {
                "loadBalancer": {
                    "ingress": [{"ip": "10.0.0.12"}, {"hostname": "lb.example.com"}, {"ip": "10.0.0.12"}]
                }
            },
            ["web", "<none>", "a.io,b.io,c.io + 2 more...", "10.0.0.12,lb....", "80", "60m"],
        ),
        ({"rules": [rule(), rule("a.io")]}, {}, ["web", "<none>", "a.io", "", "80", "60m"]),
    ],
)
def test_ingress_rows(spec: dict[str, Any], status: dict[str, Any], row: list[Any]) -> None:
    strategy = IngressStrategy()
    assert [c[0] for c in strategy.table_columns()] == ["Name", "Class", "Hosts", "Address", "Ports", "Age"]
    assert strategy.table_cells({**ingress(spec), "status": status}, NOW) == row


def ingress_class(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "IngressClass",
        "metadata": meta("nginx", None),
        "spec": spec,
    }


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"controller": "example.com/ingress"}, []),
        ({}, [("FieldValueRequired", "spec.controller", "Required value")]),
        (
            {"controller": "nginx"},
            [
                (
                    "FieldValueInvalid",
                    "spec.controller",
                    'Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")',
                )
            ],
        ),
        (
            {
                "controller": "example.com/x",
                "parameters": {"kind": "Params", "name": "p", "scope": "Namespace"},
            },
            [
                (
                    "FieldValueRequired",
                    "spec.parameters.namespace",
                    "Required value: `parameters.scope` is set to 'Namespace'",
                )
            ],
        ),
        (
            {"controller": "example.com/x", "parameters": {"kind": "Params", "name": "p", "namespace": "ns"}},
            [
                (
                    "FieldValueForbidden",
                    "spec.parameters.namespace",
                    "Forbidden: `parameters.scope` is set to 'Cluster'",
                )
            ],
        ),
        (
            {"controller": "example.com/x", "parameters": {"name": "p"}},
            [("FieldValueRequired", "spec.parameters.kind", "Required value")],
        ),
    ],
)
def test_ingress_class_validation(spec: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    obj = ingress_class(spec)
    prepared_for_create(IngressClassStrategy(), obj)  # parameters.scope defaults to Cluster
    assert causes(IngressClassStrategy().validate(obj)) == expected


def test_ingress_class_controller_is_immutable() -> None:
    old, new = ingress_class({"controller": "example.com/a"}), ingress_class({"controller": "example.com/b"})
    assert causes(IngressClassStrategy().validate_update(new, old)) == [
        ("FieldValueInvalid", "spec.controller", 'Invalid value: "example.com/b": field is immutable')
    ]


@pytest.mark.parametrize(
    ("spec", "parameters"),
    [
        ({"controller": "k8s.io/ingress-nginx"}, "<none>"),
        (
            {"controller": "x.io/c", "parameters": {"kind": "IngressParameters", "name": "p"}},
            "IngressParameters/p",
        ),
        (
            {
                "controller": "x.io/c",
                "parameters": {"apiGroup": "k8s.example.com", "kind": "Params", "name": "p"},
            },
            "Params.k8s.example.com/p",
        ),
    ],
)
def test_ingress_class_rows(spec: dict[str, Any], parameters: str) -> None:
    strategy = IngressClassStrategy()
    assert [c[0] for c in strategy.table_columns()] == ["Name", "Controller", "Parameters", "Age"]
    assert strategy.table_cells(ingress_class(spec), NOW) == ["nginx", spec["controller"], parameters, "60m"]
