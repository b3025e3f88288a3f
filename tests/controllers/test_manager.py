"""The controller-manager's registry (``--controllers`` selection), flags and per-controller
credentials, against FakeClient and FakeClock."""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

import pytest

from controllers.manager.builtin import builtin_registry
from controllers.manager.credentials import NAMESPACE, ControllerCredentials
from controllers.manager.registry import ControllerRegistry, ControllerSpec, UnknownControllerError
from minikube_py.api.errors import ApiError
from minikube_py.client.config import ClientConfig
from minikube_py.client.resourcetypes import SERVICEACCOUNTS
from minikube_py.clock import FakeClock
from minikube_py.flags import duration_seconds as duration
from minikube_py.testing.fakeclient import FakeClient


def names(flags: list[str]) -> list[str]:
    return [spec.name for spec in builtin_registry().select(flags)]


ALL = [
    "serviceaccount-controller",
    "root-ca-certificate-publisher-controller",
    "namespace-controller",
    "garbage-collector-controller",
    "replicaset-controller",
    "deployment-controller",
    "node-lifecycle-controller",
    "taint-eviction-controller",
    "endpoints-controller",
    "endpointslice-controller",
    "endpointslice-mirroring-controller",
    "replicationcontroller-controller",
    "persistentvolume-binder-controller",
    "local-path-provisioner",
    "persistentvolumeclaim-protection-controller",
    "persistentvolume-protection-controller",
]


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["*"], ALL),
        ([], []),
        (["replicaset-controller"], ["replicaset-controller"]),
        (["*", "-garbage-collector-controller"], [n for n in ALL if n != "garbage-collector-controller"]),
        (["-garbagecollector", "*"], [n for n in ALL if n != "garbage-collector-controller"]),  # old alias
        (["deployment", "replicaset"], ["replicaset-controller", "deployment-controller"]),
    ],
)
def test_controllers_flag_selects_as_upstream(flags: list[str], expected: list[str]) -> None:
    assert names(flags) == expected


def test_an_unknown_controller_is_an_error_naming_the_known_ones() -> None:
    with pytest.raises(UnknownControllerError) as err:
        names(["*", "-nosuch"])
    assert str(err.value).startswith('"nosuch" is not in the list of known controllers: ')
    assert "replicaset-controller" in str(err.value)


def test_a_name_registered_twice_is_refused() -> None:
    spec = builtin_registry().select(["replicaset-controller"])[0]
    registry = ControllerRegistry([spec])
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(ControllerSpec("other", spec.new, "sa", 1, aliases=("replicaset",)))


@pytest.mark.parametrize(
    ("text", "seconds"), [("40s", 40.0), ("1m30s", 90.0), ("500ms", 0.5), ("2h", 7200.0)]
)
def test_durations_are_go_durations(text: str, seconds: float) -> None:
    assert duration(text) == seconds


@pytest.mark.parametrize("text", ["40", "", "s", "1x", "1.5"])
def test_bad_durations_are_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        duration(text)


async def test_each_controller_gets_its_own_service_account_token_renewed_at_80_percent() -> None:
    fake = FakeClient()
    clock = FakeClock(time.time())  # the fake's tokens expire in wall time
    credentials = ControllerCredentials(fake, ClientConfig(server="https://127.0.0.1:1"), clock)
    client = await credentials.client_for("replicaset-controller")
    try:
        assert fake.stored(SERVICEACCOUNTS, NAMESPACE, "replicaset-controller") is not None
        assert client.config.token is not None and client.config.token.startswith("fake-token-kube-system-")
        assert client.config.cert_file is None and client.config.key_file is None
        assert await credentials.client_for("replicaset-controller") is client  # one per account
        requests = lambda: fake.filter_actions("create", "serviceaccounts")  # noqa: E731
        tokens = [a for a in requests() if a.subresource == "token"]
        assert len(tokens) == 1 and tokens[0].body["spec"]["expirationSeconds"] == 3600
        renewing = asyncio.ensure_future(credentials.run())
        await clock.step(0.79 * 3600)
        assert len([a for a in requests() if a.subresource == "token"]) == 1
        await clock.step(0.02 * 3600)
        assert len([a for a in requests() if a.subresource == "token"]) == 2
        header: Any = client._headers["Authorization"]
        assert header.startswith("Bearer fake-token-") and header != f"Bearer {client.config.token}"
        renewing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await renewing
    finally:
        await credentials.close()


async def test_a_token_not_issued_yet_is_retried_with_backoff() -> None:
    """Regression: one failed TokenRequest while the apiserver starts stopped every controller
    (and, in ``up``, the cluster); the credentials now retry 0.5 s, 1 s, ... apart."""
    fake = FakeClient()
    clock = FakeClock(time.time())
    fake.fail("create", "serviceaccounts", ApiError(503, "ServiceUnavailable", "starting"), times=2)
    credentials = ControllerCredentials(fake, ClientConfig(server="https://127.0.0.1:1"), clock)
    getting = asyncio.ensure_future(credentials.client_for("deployment-controller"))
    for _ in range(5):
        await asyncio.sleep(0)  # the first try fails and waits 0.5 s
    await clock.step(0.5)
    assert not getting.done()
    await clock.step(1.0)
    client = await asyncio.wait_for(getting, 1)
    try:
        assert client.config.token is not None and client.config.token.startswith("fake-token-")
    finally:
        await credentials.close()
