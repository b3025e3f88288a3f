"""What the client-library tests share: one cluster per module, started with ``up``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cluster import Cluster, free_port, start_up

# Longer than tests.cluster's default: one start serves a whole module, and a start with a node
# agent on a loaded machine (two workers, each with a cluster and its pods) can take more.
READY_TIMEOUT = 45.0


def module_cluster(tmp_path_factory: pytest.TempPathFactory, name: str, nodes: int) -> Iterator[Cluster]:
    """``up`` with ``nodes`` process nodes (node-1..N) on a memory store, for one test module
    (a generator for a module-scoped fixture): one start per module keeps CI time down."""
    running = start_up(tmp_path_factory.mktemp(name), free_port(), flags=["--nodes", str(nodes)])
    try:
        running.wait_ready(timeout=READY_TIMEOUT)
        yield running
    finally:  # also when it never became ready: no cluster outlives its module
        if running.process.poll() is None:
            running.stop()
