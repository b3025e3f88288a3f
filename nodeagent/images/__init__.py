"""Built-in demo images: containers without a command run one of these Python programs.

Without an image store, a container's command is all the process runtime can run. A few
images have a meaningful default, implemented here as small Python programs run as real
processes (``python -I <this package>/<name>.py``: standard library only, so they run with the
container's env as is and inside its mount namespace):

- ``nginx`` (the image ``nginx`` or ``<anything>/nginx``, any tag or digest): a static web
  server on ``$POD_IP`` (default ``0.0.0.0``), port ``$NGINX_PORT`` (default 80; the agent
  sets it to the container's first ``containerPort``), serving ``$NGINX_ROOT`` (default
  ``/usr/share/nginx/html`` when it exists, else a built-in welcome page).

- ``busybox`` and ``alpine`` (any registry, tag or digest): their default command is a shell
  (``sh``), so here the machine's: ``busybox sh`` when ``busybox`` is on the agent's PATH
  (its applets, ``ps`` and friends, are then at hand), else ``sh`` (``/bin/sh``). That is what
  ``kubectl debug -it pod --image=busybox`` attaches to; the shell sees the host's programs
  (images run without their files).

``default_command(image)`` returns the argv or None (no built-in: the caller reports a waiting
reason, since images' entrypoints are not available).
"""

from __future__ import annotations

import os
import shutil
import sys

BUILT_IN_IMAGES = {"nginx": "nginx.py", "busybox": "", "alpine": ""}  # "": a shell image
SHELL_IMAGES = ("busybox", "alpine")


def image_name(image: str) -> str:
    """The last path component of ``image`` without tag or digest (``docker.io/library/nginx:1.27``
    gives ``nginx``)."""
    name = image.split("@", 1)[0].rsplit("/", 1)[-1]
    return name.split(":", 1)[0]


def args_replace_default(image: str) -> bool:
    """Whether ``args`` replace the image's default command: a shell image's ``sh`` is its
    ``CMD`` (busybox and alpine have no ``ENTRYPOINT``), so ``args`` alone are the argv, as
    the container runtimes run them; a built-in program is an entrypoint that takes ``args``."""
    return image_name(image) in SHELL_IMAGES


def default_command(image: str) -> list[str] | None:
    """The argv of the built-in image ``image``, or None when there is none."""
    name = image_name(image)
    if name in SHELL_IMAGES:
        return ["busybox", "sh"] if shutil.which("busybox") else ["sh"]
    program = BUILT_IN_IMAGES.get(name)
    return [sys.executable, "-I", os.path.join(os.path.dirname(__file__), program)] if program else None
