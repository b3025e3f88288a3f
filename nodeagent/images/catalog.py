"""The images the process runtime knows: each one's config (ENTRYPOINT, CMD, ENV, WORKDIR, as
the real image's) and the host programs that stand in for its files (``toolbox``).

An image is known by its repository's last component, whatever the registry, tag or digest
(``busybox``, ``busybox:1.36``, ``registry.k8s.io/e2e-test-images/busybox@sha256:...``).
``container_argv`` is Kubernetes' rule for the argv of a container (``command`` overrides
ENTRYPOINT, ``args`` overrides CMD; ``args`` without ``command`` runs ENTRYPOINT with them).
The table in ``nodeagent/README.md`` ("Images") says the same for users: keep them in step.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from nodeagent.images.reference import ImageReference

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# python's official image puts /usr/local/bin (its interpreter) first over the default
PYTHON_PATH = "/usr/local/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
NGINX_PROGRAM = (sys.executable, "-I", os.path.join(os.path.dirname(os.path.abspath(__file__)), "nginx.py"))


@dataclass(frozen=True)
class ImageConfig:
    """One known image. ``toolbox``: which host programs it gets (``toolbox.TOOLBOXES``)."""

    name: str
    entrypoint: tuple[str, ...]
    cmd: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = (("PATH", DEFAULT_PATH),)
    working_dir: str = ""
    toolbox: str = ""
    runs: str = ""  # what runs on the host, for people (errors, the README)


IMAGES = {
    image.name: image
    for image in (
        ImageConfig(
            "busybox", (), ("sh",), toolbox="busybox",
            runs="the node's busybox: its applets (sh, wget, nslookup, sleep, ...) first in PATH",
        ),
        ImageConfig(
            "alpine", (), ("/bin/sh",), toolbox="busybox",
            runs="the node's busybox, as alpine's userland is (apk is not there)",
        ),
        ImageConfig(
            "python", (), ("python3",), env=(("PATH", PYTHON_PATH), ("LANG", "C.UTF-8")), toolbox="python",
            runs="the node agent's own Python (python, python3, pip) and the node's other programs",
        ),
        ImageConfig(
            "curl", ("/entrypoint.sh",), ("curl",), working_dir="/home/curl_user", toolbox="curl",
            runs="the node's curl, through the image's entrypoint (arguments that are no command go to curl)",
        ),
        ImageConfig(
            "nginx", NGINX_PROGRAM, (),
            runs="a built-in static web server (nodeagent/images/nginx.py) on $POD_IP:$NGINX_PORT",
        ),
    )
}  # fmt: skip


def lookup(image: str) -> ImageConfig | None:
    """The known image ``image`` refers to, or None."""
    return IMAGES.get(ImageReference.parse(image).name)


def container_argv(
    entrypoint: Sequence[str], cmd: Sequence[str], command: Sequence[str], args: Sequence[str]
) -> list[str]:
    """The argv of a container (upstream's rule, see the module doc); [] when there is none."""
    if command:
        return [*command, *args]
    return [*entrypoint, *(args or cmd)]
