"""Cache: nodes and pods, the assumed-pod lifecycle on a fake clock, incremental snapshots."""

from __future__ import annotations

import asyncio

import pytest

from minikube_py.api.unstructured import Object
from minikube_py.clock import FakeClock
from scheduler.backend.cache import Cache, Snapshot
from scheduler.framework.types import NodeInfo
from tests.scheduler.builders import make_node, make_pod, node_info

TERM = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}
AFFINITY = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [TERM]}}
ANTI_AFFINITY = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [TERM]}}


def snapshot_of(cache: Cache) -> Snapshot:
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    return snapshot


def cpu_on(cache: Cache, node: str) -> int:
    info = snapshot_of(cache).get(node)
    assert info is not None
    return info.requested.milli_cpu


def pods_on(snapshot: Snapshot, node: str) -> list[str]:
    info = snapshot.get(node)
    return [p.key for p in info.pods] if info is not None else []


def placed(name: str, node: str, **kwargs: object) -> Object:
    return make_pod(name, node_name=node, **kwargs)  # type: ignore[arg-type]


def test_nodes_and_pods_are_added_updated_and_removed() -> None:
    cache = Cache(clock=FakeClock())
    cache.add_node(make_node("n1"))
    cache.add_node(make_node("n2"))
    cache.add_pod(placed("a", "n1", cpu="500m"))
    assert cache.node_count() == 2
    assert [n.name for n in snapshot_of(cache).list()] == ["n1", "n2"]
    assert cpu_on(cache, "n1") == 500
    cache.update_node(make_node("n2"), make_node("n2", cpu="8"))
    assert snapshot_of(cache).get("n2").allocatable.milli_cpu == 8000  # type: ignore[union-attr]
    cache.remove_pod(placed("a", "n1", cpu="500m"))
    assert cpu_on(cache, "n1") == 0
    cache.remove_node(make_node("n2"))
    assert cache.node_count() == 1
    assert [n.name for n in snapshot_of(cache).list()] == ["n1"]


def test_assumed_pod_counts_until_forgotten() -> None:
    cache = Cache(clock=FakeClock())
    cache.add_node(make_node("n1"))
    pod = placed("a", "n1", cpu="1")
    cache.assume_pod(pod)
    assert cache.is_assumed(pod)
    assert cpu_on(cache, "n1") == 1000
    with pytest.raises(ValueError, match="can't be assumed"):
        cache.assume_pod(pod)
    cache.forget_pod(pod)
    assert not cache.is_assumed(pod)
    assert cpu_on(cache, "n1") == 0


async def test_assumed_pod_expires_only_after_binding_finished_and_ttl() -> None:
    clock = FakeClock()
    cache = Cache(clock=clock, ttl=30)
    cache.add_node(make_node("n1"))
    pod = placed("a", "n1", cpu="1")
    cache.assume_pod(pod)
    runner = asyncio.create_task(cache.run())
    await asyncio.sleep(0)
    await clock.step(100)  # binding still in flight: never expires
    assert cache.is_assumed(pod)
    cache.finish_binding(pod)
    await clock.step(30)
    assert cache.is_assumed(pod) and cpu_on(cache, "n1") == 1000
    await clock.step(1)
    assert not cache.is_assumed(pod) and cpu_on(cache, "n1") == 0
    runner.cancel()


async def test_add_pod_confirms_an_assumed_pod() -> None:
    clock = FakeClock()
    cache = Cache(clock=clock, ttl=30)
    cache.add_node(make_node("n1"))
    pod = placed("a", "n1", cpu="1")
    cache.assume_pod(pod)
    cache.finish_binding(pod)
    cache.add_pod(pod)
    assert not cache.is_assumed(pod)
    await clock.step(60)
    cache.cleanup_expired_assumed_pods()
    assert cpu_on(cache, "n1") == 1000


def test_confirmation_on_another_node_moves_the_pod() -> None:
    cache = Cache(clock=FakeClock())
    cache.add_node(make_node("n1"))
    cache.add_node(make_node("n2"))
    cache.assume_pod(placed("a", "n1", cpu="1"))
    cache.add_pod(placed("a", "n2", cpu="1"))
    assert (cpu_on(cache, "n1"), cpu_on(cache, "n2")) == (0, 1000)


def test_update_moves_a_pod_to_another_node() -> None:
    cache = Cache(clock=FakeClock())
    cache.add_node(make_node("n1"))
    cache.add_node(make_node("n2"))
    cache.add_pod(placed("a", "n1", cpu="1"))
    cache.update_pod(placed("a", "n1", cpu="1"), placed("a", "n2", cpu="2"))
    assert (cpu_on(cache, "n1"), cpu_on(cache, "n2")) == (0, 2000)


async def test_expired_pod_is_added_back_by_the_informer() -> None:
    clock = FakeClock()
    cache = Cache(clock=clock, ttl=0.5)
    cache.add_node(make_node("n1"))
    pod = placed("a", "n1", cpu="1")
    cache.assume_pod(pod)
    cache.finish_binding(pod)
    await clock.step(1)
    cache.cleanup_expired_assumed_pods()
    assert cpu_on(cache, "n1") == 0
    cache.add_pod(pod)
    assert cpu_on(cache, "n1") == 1000


def test_removed_node_lingers_while_pods_remain_but_is_not_listed() -> None:
    cache = Cache(clock=FakeClock())
    cache.add_node(make_node("n1"))
    cache.add_pod(placed("a", "n1"))
    snapshot = snapshot_of(cache)
    cache.remove_node(make_node("n1"))
    cache.update_snapshot(snapshot)
    assert (cache.node_count(), snapshot.list(), snapshot.get("n1")) == (0, [], None)
    assert "n1" in cache.dump()[0]
    cache.remove_pod(placed("a", "n1"))
    assert cache.dump()[0] == {}
    cache.add_node(make_node("n1"))  # comes back empty
    cache.update_snapshot(snapshot)
    assert pods_on(snapshot, "n1") == []


def test_pods_may_arrive_before_their_node() -> None:
    cache = Cache(clock=FakeClock())
    cache.add_pod(placed("a", "n1", cpu="1"))
    assert snapshot_of(cache).list() == []
    cache.add_node(make_node("n1"))
    assert cpu_on(cache, "n1") == 1000


def test_snapshot_copies_only_changed_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = Cache(clock=FakeClock())
    for i in range(50):
        cache.add_node(make_node(f"n{i}"))
    snapshot = snapshot_of(cache)
    listed = snapshot.list()
    n7 = snapshot.get("n7")
    clones: list[str] = []
    original = NodeInfo.clone

    def counting_clone(self: NodeInfo) -> NodeInfo:
        clones.append(self.name)
        return original(self)

    monkeypatch.setattr(NodeInfo, "clone", counting_clone)
    cache.update_snapshot(snapshot)
    assert clones == []
    cache.add_pod(placed("a", "n7", cpu="1"))
    cache.assume_pod(placed("b", "n3", cpu="1"))
    cache.update_snapshot(snapshot)
    assert sorted(clones) == ["n3", "n7"]
    assert snapshot.list() is listed  # same order, same objects, no rebuild
    assert snapshot.get("n7") is n7 and pods_on(snapshot, "n7") == ["default/a"]
    assert snapshot.generation == max(info.generation for info in cache.dump()[0].values())


def test_snapshot_list_keeps_insertion_order_across_node_churn() -> None:
    cache = Cache(clock=FakeClock())
    for name in ("c", "a", "b"):
        cache.add_node(make_node(name))
    snapshot = snapshot_of(cache)
    cache.remove_node(make_node("a"))
    cache.add_node(make_node("d"))
    cache.update_node(make_node("c"), make_node("c", cpu="2"))
    cache.update_snapshot(snapshot)
    assert [n.name for n in snapshot.list()] == ["c", "b", "d"]


def test_snapshot_affinity_lists_follow_pods() -> None:
    cache = Cache(clock=FakeClock())
    for name in ("n1", "n2", "n3"):
        cache.add_node(make_node(name))
    snapshot = snapshot_of(cache)
    assert snapshot.have_pods_with_affinity_list() == []
    cache.add_pod(placed("aff", "n1", affinity=AFFINITY))
    cache.add_pod(placed("anti", "n2", affinity=ANTI_AFFINITY))
    cache.update_snapshot(snapshot)
    assert [n.name for n in snapshot.have_pods_with_affinity_list()] == ["n1", "n2"]
    assert [n.name for n in snapshot.have_pods_with_required_anti_affinity_list()] == ["n2"]
    cache.remove_pod(placed("aff", "n1", affinity=AFFINITY))
    cache.remove_node(make_node("n2"))
    cache.update_snapshot(snapshot)
    assert snapshot.have_pods_with_affinity_list() == []
    assert snapshot.have_pods_with_required_anti_affinity_list() == []


def test_two_snapshots_update_independently() -> None:
    cache = Cache(clock=FakeClock())
    cache.add_node(make_node("n1"))
    early, late = snapshot_of(cache), Snapshot()
    cache.add_pod(placed("a", "n1"))
    cache.update_snapshot(early)
    cache.update_snapshot(late)
    assert pods_on(early, "n1") == pods_on(late, "n1") == ["default/a"]


def test_snapshot_from_node_infos() -> None:
    infos = [node_info(make_node("n1"), make_pod("a", affinity=AFFINITY)), node_info(make_node("n2"))]
    snapshot = Snapshot.from_node_infos(infos)
    assert snapshot.list() == infos and snapshot.num_nodes() == 2
    assert snapshot.get("n2") is infos[1]
    assert [n.name for n in snapshot.have_pods_with_affinity_list()] == ["n1"]


def test_thousands_of_nodes_update_incrementally() -> None:
    cache = Cache(clock=FakeClock())
    for i in range(3000):
        cache.add_node(make_node(f"n{i}"))
    snapshot = snapshot_of(cache)
    for i in range(3000):
        cache.assume_pod(placed(f"p{i}", f"n{i % 3000}", cpu="100m"))
        cache.update_snapshot(snapshot)
    assert sum(n.requested.milli_cpu for n in snapshot.list()) == 300_000


async def test_run_returns_at_the_tick_after_close() -> None:
    clock = FakeClock()
    cache = Cache(clock=clock)
    runner = asyncio.create_task(cache.run())
    await asyncio.sleep(0)
    cache.close()
    await clock.step(1)
    await asyncio.wait_for(runner, 1)
