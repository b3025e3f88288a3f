"""minikube_py.testing.slots: each test cluster's own loopback ranges, held with flock."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from minikube_py.network import node_cidr_count
from minikube_py.testing.cluster import network_flags
from minikube_py.testing.slots import NODES_PER_SLOT, SLOTS, NetworkSlot, NoFreeSlotError, acquire_slot


def test_a_slots_ranges() -> None:
    three = NetworkSlot(3)
    assert (three.cluster_cidr, three.service_cidr) == ("127.67.0.0/17", "127.67.128.0/17")
    assert (three.kubernetes_ip, three.dns_ip) == ("127.67.128.1", "127.67.128.10")
    assert (three.node_cidr(0), three.node_ip(0), three.node_ip(1)) == (
        "127.67.0.0/24",
        "127.67.0.1",
        "127.67.1.1",
    )
    assert node_cidr_count(three.cluster_cidr, 24) == NODES_PER_SLOT
    assert three.flags() == [
        "--service-cluster-ip-range",
        "127.67.128.0/17",
        "--cluster-cidr",
        "127.67.0.0/17",
    ]


def test_held_slots_are_never_handed_out_twice(tmp_path: Path) -> None:
    held = [acquire_slot(directory=tmp_path) for _ in range(SLOTS)]
    assert len({slot.index for slot in held}) == SLOTS
    with pytest.raises(NoFreeSlotError, match=f"all {SLOTS} network slots"):
        acquire_slot(directory=tmp_path)
    held[5].release()
    again = acquire_slot(directory=tmp_path)
    assert again.index == held[5].index
    for slot in [*held, again]:
        slot.release()


@pytest.mark.e2e
def test_a_released_slot_stays_taken_while_the_cluster_process_holds_it(tmp_path: Path) -> None:
    """The cluster inherits the lock: a test that lets go of its slot (or dies) frees it only
    once the cluster process is gone too."""
    slot = acquire_slot(prefer=0, directory=tmp_path)
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE, pass_fds=(slot.fd,)
    )
    try:
        slot.release()
        others = [acquire_slot(directory=tmp_path) for _ in range(SLOTS - 1)]
        with pytest.raises(NoFreeSlotError):
            acquire_slot(directory=tmp_path)
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=10)
    freed = acquire_slot(directory=tmp_path)
    assert freed.index == slot.index
    for each in [*others, freed]:
        each.release()


def test_a_restart_prefers_its_previous_slot(tmp_path: Path) -> None:
    first = acquire_slot(directory=tmp_path)
    first.release()
    again = acquire_slot(prefer=first.index, directory=tmp_path)
    assert again.index == first.index
    again.release()


def test_flags_the_caller_gives_win() -> None:
    slot = NetworkSlot(7)
    assert network_flags(slot, ["--nodes", "1"]) == slot.flags()
    assert network_flags(slot, ["--cluster-cidr=127.10.0.0/16"]) == [
        "--service-cluster-ip-range",
        "127.71.128.0/17",
    ]
    assert network_flags(slot, ["--service-cluster-ip-range", "127.9.0.0/24", "--cluster-cidr", "x"]) == []
