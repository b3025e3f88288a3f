"""Accept-header negotiation for Tables and aggregated discovery, and human ages."""

from __future__ import annotations

import pytest

from apiserver.endpoints.discovery import aggregated_version
from apiserver.endpoints.table import table_version
from apiserver.registry.age import human_duration

KUBECTL_TABLE = (
    "application/json;as=Table;v=v1;g=meta.k8s.io,"
    "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
)
DISCOVERY_127 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
DISCOVERY_133 = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
)


@pytest.mark.parametrize(
    ("accept", "version"),
    [
        (KUBECTL_TABLE, "v1"),
        ("application/json;as=Table;v=v1beta1;g=meta.k8s.io", "v1beta1"),
        ("application/json", None),
        ("application/json, application/json;as=Table;v=v1;g=meta.k8s.io", None),
        ("", None),
    ],
)
def test_table_negotiation(accept: str, version: str | None) -> None:
    assert table_version(accept) == version


@pytest.mark.parametrize(
    ("accept", "version"),
    [(DISCOVERY_127, "v2beta1"), (DISCOVERY_133, "v2"), ("application/json", None), ("", None)],
)
def test_aggregated_discovery_negotiation(accept: str, version: str | None) -> None:
    assert aggregated_version(accept) == version


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (-5, "<invalid>"),
        (0, "0s"),
        (119, "119s"),
        (125, "2m5s"),
        (600, "10m"),
        (3 * 3600 + 60, "3h1m"),
        (9 * 3600, "9h"),
        (3 * 86400 + 3600, "3d1h"),
        (10 * 86400, "10d"),
        (800 * 86400, "2y70d"),
        (3000 * 86400, "8y"),
    ],
)
def test_human_duration(seconds: int, text: str) -> None:
    assert human_duration(seconds) == text
