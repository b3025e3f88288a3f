"""Image references (registries, ports, tags, digests) and the known images they name."""

from __future__ import annotations

import pytest

from nodeagent.images.catalog import DEFAULT_PATH, PYTHON_PATH, container_argv, lookup
from nodeagent.images.reference import ImageReference

DIGEST = "sha256:" + "0123456789abcdef" * 4


@pytest.mark.parametrize(
    ("image", "registry", "repository", "tag", "digest"),
    [
        ("busybox", "docker.io", "library/busybox", "latest", ""),
        ("busybox:1.36", "docker.io", "library/busybox", "1.36", ""),
        ("docker.io/library/busybox", "docker.io", "library/busybox", "latest", ""),
        ("curlimages/curl:8.5.0", "docker.io", "curlimages/curl", "8.5.0", ""),
        (
            "registry.k8s.io/e2e-test-images/busybox:1.29-4",
            "registry.k8s.io",
            "e2e-test-images/busybox",
            "1.29-4",
            "",
        ),
        ("localhost/busybox", "localhost", "busybox", "latest", ""),
        ("localhost:5000/busybox", "localhost:5000", "busybox", "latest", ""),
        ("registry.example:5000/team/python:3.12", "registry.example:5000", "team/python", "3.12", ""),
        (f"busybox@{DIGEST}", "docker.io", "library/busybox", "", DIGEST),
        (f"python:3.12@{DIGEST}", "docker.io", "library/python", "3.12", DIGEST),
        (f"quay.io/curl/curl:latest@{DIGEST}", "quay.io", "curl/curl", "latest", DIGEST),
    ],
)
def test_references_parse_as_container_runtimes_normalise_them(
    image: str, registry: str, repository: str, tag: str, digest: str
) -> None:
    assert ImageReference.parse(image) == ImageReference(registry, repository, tag, digest)


@pytest.mark.parametrize(
    ("image", "known"),
    [
        ("busybox", "busybox"),
        ("busybox:1.36", "busybox"),
        ("docker.io/library/busybox", "busybox"),
        ("registry.k8s.io/e2e-test-images/busybox", "busybox"),
        (f"busybox@{DIGEST}", "busybox"),
        ("alpine:3.20", "alpine"),
        ("python:3.12", "python"),
        ("python:3-slim", "python"),
        ("curlimages/curl", "curl"),
        ("quay.io/curl/curl:8.11.1", "curl"),
        ("nginx:1.27", "nginx"),
        ("localhost:5000/nginx", "nginx"),
        ("redis", None),
        ("busybox-extras", None),
        ("localhost:5000", None),  # no slash: the repository "localhost", tag 5000
        ("", None),
    ],
)
def test_an_image_is_known_by_its_repositorys_last_component(image: str, known: str | None) -> None:
    found = lookup(image)
    assert (found.name if found else None) == known


@pytest.mark.parametrize(
    ("image", "entrypoint", "cmd", "path"),
    [
        ("busybox", (), ("sh",), DEFAULT_PATH),
        ("alpine", (), ("/bin/sh",), DEFAULT_PATH),
        ("python:3.12", (), ("python3",), PYTHON_PATH),
        ("curlimages/curl", ("/entrypoint.sh",), ("curl",), DEFAULT_PATH),
    ],
)
def test_the_known_images_have_their_real_images_config(
    image: str, entrypoint: tuple[str, ...], cmd: tuple[str, ...], path: str
) -> None:
    found = lookup(image)
    assert found is not None
    assert (found.entrypoint, found.cmd, dict(found.env)["PATH"]) == (entrypoint, cmd, path)


@pytest.mark.parametrize(
    ("command", "args", "argv"),
    [
        ([], [], ["/e", "c"]),  # neither: ENTRYPOINT + CMD
        ([], ["a"], ["/e", "a"]),  # args: ENTRYPOINT + args
        (["x"], [], ["x"]),  # command: the CMD is dropped
        (["x"], ["a"], ["x", "a"]),
    ],
)
def test_command_overrides_the_entrypoint_and_args_the_cmd(
    command: list[str], args: list[str], argv: list[str]
) -> None:
    assert container_argv(["/e"], ["c"], command, args) == argv
    assert container_argv([], [], [], []) == []
