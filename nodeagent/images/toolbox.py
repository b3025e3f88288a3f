"""What a known image's container gets of the host: its ENV and read-only binds (``HostImage``).

There are no image files, so an image's programs are the node's, gathered in a per-node
directory (under ``root``, the runtime's state) that the container sees at the first entry of
the image's PATH, read-only:

- ``busybox`` (busybox, alpine): a symlink to the node's busybox for each of its applets
  (Debian's package installs only the binary), and busybox at ``/bin/sh``, as in those images.
- ``python``: ``python``, ``python3``, ``pip``, ``pip3`` run the node agent's interpreter
  (``sys.executable``; so what is installed beside the agent, the ``kubernetes`` client
  among it, is importable).
- ``curl``: busybox's applets, the node's ``curl``, and the image's ``/entrypoint.sh`` (our
  own: arguments that start with ``-`` or name no command are curl's).

A directory's name carries a hash of its content, so it is built once (into a temporary
directory renamed into place) and never changes while containers use it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

from nodeagent.images.catalog import ImageConfig

BUSYBOX_LOCATIONS = ("/usr/bin/busybox", "/bin/busybox")  # Debian's, when not on the agent's PATH
ENTRYPOINT_SH = """#!/bin/sh
# curlimages/curl's entrypoint, as minikube-py runs it: arguments that start with "-" or do not
# name a command are curl's; anything else runs as given.
case "$1" in -*) set -- curl "$@" ;; esac
command -v "$1" >/dev/null 2>&1 || set -- curl "$@"
exec "$@"
"""


@dataclass(frozen=True)
class HostImage:
    """``env``: the image's ENV; ``binds``: (host path, container path) read-only binds, the
    toolbox directory first; ``bin_dir``: that directory on the host (put first in PATH where
    there is no mount namespace); ``missing``: why the image cannot run here ("" if it can);
    ``warning``: what the container lacks (busybox not installed) but runs anyway."""

    env: tuple[tuple[str, str], ...]
    working_dir: str
    binds: tuple[tuple[str, str], ...] = ()
    bin_dir: str = ""
    missing: str = ""
    warning: str = ""


def host_image(image: ImageConfig, root: str) -> HostImage:
    """The host side of ``image`` (its toolbox built under ``root`` when needed)."""
    if not image.toolbox:
        return HostImage(image.env, image.working_dir)
    toolbox = Contents()
    if image.toolbox in ("busybox", "curl"):
        toolbox.add_busybox(image.name)
    if image.toolbox == "curl":
        toolbox.add_curl(image.name)
    if image.toolbox == "python":
        python = shlex.quote(sys.executable)
        for name in ("python", "python3"):
            toolbox.entries[name] = ("script", f'#!/bin/sh\nexec {python} "$@"\n')
        for name in ("pip", "pip3"):
            toolbox.entries[name] = ("script", f'#!/bin/sh\nexec {python} -m pip "$@"\n')
    if toolbox.missing:
        return HostImage(image.env, image.working_dir, missing=toolbox.missing)
    path_dir = dict(image.env)["PATH"].split(":", 1)[0]
    if covered := sorted(t for t in toolbox.targets() if t.startswith(path_dir + "/")):
        # the node's own program lives where the image's would: binding over it would hide it
        why = f"{covered[0]} is in {path_dir}, image {image.name}'s first PATH directory"
        return HostImage(image.env, image.working_dir, warning=f"{why}: the image runs the node's {path_dir}")
    directory = build(root, image.toolbox, toolbox.entries, toolbox.files)
    bin_dir = os.path.join(directory, "bin")
    files = [(os.path.join(directory, "files", path.lstrip("/")), path) for path in sorted(toolbox.files)]
    binds = ((bin_dir, path_dir), *toolbox.binds, *files)
    return HostImage(image.env, image.working_dir, binds, bin_dir, warning=toolbox.warning)


@dataclass
class Contents:
    """A toolbox being gathered: ``entries`` of its ``bin/`` (name -> ("link", target) or
    ("script", text)), ``files`` (container path -> script text), other ``binds``."""

    entries: dict[str, tuple[str, str]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    binds: list[tuple[str, str]] = field(default_factory=list)
    missing: str = ""
    warning: str = ""

    def add_busybox(self, image: str) -> None:
        busybox = find_busybox()
        if not busybox:
            self.warning = (
                f"busybox is not installed on the node: image {image} runs the node's own programs "
                "(/bin/sh; no wget or nslookup unless installed); install Debian's busybox package"
            )
            return
        self.entries.update({applet: ("link", busybox) for applet in applets(busybox)})
        self.binds.append((busybox, "/bin/sh"))

    def add_curl(self, image: str) -> None:
        curl = shutil.which("curl")
        if curl is None:
            self.missing = f"image {image} runs the node's curl, which is not installed (Debian package curl)"
            return
        self.entries["curl"] = ("link", os.path.realpath(curl))
        self.files["/entrypoint.sh"] = ENTRYPOINT_SH

    def targets(self) -> set[str]:
        """The host programs the entries run (link targets; for scripts, the agent's interpreter)."""
        return {value if kind == "link" else sys.executable for kind, value in self.entries.values()}


def find_busybox() -> str:
    """The node's busybox (resolved), or ""."""
    found = shutil.which("busybox") or next((p for p in BUSYBOX_LOCATIONS if os.access(p, os.X_OK)), "")
    return os.path.realpath(found) if found else ""


@functools.lru_cache(maxsize=4)
def applets(busybox: str) -> tuple[str, ...]:
    """busybox's applets (``busybox --list``; () if it cannot say)."""
    try:
        listed = subprocess.run([busybox, "--list"], capture_output=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(name for name in listed.decode().split() if name and "/" not in name)


def build(root: str, kind: str, entries: dict[str, tuple[str, str]], files: dict[str, str]) -> str:
    """``<root>/<kind>-<hash of the content>``, with ``bin/`` (``entries``) and ``files/``."""
    digest = hashlib.sha256(repr((sorted(entries.items()), sorted(files.items()))).encode()).hexdigest()
    directory = os.path.join(root, f"{kind}-{digest[:16]}")
    if os.path.isdir(directory):
        return directory
    os.makedirs(root, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=f".{kind}-", dir=root)
    try:
        for sub in ("", "bin", "files"):  # searchable by every container user, whatever the umask
            if sub:
                os.mkdir(os.path.join(staging, sub))
            os.chmod(os.path.join(staging, sub), 0o755)
        for name, (kind_of, value) in entries.items():
            path = os.path.join(staging, "bin", name)
            if kind_of == "link":
                os.symlink(value, path)
            else:
                write_script(path, value)
        for container_path, text in files.items():
            write_script(os.path.join(staging, "files", container_path.lstrip("/")), text)
        try:
            os.rename(staging, directory)
        except OSError:  # built meanwhile by another agent sharing the directory: same content
            if not os.path.isdir(directory):
                raise
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(staging)
    return directory


def write_script(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)
