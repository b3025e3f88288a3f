"""The user a container runs as, from the pod's and the container's ``securityContext``
(upstream ``DetermineEffectiveSecurityContext`` and ``verifyRunAsNonRoot``), and the pod's
hostname (``GeneratePodHostNameAndDomain``)."""

from __future__ import annotations

from typing import Any

import pytest

from nodeagent.pod.containerconfig import container_user
from nodeagent.pod.sync import ConfigError, pod_hostname


def pod(
    pod_sc: dict[str, Any] | None = None, sc: dict[str, Any] | None = None, **spec: Any
) -> dict[str, Any]:
    container = {"name": "c", **({"securityContext": sc} if sc is not None else {})}
    return {
        "metadata": {"name": "web", "namespace": "default", "uid": "u-1"},
        "spec": {"containers": [container], **({"securityContext": pod_sc} if pod_sc else {}), **spec},
    }


@pytest.mark.parametrize(
    ("pod_sc", "sc", "expected"),
    [
        (None, None, (None, None, ())),  # the runtime's non-root default
        ({"runAsUser": 1000, "runAsGroup": 2000}, None, (1000, 2000, ())),
        ({"runAsUser": 1000}, {"runAsUser": 0}, (0, None, ())),  # the container's wins
        ({"runAsUser": 1000}, {"runAsUser": None}, (1000, None, ())),  # but not a null
        (None, {"runAsNonRoot": False}, (0, None, ())),  # asks for the image's user: root
        ({"runAsNonRoot": True}, None, (None, None, ())),
        ({"supplementalGroups": [5, 6], "fsGroup": 7}, None, (None, None, (5, 6, 7))),
        ({"supplementalGroups": [7], "fsGroup": 7}, None, (None, None, (7,))),
    ],
)
def test_the_effective_user(
    pod_sc: dict[str, Any] | None, sc: dict[str, Any] | None, expected: tuple[Any, ...]
) -> None:
    p = pod(pod_sc, sc)
    assert container_user(p, p["spec"]["containers"][0]) == expected


def test_run_as_non_root_refuses_uid_0_from_either_level() -> None:
    p = pod({"runAsNonRoot": True}, {"runAsUser": 0})
    with pytest.raises(ConfigError) as err:
        container_user(p, p["spec"]["containers"][0])
    assert err.value.reason == "CreateContainerConfigError"
    assert str(err.value) == (
        'container\'s runAsUser breaks non-root policy (pod: "web_default(u-1)", container: c)'
    )
    allowed = pod({"runAsNonRoot": True}, {"runAsUser": 0, "runAsNonRoot": False})
    assert container_user(allowed, allowed["spec"]["containers"][0]) == (0, None, ())


def test_the_hostname() -> None:
    assert pod_hostname(pod()) == "web"
    assert pod_hostname(pod(hostname="db-0", subdomain="db")) == "db-0"
    long = {"metadata": {"name": "x" * 62 + "-y-z"}, "spec": {}}
    assert pod_hostname(long) == "x" * 62
