"""The image applied to a container config (``with_image``): ENV under the container's,
WORKDIR, read-only binds of the host programs, and the no-mount-namespace fallback (a fake
toolbox: no process is started)."""

from __future__ import annotations

import pytest

from nodeagent.images import toolbox
from nodeagent.images.catalog import DEFAULT_PATH, ImageConfig
from nodeagent.runtime.imagelayer import merge_env, with_image
from nodeagent.runtime.interface import ContainerConfig, CreateContainerError, Mount

BINDS = (
    ("/state/images/curl-1/bin", "/usr/local/sbin"),
    ("/state/images/curl-1/files/entrypoint.sh", "/entrypoint.sh"),
)


@pytest.fixture(autouse=True)
def fake_toolbox(monkeypatch: pytest.MonkeyPatch) -> None:
    def host_image(image: ImageConfig, root: str) -> toolbox.HostImage:
        if image.name == "curl":
            return toolbox.HostImage(image.env, image.working_dir, BINDS, BINDS[0][0])
        return toolbox.HostImage(image.env, image.working_dir)

    monkeypatch.setattr(toolbox, "host_image", host_image)


def config(image: str, **fields: object) -> ContainerConfig:
    return ContainerConfig(
        **{"name": "c", "image": image, "command": ["/entrypoint.sh", "-s", "web"], **fields}
    )  # type: ignore[arg-type]


def test_the_images_binds_come_read_only_before_the_volumes() -> None:
    volume = Mount("/pods/u/volumes/x", "/usr/local/sbin")
    applied, warning = with_image(config("curlimages/curl", mounts=[volume]), "/state/images", True)
    assert list(applied.mounts) == [Mount(s, t, read_only=True) for s, t in BINDS] + [volume]
    assert applied.command == ["/entrypoint.sh", "-s", "web"] and warning == ""
    assert (applied.working_dir, list(applied.env)) == ("/home/curl_user", [("PATH", DEFAULT_PATH)])


def test_the_containers_env_and_working_dir_win() -> None:
    env = [("A", "1"), ("PATH", "/opt/bin"), ("B", "2")]
    applied, _ = with_image(config("curlimages/curl", env=env, working_dir="/work"), "/state/images", True)
    assert list(applied.env) == [("PATH", "/opt/bin"), ("A", "1"), ("B", "2")]
    assert applied.working_dir == "/work"


def test_without_a_mount_namespace_the_toolbox_comes_first_in_path() -> None:
    applied, _ = with_image(config("curlimages/curl"), "/state/images", False)
    assert applied.mounts == []
    assert dict(applied.env)["PATH"] == f"/state/images/curl-1/bin:{DEFAULT_PATH}"
    assert applied.command == ["/state/images/curl-1/files/entrypoint.sh", "-s", "web"]
    assert applied.working_dir == ""  # /home/curl_user is not made on the node


def test_an_unknown_image_gets_containerds_default_path() -> None:
    applied, _ = with_image(config("redis", env=[("X", "y")]), "/state/images", True)
    assert list(applied.env) == [("PATH", DEFAULT_PATH), ("X", "y")] and applied.mounts == ()


def test_what_the_node_lacks_is_a_create_container_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        toolbox, "host_image", lambda image, root: toolbox.HostImage(image.env, "", missing="no curl here")
    )
    with pytest.raises(CreateContainerError, match="no curl here"):
        with_image(config("curlimages/curl"), "/state/images", True)


def test_merge_env_replaces_in_place_and_keeps_the_last_duplicate() -> None:
    merged = merge_env([("PATH", "/a"), ("LANG", "C")], [("X", "1"), ("LANG", "de"), ("LANG", "fr")])
    assert merged == [("PATH", "/a"), ("LANG", "fr"), ("X", "1")]
