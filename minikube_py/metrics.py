"""Prometheus text-format metrics for the components (``/metrics``), without a dependency.

A ``Registry`` holds counter and gauge families; a family keeps one value per label set, and a
series once seen stays (at 0 when idle), as upstream's vectors do. Gauges may also be computed
at scrape time (``gauge_func``), which suits queue depths. One process-wide ``REGISTRY``
serves the components started in one process (``up``); their series are told apart by labels
(``name`` of the queue or controller).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
Labels = tuple[tuple[str, str], ...]


@dataclass
class Family:
    name: str
    kind: str  # "counter" or "gauge"
    help: str
    values: dict[Labels, float] = field(default_factory=dict)
    funcs: dict[Labels, Callable[[], float]] = field(default_factory=dict)

    def inc(self, amount: float = 1.0, **labels: str) -> None:
        key = _key(labels)
        self.values[key] = self.values.get(key, 0.0) + amount

    def set(self, value: float, **labels: str) -> None:
        self.values[_key(labels)] = value

    def set_func(self, func: Callable[[], float], **labels: str) -> None:
        self.funcs[_key(labels)] = func

    def render(self) -> list[str]:
        lines = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} {self.kind}"]
        samples = dict(self.values)
        for key, func in self.funcs.items():
            samples[key] = func()
        for key, value in sorted(samples.items()):
            labels = ",".join(f'{k}="{_escape(v)}"' for k, v in key)
            number = int(value) if value == int(value) else value
            lines.append(f"{self.name}{{{labels}}} {number}" if labels else f"{self.name} {number}")
        return lines


class Registry:
    """Families by name; asking twice for one name returns the same family."""

    def __init__(self) -> None:
        self._families: dict[str, Family] = {}
        self._lock = threading.Lock()

    def counter(self, name: str, help_text: str) -> Family:
        return self._family(name, "counter", help_text)

    def gauge(self, name: str, help_text: str) -> Family:
        return self._family(name, "gauge", help_text)

    def _family(self, name: str, kind: str, help_text: str) -> Family:
        with self._lock:
            family = self._families.get(name)
            if family is None:
                family = self._families[name] = Family(name, kind, help_text)
            return family

    def render(self) -> str:
        with self._lock:
            families = sorted(self._families.values(), key=lambda f: f.name)
        return "".join(line + "\n" for family in families for line in family.render())


REGISTRY = Registry()


def _key(labels: dict[str, str]) -> Labels:
    return tuple(sorted(labels.items()))


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
