"""Health endpoints (``/livez``, ``/readyz``, ``/healthz``), shaped like upstream's
``k8s.io/apiserver/pkg/server/healthz``.

* ``GET /<endpoint>`` runs every check in order. All pass: 200 ``ok`` (with ``?verbose``, one
  ``[+]<name> ok`` line per check and ``<endpoint> check passed``). Any fails: 500 with every
  check's line, failures as ``[-]<name> failed: reason withheld`` (the endpoint is public, so
  the reason only goes to the log), then ``<endpoint> check failed``.
* ``?exclude=<name>`` (repeatable) skips a check: ``[+]<name> excluded: ok``.
* ``GET /<endpoint>/<name>`` runs one check: ``ok``, or 500 ``internal server error: <reason>``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from apiserver.storage.kv import KV

logger = logging.getLogger("apiserver")

# Upstream's --etcd-healthcheck-timeout and --etcd-readycheck-timeout defaults.
STORE_CHECK_TIMEOUT = 2.0

Handler = Callable[[Request], Awaitable[Response]]


class HealthCheck(Protocol):
    """A named check; ``check`` returns when healthy and raises (any Exception) when not."""

    @property
    def name(self) -> str: ...

    async def check(self) -> None: ...


@dataclass(frozen=True, slots=True)
class PingCheck:
    """Always healthy: the server answers requests."""

    name: str = "ping"

    async def check(self) -> None:
        return None


@dataclass(frozen=True, slots=True)
class StoreCheck:
    """The store answers ``current_revision()`` within ``timeout`` (upstream's ``etcd`` check)."""

    kv: KV
    timeout: float = STORE_CHECK_TIMEOUT
    name: str = "etcd"

    async def check(self) -> None:
        async with asyncio.timeout(self.timeout):
            await self.kv.current_revision()


def install_health_checks(app: FastAPI, endpoint: str, checks: Sequence[HealthCheck]) -> None:
    """Serve ``/<endpoint>`` and ``/<endpoint>/<check name>`` for each check."""
    app.router.add_route(f"/{endpoint}", _all_checks(endpoint, checks), ["GET"], include_in_schema=False)
    for check in checks:
        app.router.add_route(f"/{endpoint}/{check.name}", _one_check(check), ["GET"], include_in_schema=False)


def _all_checks(endpoint: str, checks: Sequence[HealthCheck]) -> Handler:
    async def handle(request: Request) -> Response:
        excluded = set(request.query_params.getlist("exclude"))
        lines, failed = [], []
        for check in checks:
            if check.name in excluded:
                lines.append(f"[+]{check.name} excluded: ok")
            elif reason := await _run(check):
                lines.append(f"[-]{check.name} failed: reason withheld")
                failed.append(f"{check.name}: {reason}")
            else:
                lines.append(f"[+]{check.name} ok")
        unknown = sorted(excluded - {c.name for c in checks})
        if unknown:
            quoted = ",".join(f'"{name}"' for name in unknown)
            lines.append(f"warn: some health checks cannot be excluded: no matches for {quoted}")
        if failed:
            logger.warning("%s check failed: %s", endpoint, "; ".join(failed))
            return _text("\n".join(lines) + f"\n{endpoint} check failed\n", 500)
        if "verbose" not in request.query_params:
            return _text("ok")
        return _text("\n".join(lines) + f"\n{endpoint} check passed\n")

    return handle


def _one_check(check: HealthCheck) -> Handler:
    async def handle(request: Request) -> Response:
        reason = await _run(check)
        return _text(f"internal server error: {reason}\n", 500) if reason else _text("ok")

    return handle


async def _run(check: HealthCheck) -> str | None:
    """None when healthy, else the failure reason."""
    try:
        await check.check()
    except TimeoutError:
        return "timed out"
    except Exception as err:
        return str(err) or type(err).__name__
    return None


def _text(body: str, status_code: int = 200) -> Response:
    return PlainTextResponse(body, status_code, headers={"X-Content-Type-Options": "nosniff"})
