"""The host side of the known images (``host_image``): the toolbox directories and binds,
on fake busybox and curl locations (no process is started)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from nodeagent.images import toolbox
from nodeagent.images.catalog import DEFAULT_PATH, ImageConfig, lookup


def known(image: str) -> ImageConfig:
    found = lookup(image)
    assert found is not None
    return found


@pytest.fixture
def node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A node with busybox (applets sh, wget, nslookup) and curl at fake locations."""
    bin_dir = tmp_path / "host-bin"
    bin_dir.mkdir()
    for name in ("busybox", "curl"):
        (bin_dir / name).write_text("#!/bin/sh\n")
        (bin_dir / name).chmod(0o755)
    monkeypatch.setattr(toolbox, "find_busybox", lambda: str(bin_dir / "busybox"))
    monkeypatch.setattr(toolbox, "applets", lambda busybox: ("sh", "wget", "nslookup", "["))
    monkeypatch.setattr(toolbox.shutil, "which", lambda name: str(bin_dir / name) if name == "curl" else None)
    return bin_dir


def listing(directory: str) -> dict[str, str]:
    return {name: os.readlink(os.path.join(directory, name)) for name in sorted(os.listdir(directory))}


def test_busybox_gets_its_applets_first_in_path_and_at_bin_sh(node: Path, tmp_path: Path) -> None:
    host = toolbox.host_image(known("busybox:1.36"), str(tmp_path / "images"))
    busybox = str(node / "busybox")
    assert host.env == (("PATH", DEFAULT_PATH),) and not host.missing and not host.warning
    (bin_dir, first), *rest = host.binds
    assert first == "/usr/local/sbin" == DEFAULT_PATH.split(":")[0]
    assert listing(bin_dir) == {"[": busybox, "nslookup": busybox, "sh": busybox, "wget": busybox}
    assert rest == [(busybox, "/bin/sh")] and host.bin_dir == bin_dir


def test_alpine_shares_the_busybox_toolbox(node: Path, tmp_path: Path) -> None:
    root = str(tmp_path / "images")
    assert toolbox.host_image(known("alpine"), root).binds == toolbox.host_image(known("busybox"), root).binds
    assert len(os.listdir(root)) == 1  # built once, found by its content's hash


def test_python_runs_the_agents_interpreter(node: Path, tmp_path: Path) -> None:
    host = toolbox.host_image(known("python:3.12"), str(tmp_path / "images"))
    [(bin_dir, first)] = host.binds
    assert first == "/usr/local/bin"
    assert sorted(os.listdir(bin_dir)) == ["pip", "pip3", "python", "python3"]
    script = Path(bin_dir, "python3").read_text()
    assert script == f'#!/bin/sh\nexec {sys.executable} "$@"\n' and os.access(
        Path(bin_dir, "python3"), os.X_OK
    )
    assert Path(bin_dir, "pip").read_text().endswith('-m pip "$@"\n')
    assert ("LANG", "C.UTF-8") in host.env


def test_curl_gets_curl_busybox_and_its_entrypoint(node: Path, tmp_path: Path) -> None:
    host = toolbox.host_image(known("curlimages/curl"), str(tmp_path / "images"))
    (bin_dir, _), *rest = host.binds
    assert listing(bin_dir)["curl"] == str(node / "curl") and "wget" in listing(bin_dir)
    [entrypoint] = [source for source, target in rest if target == "/entrypoint.sh"]
    assert Path(entrypoint).read_text() == toolbox.ENTRYPOINT_SH and os.access(entrypoint, os.X_OK)
    assert host.working_dir == "/home/curl_user"


def test_curl_without_curl_on_the_node_cannot_run(
    node: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(toolbox.shutil, "which", lambda name: None)
    host = toolbox.host_image(known("curlimages/curl"), str(tmp_path / "images"))
    assert host.missing == "image curl runs the node's curl, which is not installed (Debian package curl)"
    assert host.binds == ()


def test_busybox_missing_runs_the_nodes_programs_with_a_warning(
    node: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(toolbox, "find_busybox", lambda: "")
    host = toolbox.host_image(known("busybox"), str(tmp_path / "images"))
    assert "busybox is not installed on the node" in host.warning and not host.missing
    [(bin_dir, target)] = host.binds
    assert target == "/usr/local/sbin" and os.listdir(bin_dir) == []


def test_a_program_inside_the_images_path_directory_is_not_covered(
    node: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent whose Python is /usr/local/bin/python3 (the python image as the node): binding
    the toolbox over /usr/local/bin would hide the interpreter its scripts run."""
    monkeypatch.setattr(toolbox.sys, "executable", "/usr/local/bin/python3")
    host = toolbox.host_image(known("python"), str(tmp_path / "images"))
    assert host.binds == () and "/usr/local/bin/python3 is in /usr/local/bin" in host.warning


def test_nginx_needs_no_toolbox(tmp_path: Path) -> None:
    host = toolbox.host_image(known("nginx"), str(tmp_path / "images"))
    assert (host.binds, host.missing, os.path.exists(tmp_path / "images")) == ((), "", False)


def test_the_toolbox_is_searchable_whatever_the_agents_umask(node: Path, tmp_path: Path) -> None:
    """Containers run as nobody by default: a umask of 077 must not lock them out."""
    old = os.umask(0o077)
    try:
        host = toolbox.host_image(known("curlimages/curl"), str(tmp_path / "images"))
    finally:
        os.umask(old)
    bin_dir, entrypoint = host.binds[0][0], host.binds[-1][0]
    paths = (bin_dir, os.path.dirname(bin_dir), entrypoint, os.path.dirname(entrypoint))
    modes = {oct(os.stat(p).st_mode & 0o777) for p in paths}
    assert modes == {"0o755"}
