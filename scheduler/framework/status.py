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
