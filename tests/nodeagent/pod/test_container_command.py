"""Which argv a container runs without image metadata (``resolve_command``)."""

from __future__ import annotations

import pytest

from nodeagent.images import default_command
from nodeagent.pod.containerconfig import resolve_command
from nodeagent.pod.sync import ConfigError


def test_command_and_args_run_as_given() -> None:
    container = {"name": "c", "image": "busybox", "command": ["sh", "-c"], "args": ["echo hi"]}
    assert resolve_command(container) == ["sh", "-c", "echo hi"]


def test_args_alone_run_as_the_command_of_an_image_without_an_entrypoint() -> None:
    """The official Python client's e2e pods: busybox with only ``args`` (regression: this was
    a CreateContainerError)."""
    args = ["/bin/sh", "-c", "while true; do date; sleep 5; done"]
    assert resolve_command({"name": "sleep", "image": "busybox", "args": args}) == args


def test_args_of_a_built_in_image_go_to_its_program() -> None:
    program = default_command("nginx")
    assert program is not None
    assert resolve_command({"name": "web", "image": "nginx", "args": ["-x"]}) == [*program, "-x"]


def test_a_simulated_node_keeps_its_fallback() -> None:
    container = {"name": "c", "image": "anything", "args": ["a"]}
    assert resolve_command(container, fallback=["anything"]) == ["anything", "a"]


def test_neither_command_nor_args_needs_a_built_in_image() -> None:
    with pytest.raises(ConfigError) as refused:
        resolve_command({"name": "c", "image": "redis"})
    assert refused.value.reason == "CreateContainerError"
    assert "has no entrypoint known to minikube-py" in str(refused.value)


@pytest.mark.parametrize("image", ["busybox", "docker.io/library/alpine:3.20"])
def test_a_shell_image_runs_its_shell_until_args_replace_it(image: str) -> None:
    """A shell image's ``sh`` is its CMD: alone it runs (``kubectl debug --image=busybox``), and
    ``args`` replace it rather than follow it (regression: ``sh /bin/sh -c ...`` once both
    behaviours met, and the official client's busybox pods exited at once)."""
    shell = default_command(image)
    assert shell is not None and shell[-1] == "sh"
    assert resolve_command({"name": "c", "image": image}) == shell
    assert resolve_command({"name": "c", "image": image, "args": ["sleep", "9"]}) == ["sleep", "9"]
