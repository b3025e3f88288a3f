"""``GET /containerLogs/{namespace}/{pod}/{container}`` (upstream kubelet ``server.go``
``getContainerLogs`` and ``kubelet_pods.go`` ``validateContainerLogStatus``).

The server knows pods only through a ``PodLookup``: a callable ``(namespace, name) ->
PodLogTarget | None`` that the pod side of the agent provides (None: the pod is not on this
node). A ``PodLogTarget`` carries the pod's uid, its sandbox log directory
(``<root>/logs/<namespace>_<pod>_<uid>``, see ``pod_log_directory``) and its v1 container statuses
(init containers included), as last computed by the status manager; it is asked again while a
log is followed, and the follow ends once the container no longer runs.

Which file: a container's attempts are ``<log dir>/<container>/<attempt>.log``. The container that
exists now (running, or terminated with a ``containerID``) is attempt ``restartCount``;
``previous`` (which needs ``lastState.terminated``) is the newest attempt before it. With no
current container (waiting, e.g. ``CrashLoopBackOff``) both read the newest attempt on disk, the
one that terminated last, as upstream reads ``lastState.terminated.containerID``.

Errors, as upstream: 404 ``pod "p" does not exist`` / ``container "c" not found in pod "p"``;
400 for a container without logs (``previous terminated container "c" in pod "p" not found``,
``container "c" in pod "p" is waiting to start: ContainerCreating``) and for bad options. Bodies
are plain text, which the apiserver turns into the Status message.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from minikube_py.api.unstructured import Object
from nodeagent.logs import follow_log, read_log

_ATTEMPT = re.compile(r"^(\d+)\.log$")


@dataclass(frozen=True)
class PodLogTarget:
    uid: str
    log_directory: str
    container_statuses: Sequence[Object]  # v1 ContainerStatus objects, init containers included


PodLookup = Callable[[str, str], PodLogTarget | None]


class LogRequestError(Exception):
    """An answer other than the log: ``code`` and the plain-text message."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class LogOptions:
    follow: bool = False
    previous: bool = False
    timestamps: bool = False
    tail_lines: int | None = None
    limit_bytes: int | None = None
    since: datetime | None = None


def pod_log_directory(root: Path, namespace: str, name: str, uid: str) -> str:
    """``<root>/logs/<namespace>_<name>_<uid>``, the sandbox's log directory."""
    return str(root / "logs" / f"{namespace}_{name}_{uid}")


def parse_log_options(query: dict[str, str], now: float) -> LogOptions:
    """The kubelet's ``PodLogOptions`` from the query; raises ``LogRequestError`` (400)."""
    since: datetime | None = None
    if query.get("sinceSeconds"):
        since = datetime.fromtimestamp(now - _number(query, "sinceSeconds", 1), UTC)
    elif query.get("sinceTime"):
        try:
            since = datetime.fromisoformat(query["sinceTime"].replace("Z", "+00:00"))
        except ValueError:
            raise LogRequestError(400, f"invalid sinceTime {query['sinceTime']!r}") from None
    tail, limit = query.get("tailLines"), query.get("limitBytes")
    return LogOptions(
        follow=_flag(query, "follow"),
        previous=_flag(query, "previous"),
        timestamps=_flag(query, "timestamps"),
        tail_lines=_number(query, "tailLines", 0) if tail else None,
        limit_bytes=_number(query, "limitBytes", 1) if limit else None,
        since=since,
    )


def container_log_path(target: PodLogTarget, pod: str, container: str, previous: bool) -> str:
    """The log file to read (see the module docstring); raises ``LogRequestError``."""
    status = next((s for s in target.container_statuses if s.get("name") == container), None)
    which = f'container "{container}" in pod "{pod}"'
    if status is None:
        raise LogRequestError(404, f'container "{container}" not found in pod "{pod}"')
    state, last = status.get("state") or {}, (status.get("lastState") or {}).get("terminated")
    current = "running" in state or bool((state.get("terminated") or {}).get("containerID"))
    attempts = _attempts(os.path.join(target.log_directory, container))
    restarts = int(status.get("restartCount") or 0)
    if previous:
        before = [a for a in attempts if a < restarts] if current else attempts
        if not last or not before:
            raise LogRequestError(400, f"previous terminated {which} not found")
        attempt = max(before)
    elif current:
        attempt = restarts
    elif last or "terminated" in state:
        if not attempts:
            raise LogRequestError(400, f"{which} is terminated")
        attempt = max(attempts)
    elif "waiting" in state:
        reason = (state.get("waiting") or {}).get("reason", "")
        raise LogRequestError(400, f"{which} is waiting to start: {reason}")
    else:
        raise LogRequestError(400, f"{which} is waiting to start - no logs yet")
    return os.path.join(target.log_directory, container, f"{attempt}.log")


def is_running(target: PodLogTarget | None, container: str) -> bool:
    if target is None:
        return False
    status = next((s for s in target.container_statuses if s.get("name") == container), None)
    return status is not None and "running" in (status.get("state") or {})


async def stream_container_log(
    path: str,
    options: LogOptions,
    still_running: Callable[[], bool],
    poll_interval: float = 0.1,
) -> AsyncIterator[bytes]:
    """The log as chunks: all at once, or (``follow``) then new lines until the container stops;
    at most ``limit_bytes`` in total."""
    if not options.follow:
        yield read_log(path, options.tail_lines, options.since, options.timestamps, options.limit_bytes)
        return
    left = options.limit_bytes
    chunks = follow_log(
        path,
        options.tail_lines,
        options.since,
        options.timestamps,
        until=lambda: not still_running(),
        poll_interval=poll_interval,
    )
    try:
        async for chunk in chunks:
            if left is not None:
                chunk, left = chunk[:left], left - len(chunk)
            if chunk:
                yield chunk
            if left is not None and left <= 0:
                return
    finally:
        await chunks.aclose()  # type: ignore[attr-defined]


def _attempts(directory: str) -> list[int]:
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return [int(m.group(1)) for m in map(_ATTEMPT.match, names) if m]


def _flag(query: dict[str, str], key: str) -> bool:
    return query.get(key, "").lower() in ("true", "1")


def _number(query: dict[str, str], key: str, minimum: int) -> int:
    try:
        value = int(query[key])
    except ValueError:
        raise LogRequestError(400, f"invalid {key} {query[key]!r}: not an integer") from None
    if value < minimum:
        raise LogRequestError(400, f"{key}: Invalid value: {value}: must be at least {minimum}")
    return value
