"""``QueueSet``: the concurrency limit of one priority level, with fair queuing of what
exceeds it (upstream's ``fairqueuing/queueset``, for requests of one seat each).

Contract:

- ``start(flow_schema, flow)`` returns a ``Seat`` once the request may execute (its caller
  must ``finish()`` it exactly when done) or None when it is rejected; every outcome is
  counted in the metrics (``current_executing``, ``current_inqueue``, ``rejected`` with
  upstream's reasons).
- Exempt levels admit everything. Levels without queuing admit up to the limit and reject
  the rest (``concurrency-limit``).
- Queuing levels: a flow (flow schema + distinguisher) is dealt a hand of queues from the
  hash of its name (shuffle sharding) and each request joins the shortest queue of its
  hand. When every seat is taken and that queue holds ``queue_length_limit`` requests, the
  request is rejected (``queue-full``); one that waits longer than ``wait_limit`` seconds
  is rejected (``time-out``); a caller cancelled while waiting leaves its queue
  (``cancelled``).
- A freed seat goes to the head of the queue with the smallest virtual start time
  (start-time fair queuing with unit work per request: a queue that becomes busy starts at
  the current virtual time, each dispatch advances its queue by one), so a flow that floods
  its queues is served no more often than any other busy flow: it cannot starve them.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import deque
from dataclasses import dataclass, field

from apiserver.flowcontrol.metrics import FlowMetrics
from apiserver.flowcontrol.schema import PriorityLevel

_WAITING, _EXECUTING, _DONE = 0, 1, 2
_HAND_CACHE_LIMIT = 10_000


@dataclass(eq=False, slots=True)
class _Queue:
    index: int
    waiting: deque[Seat] = field(default_factory=deque)
    executing: int = 0
    next_start: float = 0.0  # virtual start time of the request at its head


@dataclass(eq=False, slots=True)
class Seat:
    """One request's place in a ``QueueSet``: waiting, then executing until ``finish()``."""

    queue_set: QueueSet
    flow_schema: str
    queue: _Queue | None
    state: int = _WAITING
    waiter: asyncio.Future[bool] | None = None
    timer: asyncio.TimerHandle | None = None

    def finish(self) -> None:
        """Free the seat (idempotent) and hand it to the next waiting request."""
        if self.state == _EXECUTING:
            self.state = _DONE
            self.queue_set._release(self)


def deal_hand(flow_hash: int, deck_size: int, hand_size: int) -> tuple[int, ...]:
    """Shuffle sharding: ``hand_size`` distinct queue indices picked by successive digits of
    ``flow_hash`` in mixed radix ``deck_size, deck_size - 1, ...``."""
    deck = list(range(deck_size))
    hand = []
    for remaining in range(deck_size, deck_size - min(hand_size, deck_size), -1):
        flow_hash, pick = divmod(flow_hash, remaining)
        hand.append(deck.pop(pick))
    return tuple(hand)


def flow_hash(flow_schema: str, distinguisher: str) -> int:
    """Upstream's flow ID hash: the first 8 bytes (little-endian) of
    ``sha256(flow_schema NUL distinguisher)``."""
    digest = hashlib.sha256(f"{flow_schema}\0{distinguisher}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


class QueueSet:
    """See the module docstring. ``limit`` is the level's concurrency limit."""

    def __init__(self, level: PriorityLevel, limit: int, metrics: FlowMetrics, wait_limit: float) -> None:
        self.level, self.limit, self.wait_limit = level, limit, wait_limit
        self.executing = 0
        self._metrics = metrics
        queuing = level.queuing
        self._queues = [_Queue(i) for i in range(queuing.queues if queuing else 0)]
        self._queue_length_limit = queuing.queue_length_limit if queuing else 0
        self._hand_size = queuing.hand_size if queuing else 0
        self._hands: dict[tuple[str, str], tuple[int, ...]] = {}
        self._busy: set[_Queue] = set()  # queues with waiting requests
        self._virtual_time = 0.0
        self._enqueues = 0

    @property
    def waiting(self) -> int:
        return sum(len(queue.waiting) for queue in self._busy)

    async def start(self, flow_schema: str, flow: str) -> Seat | None:
        if self.level.exempt:
            return self._execute(Seat(self, flow_schema, None))
        if not self._queues:
            if self.executing >= self.limit:
                self._reject(flow_schema, "concurrency-limit")
                return None
            return self._execute(Seat(self, flow_schema, None))
        queue = self._shortest_queue(self._hand(flow_schema, flow))
        if self.executing >= self.limit and len(queue.waiting) >= self._queue_length_limit:
            self._reject(flow_schema, "queue-full")
            return None
        seat = self._enqueue(Seat(self, flow_schema, queue))
        self._dispatch_as_much_as_possible()
        if seat.state == _EXECUTING:
            return seat
        return await self._wait(seat)

    def _hand(self, flow_schema: str, flow: str) -> tuple[int, ...]:
        key = (flow_schema, flow)
        hand = self._hands.get(key)
        if hand is None:
            if len(self._hands) >= _HAND_CACHE_LIMIT:
                self._hands.clear()
            hand = deal_hand(flow_hash(flow_schema, flow), len(self._queues), self._hand_size)
            self._hands[key] = hand
        return hand

    def _shortest_queue(self, hand: tuple[int, ...]) -> _Queue:
        offset = self._enqueues % len(hand)  # rotate the scan so ties spread over the hand
        self._enqueues += 1
        best = self._queues[hand[offset]]
        for i in range(1, len(hand)):
            queue = self._queues[hand[(offset + i) % len(hand)]]
            if len(queue.waiting) < len(best.waiting):
                best = queue
        return best

    def _enqueue(self, seat: Seat) -> Seat:
        queue = seat.queue
        assert queue is not None
        if not queue.waiting:
            queue.next_start = max(queue.next_start, self._virtual_time)
        queue.waiting.append(seat)
        self._busy.add(queue)
        self._metrics.inqueue[self.level.name, seat.flow_schema] += 1
        return seat

    async def _wait(self, seat: Seat) -> Seat | None:
        loop = asyncio.get_running_loop()
        seat.waiter = loop.create_future()
        seat.timer = loop.call_later(self.wait_limit, self._dequeue_rejected, seat, "time-out")
        try:
            admitted = await seat.waiter
        except asyncio.CancelledError:
            if seat.state == _WAITING:
                self._dequeue_rejected(seat, "cancelled")
            seat.finish()
            raise
        return seat if admitted else None

    def _dequeue_rejected(self, seat: Seat, reason: str) -> None:
        if seat.state != _WAITING or seat.queue is None:
            return
        seat.state = _DONE
        seat.queue.waiting.remove(seat)
        if not seat.queue.waiting:
            self._busy.discard(seat.queue)
        self._metrics.inqueue[self.level.name, seat.flow_schema] -= 1
        self._reject(seat.flow_schema, reason)
        if seat.waiter is not None and not seat.waiter.done():
            seat.waiter.set_result(False)

    def _dispatch_as_much_as_possible(self) -> None:
        while self._busy and self.executing < self.limit:
            queue = min(self._busy, key=_start_then_index)
            seat = queue.waiting.popleft()
            if not queue.waiting:
                self._busy.discard(queue)
            self._virtual_time = queue.next_start
            queue.next_start += 1
            self._metrics.inqueue[self.level.name, seat.flow_schema] -= 1
            self._execute(seat)
            if seat.timer is not None:
                seat.timer.cancel()
            if seat.waiter is not None and not seat.waiter.done():
                seat.waiter.set_result(True)

    def _execute(self, seat: Seat) -> Seat:
        seat.state = _EXECUTING
        self.executing += 1
        if seat.queue is not None:
            seat.queue.executing += 1
        self._metrics.executing[self.level.name, seat.flow_schema] += 1
        return seat

    def _release(self, seat: Seat) -> None:
        self.executing -= 1
        if seat.queue is not None:
            seat.queue.executing -= 1
        self._metrics.executing[self.level.name, seat.flow_schema] -= 1
        self._dispatch_as_much_as_possible()

    def _reject(self, flow_schema: str, reason: str) -> None:
        self._metrics.rejected[self.level.name, flow_schema, reason] += 1


def _start_then_index(queue: _Queue) -> tuple[float, int]:
    return queue.next_start, queue.index
