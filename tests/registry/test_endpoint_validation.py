"""Endpoints and EndpointSlice strategies: upstream's validation messages (loopback accepted,
the one deviation), EndpointSlice defaults, generation and the ``kubectl get`` row."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.registry.resources.endpoints import EndpointsStrategy
from apiserver.registry.resources.endpointslice import EndpointSliceStrategy
from tests.registry.helpers import NOW, causes, meta, prepared_for_create, prepared_for_update

PORT = {"name": "http", "port": 80, "protocol": "TCP"}


def endpoints(*subsets: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": meta("web"), "subsets": list(subsets)}


ENDPOINTS_CASES: list[tuple[str, dict[str, Any], list[tuple[str, str, str]]]] = [
    ("loopback is the pod network here", {"addresses": [{"ip": "127.128.0.2"}], "ports": [PORT]}, []),
    (
        "no address at all",
        {"ports": [PORT]},
        [
            (
                "FieldValueRequired",
                "subsets[0]",
                "Required value: must specify `addresses` or `notReadyAddresses`",
            )
        ],
    ),
    (
        "not an IP",
        {"addresses": [{"ip": "web"}]},
        [
            (
                "FieldValueInvalid",
                "subsets[0].addresses[0].ip",
                'Invalid value: "web": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
            ),
            (
                "FieldValueInvalid",
                "subsets[0].addresses[0].ip",
                'Invalid value: "web": must be a valid IP address',
            ),
        ],
    ),
    (
        "unspecified",
        {"notReadyAddresses": [{"ip": "0.0.0.0"}]},
        [
            (
                "FieldValueInvalid",
                "subsets[0].notReadyAddresses[0].ip",
                'Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0, ::)',
            )
        ],
    ),
    (
        "link-local",
        {"addresses": [{"ip": "169.254.1.1"}]},
        [
            (
                "FieldValueInvalid",
                "subsets[0].addresses[0].ip",
                "may not be in the link-local range (169.254.0.0/16, fe80::/10)",
            )
        ],
    ),
    (
        "two ports need names, protocols must be known",
        {
            "addresses": [{"ip": "127.0.0.2"}],
            "ports": [{"port": 80, "protocol": "TCP"}, {"name": "b", "port": 0, "protocol": "HTTP"}],
        },
        [
            ("FieldValueRequired", "subsets[0].ports[0].name", "Required value"),
            (
                "FieldValueInvalid",
                "subsets[0].ports[1].port",
                "Invalid value: 0: must be between 1 and 65535, inclusive",
            ),
            (
                "FieldValueNotSupported",
                "subsets[0].ports[1].protocol",
                'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
            ),
        ],
    ),
    (
        "host name and node name",
        {"addresses": [{"ip": "127.0.0.2", "hostname": "A_B", "nodeName": "Node!"}]},
        [
            ("FieldValueInvalid", "subsets[0].addresses[0].hostname", "A_B"),
            ("FieldValueInvalid", "subsets[0].addresses[0].nodeName", "Node!"),
        ],
    ),
]


@pytest.mark.parametrize(
    ("subset", "want"), [c[1:] for c in ENDPOINTS_CASES], ids=[c[0] for c in ENDPOINTS_CASES]
)
def test_endpoints_validation(subset: dict[str, Any], want: list[tuple[str, str, str]]) -> None:
    found = causes(EndpointsStrategy().validate(endpoints(subset)))
    assert [(r, f) for r, f, _ in found] == [(r, f) for r, f, _ in want]
    for (_, _, message), (_, _, expected) in zip(found, want, strict=True):
        assert expected in message


def slice_(**fields: Any) -> dict[str, Any]:
    return {"metadata": meta("web-abcde"), "addressType": "IPv4", "endpoints": [], "ports": [], **fields}


SLICE_CASES: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("loopback accepted", slice_(endpoints=[{"addresses": ["127.128.0.2"]}]), []),
    ("address type required", slice_(addressType=""), [("FieldValueRequired", "addressType")]),
    ("address type known", slice_(addressType="IPv5"), [("FieldValueNotSupported", "addressType")]),
    (
        "an endpoint needs an address",
        slice_(endpoints=[{"addresses": []}]),
        [("FieldValueRequired", "endpoints[0].addresses")],
    ),
    (
        "IPv6 in an IPv4 slice",
        slice_(endpoints=[{"addresses": ["::2"]}]),
        [("FieldValueInvalid", "endpoints[0].addresses[0]")],
    ),
    (
        "too many endpoints",
        slice_(endpoints=[{"addresses": ["127.0.0.2"]}] * 1001),
        [("FieldValueTooMany", "endpoints")],
    ),
    (
        "too many addresses",
        slice_(endpoints=[{"addresses": ["127.0.0.2"] * 101}]),
        [("FieldValueTooMany", "endpoints[0].addresses")],
    ),
    (
        "port names unique, protocols known",
        slice_(ports=[{"name": "a", "protocol": "TCP"}, {"name": "a", "protocol": "ICMP"}]),
        [("FieldValueDuplicate", "ports[1].name"), ("FieldValueNotSupported", "ports[1].protocol")],
    ),
    (
        "host name is a label",
        slice_(endpoints=[{"addresses": ["127.0.0.2"], "hostname": "a.b"}]),
        [("FieldValueInvalid", "endpoints[0].hostname")],
    ),
    (
        "FQDN addresses",
        slice_(addressType="FQDN", endpoints=[{"addresses": ["web.example.com", "Bad_Name"]}]),
        [("FieldValueInvalid", "endpoints[0].addresses[1]")],
    ),
]


@pytest.mark.parametrize(("obj", "want"), [c[1:] for c in SLICE_CASES], ids=[c[0] for c in SLICE_CASES])
def test_endpointslice_validation(obj: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert [(r, f) for r, f, _ in causes(EndpointSliceStrategy().validate(obj))] == want


def test_endpointslice_address_type_is_immutable() -> None:
    found = causes(EndpointSliceStrategy().validate_update(slice_(addressType="IPv6"), slice_()))
    assert found == [("FieldValueInvalid", "addressType", 'Invalid value: "IPv6": field is immutable')]


def test_endpointslice_defaults_and_generation() -> None:
    strategy = EndpointSliceStrategy()
    obj = slice_(ports=[{"port": 80}])
    prepared_for_create(strategy, obj)
    assert obj["ports"] == [{"name": "", "port": 80, "protocol": "TCP"}]
    assert obj["metadata"]["generation"] == 1
    same = slice_(ports=[{"port": 80}], metadata={**obj["metadata"]})
    prepared_for_update(strategy, same, obj)
    assert same["metadata"]["generation"] == 1
    moved = slice_(ports=[{"port": 81}], metadata={**obj["metadata"]})
    prepared_for_update(strategy, moved, obj)
    assert moved["metadata"]["generation"] == 2


@pytest.mark.parametrize(
    ("ports", "addresses", "cells"),
    [
        ([], [], ["<unset>", "<unset>"]),
        ([{"port": 80}, {"name": "x"}], [["127.0.0.2"]], ["80,x", "127.0.0.2"]),
        (
            [{"port": p} for p in (1, 2, 3, 4)],
            [[f"127.0.0.{i}"] for i in range(2, 7)],
            ["1,2,3 + 1 more...", "127.0.0.2,127.0.0.3,127.0.0.4 + 2 more..."],
        ),
    ],
)
def test_endpointslice_row(ports: list[Any], addresses: list[list[str]], cells: list[str]) -> None:
    obj = slice_(ports=ports, endpoints=[{"addresses": a} for a in addresses])
    assert EndpointSliceStrategy().table_cells(obj, NOW) == ["web-abcde", "IPv4", *cells, "60m"]
    assert [c[0] for c in EndpointSliceStrategy().table_columns()] == [
        "Name",
        "AddressType",
        "Ports",
        "Endpoints",
        "Age",
    ]
