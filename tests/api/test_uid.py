"""``new_uuid``: canonical version-4 UUIDs, unique, and different in a forked child."""

from __future__ import annotations

import multiprocessing
import uuid

from minikube_py.uid import new_uuid


def test_uuids_are_canonical_random_version_4() -> None:
    seen = set()
    for _ in range(20_000):
        text = new_uuid()
        parsed = uuid.UUID(text)
        assert str(parsed) == text
        assert (parsed.version, parsed.variant) == (4, uuid.RFC_4122)
        seen.add(text)
    assert len(seen) == 20_000


def _child(queue: multiprocessing.Queue[str]) -> None:
    queue.put(new_uuid())


def test_a_forked_child_draws_different_uuids() -> None:
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[str] = context.Queue()
    children = [context.Process(target=_child, args=(queue,)) for _ in range(2)]
    for child in children:
        child.start()
    drawn = {queue.get(timeout=10) for _ in children}
    for child in children:
        child.join()
    assert len(drawn) == 2
