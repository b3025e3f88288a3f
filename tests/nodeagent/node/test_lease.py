"""The node Lease against the FakeClient."""

from __future__ import annotations

import pytest

from minikube_py.api import errors
from minikube_py.client.resourcetypes import LEASES
from minikube_py.testing.fakeclient import FakeClient
from nodeagent.node.lease import (
    LEASE_DURATION_SECONDS,
    NODE_LEASE_NAMESPACE,
    NodeLease,
    lease_backoff,
    micro_time,
)

NOW = 1_800_000_000.0


def stored(fake: FakeClient) -> dict[str, object]:
    lease = fake.stored(LEASES, NODE_LEASE_NAMESPACE, "node-1")
    assert lease is not None
    return lease


async def test_creates_lease_owned_by_node() -> None:
    fake = FakeClient()
    await NodeLease(fake, "node-1", lambda: "uid-1").renew(NOW)
    lease = stored(fake)
    assert lease["spec"] == {
        "holderIdentity": "node-1",
        "leaseDurationSeconds": LEASE_DURATION_SECONDS,
        "renewTime": micro_time(NOW),
    }
    assert lease["metadata"]["ownerReferences"] == [  # type: ignore[index]
        {"apiVersion": "v1", "kind": "Node", "name": "node-1", "uid": "uid-1"}
    ]


async def test_renewal_updates_with_latest_lease() -> None:
    fake = FakeClient()
    lease = NodeLease(fake, "node-1", lambda: "uid-1")
    await lease.renew(NOW)
    fake.clear_actions()
    await lease.renew(NOW + 10)
    assert [(a.verb, a.resource) for a in fake.actions] == [("update", "leases")]
    assert stored(fake)["spec"]["renewTime"] == micro_time(NOW + 10)  # type: ignore[index]


@pytest.mark.parametrize(
    ("disturb", "verbs"),
    [
        ("delete", ["update", "get", "create"]),  # deleted: recreated
        ("conflict", ["update", "get", "update"]),  # changed by someone: read again
    ],
)
async def test_recovers(disturb: str, verbs: list[str]) -> None:
    fake = FakeClient()
    lease = NodeLease(fake, "node-1", lambda: "uid-1")
    await lease.renew(NOW)
    leases = fake.resource(LEASES, NODE_LEASE_NAMESPACE)
    if disturb == "delete":
        await leases.delete("node-1")
    else:
        await leases.patch("node-1", {"metadata": {"labels": {"x": "y"}}})
    fake.clear_actions()
    await lease.renew(NOW + 10)
    assert [a.verb for a in fake.actions] == verbs
    assert stored(fake)["spec"]["renewTime"] == micro_time(NOW + 10)  # type: ignore[index]


async def test_owner_added_once_node_uid_known() -> None:
    fake, uid = FakeClient(), [""]
    lease = NodeLease(fake, "node-1", lambda: uid[0])
    await lease.renew(NOW)
    assert "ownerReferences" not in stored(fake)["metadata"]  # type: ignore[operator]
    uid[0] = "uid-2"
    await lease.renew(NOW + 10)
    assert stored(fake)["metadata"]["ownerReferences"][0]["uid"] == "uid-2"  # type: ignore[index]


async def test_failure_raises() -> None:
    fake = FakeClient()
    fake.fail("get", "leases", errors.internal("boom"))
    with pytest.raises(errors.ApiError):
        await NodeLease(fake, "node-1", lambda: "").renew(NOW)


@pytest.mark.parametrize(
    ("failures", "seconds"), [(1, 0.2), (2, 0.4), (3, 0.8), (6, 6.4), (7, 7.0), (30, 7.0)]
)
def test_backoff(failures: int, seconds: float) -> None:
    assert lease_backoff(failures) == pytest.approx(seconds)
