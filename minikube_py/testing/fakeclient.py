"""``FakeClient``: an in-memory ``Client`` for unit tests of controllers, informers and agents.

A first-class fake (ARCHITECTURE §3 ``testing/``), like client-go's fake clientset plus
``FakeControllerSource``:

- **State**: objects per resource type with the server's bookkeeping a controller relies on
  (uid, creationTimestamp, resourceVersion from one cluster-wide revision, generation bumped on
  spec changes, generateName, optimistic concurrency, finalizers and deletionTimestamp,
  ``propagationPolicy`` recorded as the ``orphan``/``foregroundDeletion`` finalizer).
  It does not default, validate or admit: tests seed exactly what they mean.
- **Actions**: every call is appended to ``actions`` (verb, resource, namespace, name,
  subresource, body), so a test asserts what a ``sync(key)`` did.
- **Faults**: ``fail(verb, resource, error, times)`` makes the next calls raise; watches can
  lose events (``drop_watch_events``: the state changes, the event is never sent), be closed
  (``reset_watches``), or refuse an old revision after ``compact`` (``Gone``).

Patches: JSON merge patch; a strategic merge patch is applied as a merge patch (lists are
replaced), which is enough for the metadata and status patches controllers send.
"""

from __future__ import annotations

from minikube_py.api.scheme import ResourceType
from minikube_py.testing.fakeresource import FakeResourceClient
from minikube_py.testing.fakestate import Action, FakeState, merge_patch

__all__ = ["Action", "FakeClient", "FakeResourceClient", "merge_patch"]


class FakeClient(FakeState):
    """The fake cluster state plus the handles onto it. Not thread-safe (one event loop)."""

    # -- Client -----------------------------------------------------------------------------

    def resource(self, resource_type: ResourceType, namespace: str | None = None) -> FakeResourceClient:
        return FakeResourceClient(self, resource_type, namespace)

    async def close(self) -> None:
        self.reset_watches()
