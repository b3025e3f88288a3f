"""``GET /version``: upstream's ``version.Info``.

kubectl warns when the server's minor version is more than one away from its own, so the
reported version sits in the middle of the kubectl releases we support (1.27 to 1.33); see
``KUBERNETES_MINOR``.
"""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Awaitable, Callable
from importlib import metadata

from starlette.requests import Request
from starlette.responses import Response

KUBERNETES_MAJOR = 1
# Silences kubectl's skew warning for 1.31, 1.32 and 1.33 (any one minor covers three).
KUBERNETES_MINOR = 32
# kubectl parses gitVersion as semver; upstream's unset buildDate is the epoch.
GIT_VERSION = f"v{KUBERNETES_MAJOR}.{KUBERNETES_MINOR}.0"
BUILD_DATE = "1970-01-01T00:00:00Z"

_GOARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}


def version_info() -> dict[str, str]:
    """The ``version.Info`` JSON object; ``gitCommit`` names this implementation instead."""
    machine = platform.machine().lower()
    return {
        "major": str(KUBERNETES_MAJOR),
        "minor": str(KUBERNETES_MINOR),
        "gitVersion": GIT_VERSION,
        "gitCommit": f"minikube-py-{_package_version()}",
        "gitTreeState": "clean",
        "buildDate": BUILD_DATE,
        "goVersion": f"python{platform.python_version()}",
        "compiler": sys.implementation.name,
        "platform": f"{sys.platform}/{_GOARCH.get(machine, machine)}",
    }


def version_handler() -> Callable[[Request], Awaitable[Response]]:
    """The ``/version`` endpoint; the body is built once (indented, like upstream's)."""
    body = json.dumps(version_info(), indent=2).encode()

    async def handle(request: Request) -> Response:
        return Response(body, media_type="application/json")

    return handle


def _package_version() -> str:
    try:
        return metadata.version("minikube-py")
    except metadata.PackageNotFoundError:
        return "unknown"
