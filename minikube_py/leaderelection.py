"""Leader election on a coordination.k8s.io/v1 Lease (client-go ``tools/leaderelection``).

Candidates share one Lease. The holder renews ``spec.renewTime`` every ``retry_period``; the
others poll it and take it over once it has not changed for ``leaseDurationSeconds``.

Time: a candidate never compares remote timestamps with its own clock. It records, on its own
monotonic clock, when it last saw the Lease *change* (``observed_at``), and treats the Lease
as expired ``leaseDurationSeconds`` after that. Writes carry the resourceVersion last read, so
of two candidates updating at once one gets a 409 Conflict and loses.

Guarantee, as upstream: with ``renew_deadline < lease_duration``, a leader that cannot renew
stops leading (``lead`` is cancelled) before any other candidate may consider the Lease
expired, provided the clocks run at the same rate. Leadership is not fencing: ``lead`` must
tolerate being cancelled at any await.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import socket
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import LEASES
from minikube_py.clock import Clock, RealClock

JITTER_FACTOR = 1.2  # an acquire retry waits retry_period * (1 + random() * JITTER_FACTOR)
RELEASE_TIMEOUT = 2.0  # seconds a release on shutdown may take

log = logging.getLogger("leaderelection")


class LeadershipLost(Exception):
    """The Lease could not be renewed within ``renew_deadline``; ``lead()`` was cancelled."""


class LeaderElector:
    """One candidate (``identity``) for the Lease ``namespace/name``."""

    def __init__(
        self,
        client: Client,
        *,
        namespace: str,
        name: str,
        identity: str,
        clock: Clock | None = None,
        lease_duration: float = 15.0,
        renew_deadline: float = 10.0,
        retry_period: float = 2.0,
    ) -> None:
        if not identity:
            raise ValueError("leader election identity must not be empty")
        if not lease_duration > renew_deadline > JITTER_FACTOR * retry_period > 0:
            raise ValueError("need lease_duration > renew_deadline > 1.2 * retry_period > 0")
        self._leases = client.resource(LEASES, namespace)
        self._desc = f"{namespace}/{name}"
        self._name = name
        self._namespace = namespace
        self._identity = identity
        self._clock = clock or RealClock()
        self._lease_seconds = math.ceil(lease_duration)
        self._renew_deadline = renew_deadline
        self._retry_period = retry_period
        self._lease: Object | None = None  # the Lease last read or written (its resourceVersion)
        self._observed: dict[str, Any] = {}  # its spec
        self._observed_at = 0.0  # our monotonic time when the spec last changed
        self._leading = False

    def is_leader(self) -> bool:
        """True while ``lead()`` runs and the last observed Lease names this candidate."""
        return self._leading and self._holds()

    async def run(self, lead: Callable[[], Awaitable[None]]) -> None:
        """Acquire the Lease, then run ``lead()`` while renewing it.

        Returns when ``lead()`` returns (re-raises what it raises), after releasing the Lease.
        Raises ``LeadershipLost`` when renewal fails for ``renew_deadline`` (``lead()`` is
        cancelled first). On cancellation ``lead()`` is cancelled and the Lease released
        (holder cleared, ``leaseDurationSeconds`` 1, as upstream ``ReleaseOnCancel``) so
        another candidate takes over at its next retry.
        """
        try:
            await self._acquire()
            self._leading = True
            log.info("%s: %s became leader", self._desc, self._identity)
            async with asyncio.TaskGroup() as tg:
                leading = tg.create_task(_capture(lead))
                renewing = tg.create_task(self._renew())
                await asyncio.wait({leading, renewing}, return_when=asyncio.FIRST_COMPLETED)
                lost = renewing.done()
                leading.cancel()
                renewing.cancel()
        finally:
            self._leading = False
            await self._release()
        if lost:
            log.warning("%s: %s lost leadership", self._desc, self._identity)
            raise LeadershipLost(f"failed to renew lease {self._desc} within {self._renew_deadline}s")
        error = leading.result()
        if error is not None:
            raise error

    async def _acquire(self) -> None:
        while not await self._try_acquire_or_renew():
            await self._clock.sleep(self._retry_period * (1 + random.random() * JITTER_FACTOR))

    async def _renew(self) -> None:
        """Renew every ``retry_period``; return once a renewal did not succeed in time."""
        while True:
            await self._clock.sleep(self._retry_period)
            if not await _within(self._clock, self._renew_deadline, self._renew_until_success()):
                return

    async def _renew_until_success(self) -> bool:
        while not await self._try_acquire_or_renew():
            await self._clock.sleep(self._retry_period)
        return True

    async def _try_acquire_or_renew(self) -> bool:
        """One attempt to create, take over or renew the Lease; True when we hold it now."""
        stamp = _micro_time(self._clock.now())
        desired = {
            "holderIdentity": self._identity,
            "leaseDurationSeconds": self._lease_seconds,
            "acquireTime": stamp,
            "renewTime": stamp,
            "leaseTransitions": 0,
        }
        try:
            lease = await self._leases.get(self._name)
        except ApiError as exc:
            if exc.code != 404:
                log.warning("%s: error retrieving lease: %s", self._desc, exc)
                return False
            return await self._write(self._leases.create(self._new_lease(desired)))
        except Exception as exc:
            log.warning("%s: error retrieving lease: %s", self._desc, exc)
            return False
        self._lease = lease
        spec = lease.get("spec") or {}
        if spec != self._observed:
            self._observed, self._observed_at = spec, self._clock.monotonic()
        if spec.get("holderIdentity") and not self._holds() and self._lease_valid():
            return False
        transitions = int(spec.get("leaseTransitions") or 0)
        if self._holds():
            desired["acquireTime"] = spec.get("acquireTime") or stamp
            desired["leaseTransitions"] = transitions
        else:
            desired["leaseTransitions"] = transitions + 1
        return await self._write(self._leases.update({**lease, "spec": desired}))

    async def _write(self, request: Awaitable[Object]) -> bool:
        """Await a create/update of the Lease; on success it is what we observe."""
        try:
            lease = await request
        except ApiError as exc:
            if exc.code == 409:
                log.debug("%s: conflict writing lease (another candidate won): %s", self._desc, exc)
            else:
                log.warning("%s: error writing lease: %s", self._desc, exc)
            return False
        except Exception as exc:
            log.warning("%s: error writing lease: %s", self._desc, exc)
            return False
        self._lease = lease
        self._observed, self._observed_at = lease.get("spec") or {}, self._clock.monotonic()
        return True

    async def _release(self) -> None:
        """Give the Lease up if we hold it (best effort, within ``RELEASE_TIMEOUT``: shutdown
        must not wait on an apiserver that is gone; the Lease then simply expires)."""
        if not self._holds() or self._lease is None:
            return
        stamp = _micro_time(self._clock.now())
        released = {
            "holderIdentity": "",
            "leaseDurationSeconds": 1,
            "acquireTime": stamp,
            "renewTime": stamp,
            "leaseTransitions": int(self._observed.get("leaseTransitions") or 0),
        }
        update = self._write(self._leases.update({**self._lease, "spec": released}))
        if await _within(self._clock, min(self._renew_deadline, RELEASE_TIMEOUT), update):
            log.info("%s: %s released", self._desc, self._identity)
        else:
            log.warning("%s: %s failed to release the lease", self._desc, self._identity)
            self._observed = {}  # whatever the Lease says now, we no longer lead

    def _holds(self) -> bool:
        return self._observed.get("holderIdentity") == self._identity

    def _lease_valid(self) -> bool:
        seconds = self._observed.get("leaseDurationSeconds") or self._lease_seconds
        return self._observed_at + float(seconds) > self._clock.monotonic()

    def _new_lease(self, spec: dict[str, Any]) -> Object:
        return {
            "apiVersion": LEASES.api_version,
            "kind": "Lease",
            "metadata": {"name": self._name, "namespace": self._namespace},
            "spec": spec,
        }


async def _capture(lead: Callable[[], Awaitable[None]]) -> Exception | None:
    """Run ``lead`` and return (not raise) its error, so it reaches the caller unwrapped."""
    try:
        await lead()
    except Exception as exc:
        return exc
    return None


async def _within(clock: Clock, seconds: float, attempt: Coroutine[Any, Any, bool]) -> bool:
    """``await attempt``, or False if it takes more than ``seconds`` of ``clock`` (it is cancelled)."""
    async with asyncio.TaskGroup() as tg:
        work = tg.create_task(attempt)
        timer = tg.create_task(clock.sleep(seconds))
        work.add_done_callback(lambda _: timer.cancel())
        timer.add_done_callback(lambda _: work.cancel())
    return not work.cancelled() and work.result()


def _micro_time(at: float) -> str:
    """A ``metav1.MicroTime`` (``2006-01-02T15:04:05.000000Z``)."""
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def default_identity() -> str:
    """``<hostname>_<uuid>``, as upstream components name themselves in a Lease."""
    return f"{socket.gethostname()}_{uuid.uuid4()}"


async def run_leader_elected(
    client: Client,
    lead: Callable[[], Awaitable[None]],
    *,
    namespace: str,
    name: str,
    identity: str,
    clock: Clock | None = None,
    enabled: bool = True,
) -> None:
    """Run ``lead`` only while holding the Lease ``namespace/name`` (``enabled`` False: run it
    at once). Losing the Lease stops ``lead`` and the component campaigns again: upstream
    exits and its supervisor restarts it, but in ``up`` there is no supervisor."""
    if not enabled:
        await lead()
        return
    elector = LeaderElector(client, namespace=namespace, name=name, identity=identity, clock=clock)
    while True:
        try:
            await elector.run(lead)
        except LeadershipLost:
            log.error("%s/%s: leadership lost; stopped, campaigning again", namespace, name)
