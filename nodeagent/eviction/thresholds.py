"""Eviction signals and hard thresholds (upstream ``--eviction-hard``, ``eviction/api``).

Two signals, observed from the node's Summary: ``memory.available`` (the node's available
memory, its capacity being working set + available) and ``nodefs.available`` (free bytes of the
node's filesystem). A threshold is ``<signal><<quantity>`` or ``<signal><<percent>%`` of the
signal's capacity; upstream's defaults are ``memory.available<100Mi,nodefs.available<10%``.
A threshold is met while the observed value is below it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from minikube_py.api.quantity import Format, Quantity, QuantityError
from nodeagent.stats.usage import Summary

MEMORY_AVAILABLE = "memory.available"
NODEFS_AVAILABLE = "nodefs.available"
DEFAULT_EVICTION_HARD = "memory.available<100Mi,nodefs.available<10%"
# the resource each signal reclaims, as the eviction message names it
RESOURCES = {MEMORY_AVAILABLE: "memory", NODEFS_AVAILABLE: "ephemeral-storage"}


@dataclass(frozen=True)
class Observation:
    available: int
    capacity: int


@dataclass(frozen=True)
class Threshold:
    """``signal`` is met below ``quantity`` bytes, or below ``percentage`` of the capacity."""

    signal: str
    quantity: int | None = None
    percentage: float = 0.0

    def value(self, capacity: int) -> int:
        return self.quantity if self.quantity is not None else int(capacity * self.percentage)

    def met(self, observation: Observation) -> bool:
        return observation.available < self.value(observation.capacity)

    @property
    def resource(self) -> str:
        return RESOURCES[self.signal]


def parse_thresholds(text: str) -> list[Threshold]:
    """``memory.available<100Mi,nodefs.available<10%``; raises ``ValueError`` when invalid."""
    thresholds: list[Threshold] = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        signal, sep, value = item.partition("<")
        if not sep or signal not in RESOURCES:
            raise ValueError(f"invalid eviction threshold {item!r}: want <signal><<quantity>, signals "
                             f"{', '.join(RESOURCES)}")  # fmt: skip
        if any(t.signal == signal for t in thresholds):
            raise ValueError(f"duplicate eviction threshold for {signal}")
        if value.endswith("%"):
            percent = float(value[:-1])
            if not 0 < percent < 100:
                raise ValueError(f"eviction threshold {item!r}: a percentage must be in (0%, 100%)")
            thresholds.append(Threshold(signal, percentage=percent / 100))
            continue
        try:
            thresholds.append(Threshold(signal, quantity=Quantity.parse(value).value()))
        except QuantityError as err:
            raise ValueError(f"eviction threshold {item!r}: {err}") from None
    return thresholds


def observe(summary: Summary) -> dict[str, Observation]:
    """Every signal's value now (upstream ``makeSignalObservations``)."""
    node = summary.node
    return {
        MEMORY_AVAILABLE: Observation(
            node.memory_available_bytes, node.memory_available_bytes + node.memory_working_set_bytes
        ),
        NODEFS_AVAILABLE: Observation(node.fs_available_bytes, node.fs_capacity_bytes),
    }


def thresholds_met(
    thresholds: Iterable[Threshold], observations: Mapping[str, Observation]
) -> list[Threshold]:
    """The thresholds crossed, memory first (the order upstream reclaims in)."""
    met = [t for t in thresholds if t.signal in observations and t.met(observations[t.signal])]
    return sorted(met, key=lambda t: t.signal != MEMORY_AVAILABLE)


def binary_quantity(value: int) -> str:
    """A byte count as upstream prints ``resource.NewQuantity(v, BinarySI)``: ``100Mi``."""
    return str(Quantity.from_int(value, Format.BINARY_SI))
