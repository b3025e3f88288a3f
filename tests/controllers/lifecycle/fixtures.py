"""Shared set-up for the lifecycle controller tests: a FakeClient and an unstarted informer
factory seeded with the same objects."""

from __future__ import annotations

from typing import Any

from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.clock import FakeClock
from minikube_py.events import FakeRecorder
from minikube_py.testing.fakeclient import FakeClient


class World:
    def __init__(self) -> None:
        self.clock = FakeClock()
        self.fake = FakeClient()
        self.factory = SharedInformerFactory(self.fake, clock=self.clock)
        self.recorder = FakeRecorder()

    def seed(self, rt: ResourceType, *objs: Object, namespace: str | None = None) -> list[Object]:
        """Store in the fake and put the stored copies into the informer's cache."""
        stored = self.fake.seed(rt, *objs)
        informer = self.factory.informer(rt, namespace) if namespace else self.factory.informer(rt)
        for obj in stored:
            informer.indexer.add(obj)
        return stored

    def refresh(self, rt: ResourceType, namespace: str | None = None) -> None:
        """Make the informer's cache match the fake (what a running informer would do)."""
        informer = self.factory.informer(rt, namespace) if namespace else self.factory.informer(rt)
        informer.indexer.replace(self.fake.all(rt), str(self.fake.revision))


def meta(name: str, namespace: str = "", **extra: Any) -> Object:
    out: Object = {"name": name, **extra}
    if namespace:
        out["namespace"] = namespace
    return out
