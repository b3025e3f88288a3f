"""QueueSet: concurrency limit, shuffle sharding, fair dispatch, bounded queues, wait limit.

Every test holds seats explicitly (a started seat executes until the test finishes it), so
orderings are deterministic: nothing depends on timing but the wait-limit test, whose
request cannot be admitted before its (short) limit.
"""

from __future__ import annotations

import asyncio

import pytest

from apiserver.flowcontrol.metrics import FlowMetrics
from apiserver.flowcontrol.queueset import QueueSet, Seat, deal_hand, flow_hash
from apiserver.flowcontrol.schema import PriorityLevel, Queuing

QUEUED = PriorityLevel(
    "global-default", shares=20, queuing=Queuing(queues=16, hand_size=2, queue_length_limit=3)
)


def queue_set(limit: int = 1, level: PriorityLevel = QUEUED, wait_limit: float = 30.0) -> QueueSet:
    return QueueSet(level, limit, FlowMetrics(), wait_limit)


def hand(qs: QueueSet, flow: str) -> set[int]:
    queuing = qs.level.queuing
    assert queuing is not None
    return set(deal_hand(flow_hash("fs", flow), queuing.queues, queuing.hand_size))


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_hands_are_distinct_cards_and_stable_per_flow() -> None:
    for flow in ("alice", "bob", "system:serviceaccount:default:x"):
        cards = deal_hand(flow_hash("global-default", flow), 128, 6)
        assert len(set(cards)) == 6 and all(0 <= c < 128 for c in cards)
        assert cards == deal_hand(flow_hash("global-default", flow), 128, 6)
    assert deal_hand(flow_hash("global-default", "alice"), 128, 6) != deal_hand(
        flow_hash("global-default", "bob"), 128, 6
    )


async def test_requests_beyond_the_limit_wait_then_run_in_arrival_order_within_a_flow() -> None:
    qs = queue_set(limit=1)
    first = await qs.start("fs", "alice")
    assert first is not None
    waiting = [asyncio.create_task(qs.start("fs", "alice")) for _ in range(2)]
    await settle()
    assert qs.executing == 1 and qs.waiting == 2
    first.finish()
    second = await waiting[0]
    assert second is not None and not waiting[1].done()
    second.finish()
    third = await waiting[1]
    assert third is not None and qs.waiting == 0
    third.finish()
    assert qs.executing == 0


async def drain(tasks: dict[str, list[asyncio.Task[Seat | None]]]) -> list[str]:
    """Finish admitted seats one at a time; the flows in the order they were admitted."""
    order: list[str] = []
    pending = {task: flow for flow, flow_tasks in tasks.items() for task in flow_tasks}
    while pending:
        await settle()
        done = [task for task in pending if task.done()]
        assert len(done) == 1, "one seat: exactly one request admitted at a time"
        seat = done[0].result()
        order.append(pending.pop(done[0]))
        if seat is not None:
            seat.finish()
    return order


async def test_a_flood_from_one_flow_cannot_starve_another() -> None:
    qs = queue_set(limit=1)
    assert not hand(qs, "alice") & hand(qs, "bob")  # their queues differ (shuffle sharding)
    held = await qs.start("fs", "alice")
    assert held is not None
    flood = [asyncio.create_task(qs.start("fs", "alice")) for _ in range(6)]  # alice's queues full
    await settle()
    bob = [asyncio.create_task(qs.start("fs", "bob"))]
    await settle()
    held.finish()
    order = await drain({"alice": flood, "bob": bob})
    # First come, first served would run bob last; fair queuing runs him within the first
    # two dispatches (one per busy queue at the same virtual time).
    assert order.index("bob") <= 1, order
    assert sorted(order) == ["alice"] * 6 + ["bob"]


async def test_busy_flows_share_the_seats_evenly() -> None:
    qs = queue_set(limit=1)
    held = await qs.start("fs", "alice")
    assert held is not None
    tasks = {flow: [asyncio.create_task(qs.start("fs", flow)) for _ in range(3)] for flow in ("alice", "bob")}
    await settle()
    held.finish()
    order = await drain(tasks)
    assert order.count("alice") == order.count("bob") == 3
    assert "bob" in order[:2] and "alice" in order[-2:], order  # interleaved, not one flow first


async def test_a_full_queue_rejects_the_flooding_flow_only() -> None:
    qs = queue_set(limit=1)
    held = await qs.start("fs", "alice")
    assert held is not None
    flood = [asyncio.create_task(qs.start("fs", "alice")) for _ in range(10)]
    await settle()
    rejected = [t for t in flood if t.done() and t.result() is None]
    assert len(rejected) == 10 - 2 * 3  # hand of 2 queues, 3 each
    assert qs.waiting == 6
    bob = asyncio.create_task(qs.start("fs", "bob"))
    await settle()
    assert not bob.done()  # queued, not rejected
    assert qs._metrics.rejected == {("global-default", "fs", "queue-full"): 4}
    assert qs._metrics.inqueue[("global-default", "fs")] == 7
    held.finish()
    order = await drain({"alice": [t for t in flood if t not in rejected], "bob": [bob]})
    assert order.index("bob") <= 1, order
    assert qs.executing == 0 and qs.waiting == 0


async def test_a_request_waiting_past_the_wait_limit_is_rejected() -> None:
    qs = queue_set(limit=1, wait_limit=0.05)
    held = await qs.start("fs", "alice")
    assert held is not None
    assert await qs.start("fs", "bob") is None
    assert qs.waiting == 0
    assert qs._metrics.rejected == {("global-default", "fs", "time-out"): 1}
    assert qs._metrics.inqueue[("global-default", "fs")] == 0
    held.finish()
    assert qs.executing == 0


async def test_a_cancelled_waiter_leaves_its_queue() -> None:
    qs = queue_set(limit=1)
    held = await qs.start("fs", "alice")
    assert held is not None
    waiter = asyncio.create_task(qs.start("fs", "bob"))
    await settle()
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert qs.waiting == 0
    assert qs._metrics.rejected == {("global-default", "fs", "cancelled"): 1}
    held.finish()
    assert qs.executing == 0


async def test_finish_is_idempotent() -> None:
    qs = queue_set(limit=2)
    seat = await qs.start("fs", "alice")
    assert seat is not None
    seat.finish()
    seat.finish()
    assert qs.executing == 0 and qs._metrics.executing[("global-default", "fs")] == 0


async def test_a_level_without_queues_rejects_over_its_limit() -> None:
    qs = queue_set(limit=1, level=PriorityLevel("catch-all", shares=5))
    held = await qs.start("catch-all", "alice")
    assert held is not None
    assert await qs.start("catch-all", "bob") is None
    assert qs._metrics.rejected == {("catch-all", "catch-all", "concurrency-limit"): 1}
    held.finish()
    assert await qs.start("catch-all", "bob") is not None


async def test_an_exempt_level_admits_everything() -> None:
    qs = queue_set(limit=0, level=PriorityLevel("exempt", shares=0, exempt=True))
    seats = [await qs.start("exempt", "") for _ in range(50)]
    assert all(seats) and qs.executing == 50
    assert qs._metrics.executing[("exempt", "exempt")] == 50
