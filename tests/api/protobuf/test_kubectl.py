"""What real kubectl sends: each protobuf body decodes to the JSON kubectl 1.31 sends for the same command.

``fixtures/NAME.pb`` is the body of ``capture.COMMANDS[NAME]`` through kubectl 1.32 (protobuf) and
``fixtures/NAME.json`` the body of the same command through kubectl 1.31 (JSON); ``capture.py`` rewrites
them. The live tests repeat the comparison with the kubectl binaries on this machine (1.32 and 1.33).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.protobuf.decode import decode_envelope, decode_object
from tests.api.protobuf.capture import COMMANDS, FIXTURES, KUBECTL_DIR, Request, capture, write_inputs

NAMES = sorted(COMMANDS)


def as_upstream_renders(sent: Any) -> Any:
    """kubectl 1.31's JSON, less ``"creationTimestamp": null``: upstream omits a zero creationTimestamp
    since 1.34 (``omitzero``, apimachinery commit "Omit null metadata.creationTimestamp")."""
    if isinstance(sent, dict):
        return {
            key: as_upstream_renders(value)
            for key, value in sent.items()
            if not (key == "creationTimestamp" and value is None)
        }
    if isinstance(sent, list):
        return [as_upstream_renders(item) for item in sent]
    return sent


def test_every_command_has_its_fixtures() -> None:
    assert sorted(path.stem for path in FIXTURES.glob("*.pb")) == NAMES
    assert sorted(path.stem for path in FIXTURES.glob("*.json")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_fixture_decodes_to_what_kubectl_sends_as_json(name: str) -> None:
    body = (FIXTURES / f"{name}.pb").read_bytes()
    sent = json.loads((FIXTURES / f"{name}.json").read_text())
    assert body.startswith(b"k8s\x00")
    assert decode_object(body) == as_upstream_renders(sent)


@pytest.mark.parametrize("name", NAMES)
def test_fixture_envelope_names_the_kind(name: str) -> None:
    sent = json.loads((FIXTURES / f"{name}.json").read_text())
    api_version, kind, raw = decode_envelope((FIXTURES / f"{name}.pb").read_bytes())
    assert (api_version, kind) == (sent["apiVersion"], sent["kind"])
    assert raw


def test_key_order_follows_the_go_structs() -> None:
    decoded = decode_object((FIXTURES / "deployment.pb").read_bytes())
    assert list(decoded) == ["kind", "apiVersion", "metadata", "spec", "status"]
    assert list(decoded["spec"]) == ["replicas", "selector", "template", "strategy"]
    assert list(decoded["spec"]["template"]["spec"]["containers"][0]) == [
        "name",
        "image",
        "ports",
        "resources",
    ]


def _binary(version: str) -> Path:
    path = KUBECTL_DIR / f"kubectl.{version}"
    assert path.exists(), f"{path} must ship beside kubectl (the image has 1.27-1.33)"
    return path


@pytest.fixture(scope="module")
def inputs() -> Iterator[dict[str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        yield write_inputs(Path(tmp))


@pytest.fixture(scope="module")
def json_bodies(inputs: dict[str, str]) -> dict[str, Request]:
    """kubectl 1.31's writes, captured once per name."""

    class Bodies(dict[str, Request]):
        def __missing__(self, name: str) -> Request:
            self[name] = capture(name, str(_binary("1.31")), inputs)
            return self[name]

    return Bodies()


LIVE = ["configmap", "secret", "namespace", "deployment", "job", "can_i", "token_bound", "ingress", "service"]


@pytest.mark.parametrize("version", ["1.32", "1.33"])
@pytest.mark.parametrize("name", LIVE)
def test_live_kubectl_protobuf_matches_kubectl_json(
    name: str, version: str, inputs: dict[str, str], json_bodies: dict[str, Request]
) -> None:
    proto = capture(name, str(_binary(version)), inputs)
    plain = json_bodies[name]
    assert proto.content_type == "application/vnd.kubernetes.protobuf"
    assert plain.content_type == "application/json"
    assert decode_object(proto.body) == as_upstream_renders(json.loads(plain.body))
