"""``CycleState``: a bag of values plugins share during one scheduling cycle of one pod
(PreFilter computes, Filter reads). Keys are plugin-chosen strings, conventionally
``"PreFilter" + plugin name``. Preemption clones it to try removing pods."""

from __future__ import annotations

import copy
from typing import Any


class CycleState:
    def __init__(self) -> None:
        self._values: dict[str, Any] = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()

    def write(self, key: str, value: Any) -> None:
        self._values[key] = value

    def read(self, key: str) -> Any:
        """The value under ``key``; KeyError when no plugin wrote it this cycle."""
        return self._values[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._values.get(key, default)

    def clone(self) -> CycleState:
        """A copy whose values are copied with their own ``clone()`` when they have one."""
        other = CycleState()
        other._values = {
            k: (v.clone() if hasattr(v, "clone") else copy.copy(v)) for k, v in self._values.items()
        }
        other.skip_filter_plugins = set(self.skip_filter_plugins)
        other.skip_score_plugins = set(self.skip_score_plugins)
        return other
