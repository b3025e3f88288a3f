"""``Status``: what every plugin returns, and what happens next for each code (upstream's
``framework.Status``). ``None`` is never used for success: ``Status()`` is Success."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum


class Code(IntEnum):
    SUCCESS = 0
    """The plugin ran and the pod may go on."""
    ERROR = 1
    """Something went wrong inside the scheduler; the pod is retried with backoff."""
    UNSCHEDULABLE = 2
    """The pod does not fit the node now; preemption (PostFilter) may change that."""
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    """The pod does not fit and preempting pods on that node would not help."""
    WAIT = 4
    """Permit only: the pod waits (up to a timeout) before binding."""
    SKIP = 5
    """PreFilter/PreScore: this plugin's Filter/Score need not run for this pod."""
    PENDING = 6
    """PreEnqueue or later: the pod waits for something outside the scheduler."""


@dataclass(frozen=True, slots=True)
class Status:
    """``reasons`` are the user-facing texts (``Insufficient cpu``); ``plugin`` is the plugin
    that failed the pod; ``error`` the exception behind an ERROR."""

    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = ()
    plugin: str = ""
    error: BaseException | None = field(default=None, compare=False)

    @classmethod
    def unschedulable(cls, *reasons: str, plugin: str = "") -> Status:
        return cls(Code.UNSCHEDULABLE, reasons, plugin)

    @classmethod
    def unresolvable(cls, *reasons: str, plugin: str = "") -> Status:
        return cls(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons, plugin)

    @classmethod
    def as_error(cls, error: BaseException, plugin: str = "") -> Status:
        return cls(Code.ERROR, (str(error),), plugin, error)

    @classmethod
    def skip(cls) -> Status:
        return cls(Code.SKIP)

    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    def is_skip(self) -> bool:
        return self.code == Code.SKIP

    def is_rejected(self) -> bool:
        """Unschedulable, resolvable or not (and Pending): the pod does not fit."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    def message(self) -> str:
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        return self if self.plugin else Status(self.code, self.reasons, plugin, self.error)


SUCCESS = Status()


def named(status: Status, plugin: str) -> Status:
    """``status`` as the framework reports it: naming ``plugin`` as the one that failed."""
    return status if status.plugin == plugin else Status(status.code, status.reasons, plugin, status.error)


def plugin_error(message: str, plugin: str, cause: Status | None) -> Status:
    """An Error of ``plugin`` saying ``message``, keeping the exception behind ``cause``."""
    error = cause.error if cause is not None and cause.error is not None else RuntimeError(message)
    return Status(Code.ERROR, (message,), plugin, error)


def filter_failure(plugin: str, status: Status) -> Status:
    """A Filter plugin's non-success as the framework reports it: a rejection names the
    plugin; anything else becomes an Error."""
    if status.is_rejected():
        return named(status, plugin)
    return plugin_error(f'running "{plugin}" filter plugin: {status.message()}', plugin, status)
