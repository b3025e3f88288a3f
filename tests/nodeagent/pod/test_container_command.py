"""Which argv a container runs (``resolve_command``): Kubernetes' command/args rule on the
known images' real ENTRYPOINT and CMD, and on unknown images taken to have neither."""

from __future__ import annotations

from typing import Any

import pytest

from nodeagent.images.catalog import NGINX_PROGRAM
from nodeagent.pod.containerconfig import resolve_command
from nodeagent.pod.sync import ConfigError

NGINX = list(NGINX_PROGRAM)


@pytest.mark.parametrize(
    ("image", "fields", "argv"),
    [
        # busybox and alpine: no ENTRYPOINT, CMD ["sh"] / ["/bin/sh"]
        ("busybox", {}, ["sh"]),
        ("busybox:1.36", {"args": ["sleep", "3600"]}, ["sleep", "3600"]),
        (
            "docker.io/library/busybox",
            {"args": ["sh", "-c", "echo hi; sleep 5"]},
            ["sh", "-c", "echo hi; sleep 5"],
        ),
        (
            "registry.k8s.io/e2e-test-images/busybox:1.29-4",
            {"command": ["sleep"], "args": ["5"]},
            ["sleep", "5"],
        ),
        ("busybox@sha256:" + "a" * 64, {"command": ["wget", "-qO-", "web"]}, ["wget", "-qO-", "web"]),
        ("alpine", {}, ["/bin/sh"]),
        ("alpine:3.20", {"args": ["nslookup", "web"]}, ["nslookup", "web"]),
        # python: CMD ["python3"]
        ("python:3.12", {}, ["python3"]),
        ("python:3-slim", {"args": ["python", "-c", "print(1+1)"]}, ["python", "-c", "print(1+1)"]),
        ("python", {"command": ["python3"], "args": ["-m", "http.server"]}, ["python3", "-m", "http.server"]),
        # curlimages/curl: ENTRYPOINT ["/entrypoint.sh"], CMD ["curl"]
        ("curlimages/curl", {}, ["/entrypoint.sh", "curl"]),
        ("curlimages/curl:8.5.0", {"args": ["-s", "http://web"]}, ["/entrypoint.sh", "-s", "http://web"]),
        ("quay.io/curl/curl", {"command": ["curl"], "args": ["-s", "web"]}, ["curl", "-s", "web"]),
        # a command without args drops the CMD; with args it is command + args
        ("curlimages/curl", {"command": ["sh"]}, ["sh"]),
        # nginx: the built-in program is its ENTRYPOINT, args follow it
        ("nginx", {}, NGINX),
        ("nginx:1.27", {"args": ["-x"]}, [*NGINX, "-x"]),
        # unknown images: no ENTRYPOINT, no CMD
        ("redis", {"args": ["redis-server"]}, ["redis-server"]),
        ("registry.example:5000/team/tool:1", {"command": ["tool"], "args": ["run"]}, ["tool", "run"]),
    ],
)
def test_command_and_args_on_the_images_entrypoint_and_cmd(
    image: str, fields: dict[str, Any], argv: list[str]
) -> None:
    assert resolve_command({"name": "c", "image": image, **fields}) == argv


def test_empty_args_are_no_args() -> None:
    """``args: []`` is unset (the CMD runs), as containerd reads a CRI config."""
    assert resolve_command({"name": "c", "image": "busybox", "args": []}) == ["sh"]


def test_a_simulated_node_keeps_its_fallback() -> None:
    container = {"name": "c", "image": "anything", "args": ["a"]}
    assert resolve_command(container, fallback=["anything"]) == ["anything", "a"]
    assert resolve_command({"name": "c", "image": "anything"}, fallback=["anything"]) == ["anything"]


@pytest.mark.parametrize("image", ["redis", "", "registry.example/tools:1"])
def test_an_unknown_image_without_command_or_args_cannot_be_created(image: str) -> None:
    with pytest.raises(ConfigError) as refused:
        resolve_command({"name": "c", "image": image})
    assert refused.value.reason == "CreateContainerError"
    assert f'image "{image}" has no entrypoint known to minikube-py' in str(refused.value)
    assert "known images: alpine, busybox, curl, nginx, python" in str(refused.value)
