"""Garbage collector settings for the long-running processes (apiserver, node agents, ``up``).

Every request allocates thousands of short-lived objects (decoded JSON) while the watch
caches and informers hold millions of long-lived ones. With the default thresholds
(700, 10, 10) the collector took ~10% of a create storm with 10k pods resident, mostly in full
collections that walk every cached object (~0.2 s each); (50_000, 20, 10) cut that to ~3%, and
these gain another ~4% of creates/s (benchmarks/api.py, 5 alternating runs each). Young
garbage is freed by reference counting; the collector is only needed for cycles, which are
rare. A node agent serving thousands of simulated nodes has the same shape (many long-lived
node and pod records, short-lived requests), and full collections there showed as Lease
renewal latency spikes (benchmarks/node_scale.py).
"""

from __future__ import annotations

import gc

GC_THRESHOLDS = (100_000, 50, 100)


def tune_gc() -> None:
    """Process-wide: collect young objects less often (see ``GC_THRESHOLDS``)."""
    gc.set_threshold(*GC_THRESHOLDS)
