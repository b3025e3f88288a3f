"""Typed decoding through real kubectl (issue 13 item 1): a manifest whose values do not fit
upstream's types is refused with upstream's message, for create, apply (client- and server-side)
and scale, and nothing is stored."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cluster import Cluster, kubectl, running_up

pytestmark = pytest.mark.e2e
REPLICAS = "Go struct field DeploymentSpec.spec.replicas of type int32"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("typed-kubectl"), flags=["--controllers="])


def manifest(name: str, replicas: Any) -> str:
    labels = {"app": name}
    container = {"name": "c", "image": "nginx"}
    return json.dumps(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": labels},
                "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
            },
        }
    )


@pytest.mark.parametrize(("verb", "extra"), [("create", []), ("apply", []), ("apply", ["--server-side"])])
def test_quoted_replicas_are_refused(cluster: Cluster, verb: str, extra: list[str]) -> None:
    result = kubectl(cluster, verb, *extra, "-f", "-", stdin=manifest("quoted", "3"))
    assert result.returncode != 0
    if "--server-side" in extra:
        expected = ".spec.replicas: expected numeric (int or float), got string"
    else:
        expected = f"json: cannot unmarshal string into {REPLICAS}"
    assert expected in result.stderr, result.stderr
    assert "Error from server (BadRequest)" in result.stderr
    assert kubectl(cluster, "get", "deployment", "quoted").returncode != 0


def test_fractional_replicas_are_refused(cluster: Cluster) -> None:
    result = kubectl(cluster, "create", "-f", "-", stdin=manifest("fraction", 2.5))
    assert result.returncode != 0
    assert f"json: cannot unmarshal number 2.5 into {REPLICAS}" in result.stderr, result.stderr


def test_scale_and_patch_refuse_what_does_not_decode(cluster: Cluster) -> None:
    created = kubectl(cluster, "create", "-f", "-", stdin=manifest("web", 1))
    assert created.returncode == 0, created.stderr
    patched = kubectl(
        cluster, "patch", "deployment", "web", "--type=merge", "-p", '{"spec":{"replicas":"9"}}'
    )
    assert patched.returncode != 0
    assert f"json: cannot unmarshal string into {REPLICAS}" in patched.stderr, patched.stderr
    strategic = kubectl(cluster, "patch", "deployment", "web", "-p", '{"spec":{"replicas":2.5}}')
    assert strategic.returncode != 0
    assert "cannot convert float64 to int32" in strategic.stderr, strategic.stderr
    got = kubectl(cluster, "get", "deployment", "web", "-o", "jsonpath={.spec.replicas}")
    assert got.stdout == "1"
