"""Container environment: upstream's makeEnvironmentVariables, against a FakeClient."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from minikube_py.client.resourcetypes import CONFIGMAPS, SECRETS, SERVICES
from minikube_py.testing.fakeclient import FakeClient
from nodeagent.envvars import (
    CreateContainerConfigError,
    expand,
    make_environment_variables,
    mapping_for,
)
from nodeagent.serviceenv import service_env

ALLOCATABLE = {"cpu": "4", "memory": "8Gi"}


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def pod(container: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {
            "name": "web",
            "namespace": "default",
            "uid": "uid-1",
            "labels": {"app": "web"},
            "annotations": {"team": "blue"},
        },
        "spec": {"nodeName": "node-1", "serviceAccountName": "sa", "containers": [container], **spec},
    }


def service(name: str, namespace: str, ip: str, *ports: dict[str, Any]) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterIP": ip, "ports": list(ports)},
    }


@pytest.fixture
def client() -> FakeClient:
    fake = FakeClient()
    fake.seed(
        CONFIGMAPS, {"metadata": {"name": "cfg", "namespace": "default"}, "data": {"A": "1", "b-c": "2"}}
    )
    fake.seed(SECRETS, {"metadata": {"name": "sec", "namespace": "default"}, "data": {"PW": b64("s3cret")}})
    return fake


async def env_of(client: FakeClient, container: dict[str, Any], **kwargs: Any) -> list[tuple[str, str]]:
    return await make_environment_variables(
        client,
        kwargs.pop("pod", None) or pod(container),
        container,
        pod_ip="127.1.0.5",
        host_ip="10.0.0.1",
        node_allocatable=ALLOCATABLE,
        services=kwargs.pop("services", []),
        **kwargs,
    )


@pytest.mark.parametrize(
    ("text", "context", "want"),
    [
        ("$(A)-x", {"A": "1"}, "1-x"),
        ("$(MISSING)", {}, "$(MISSING)"),
        ("$$(A)", {"A": "1"}, "$(A)"),
        ("$$$(A)", {"A": "1"}, "$1"),
        ("a$b", {}, "a$b"),
        ("$(A", {"A": "1"}, "$(A"),
        ("tail$", {}, "tail$"),
        ("$(A)$(B)", {"A": "1", "B": "2"}, "12"),
        ("$()", {}, "$()"),
    ],
)
def test_expand_as_upstream(text: str, context: dict[str, str], want: str) -> None:
    assert expand(text, mapping_for(context)) == want


@pytest.mark.parametrize(
    ("env", "want"),
    [
        ([{"name": "X", "value": "plain"}], {"X": "plain"}),
        ([{"name": "A", "value": "a"}, {"name": "B", "value": "$(A)-b"}], {"A": "a", "B": "a-b"}),
        ([{"name": "B", "value": "$(A)-b"}, {"name": "A", "value": "a"}], {"A": "a", "B": "$(A)-b"}),
        ([{"name": "E", "value": ""}], {"E": ""}),
        ([{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}], {"N": "web"}),
        ([{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}}], {"N": "default"}),
        ([{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.uid"}}}], {"N": "uid-1"}),
        ([{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}}], {"N": "web"}),
        (
            [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.annotations['team']"}}}],
            {"N": "blue"},
        ),
        ([{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}], {"N": "node-1"}),
        ([{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "spec.serviceAccountName"}}}], {"N": "sa"}),
        ([{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}], {"N": "127.1.0.5"}),
        ([{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "status.podIPs"}}}], {"N": "127.1.0.5"}),
        ([{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "status.hostIP"}}}], {"N": "10.0.0.1"}),
        ([{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "status.hostIPs"}}}], {"N": "10.0.0.1"}),
        ([{"name": "C", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "A"}}}], {"C": "1"}),
        ([{"name": "S", "valueFrom": {"secretKeyRef": {"name": "sec", "key": "PW"}}}], {"S": "s3cret"}),
        ([{"name": "O", "valueFrom": {"configMapKeyRef": {"name": "no", "key": "A", "optional": True}}}], {}),
        (
            [{"name": "O", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "Z", "optional": True}}}],
            {},
        ),
        ([{"name": "O", "valueFrom": {"secretKeyRef": {"name": "no", "key": "A", "optional": True}}}], {}),
        ([{"name": "O", "valueFrom": {"secretKeyRef": {"name": "sec", "key": "Z", "optional": True}}}], {}),
    ],
)
async def test_env_values(client: FakeClient, env: list[dict[str, Any]], want: dict[str, str]) -> None:
    assert dict(await env_of(client, {"name": "c", "env": env})) == want


def resource_env(resource: str, divisor: str | None = None) -> list[dict[str, Any]]:
    ref: dict[str, Any] = {"resource": resource}
    if divisor:
        ref["divisor"] = divisor
    return [{"name": "R", "valueFrom": {"resourceFieldRef": ref}}]


@pytest.mark.parametrize(
    ("resources", "resource", "divisor", "want"),
    [
        ({"limits": {"cpu": "500m"}}, "limits.cpu", None, "1"),
        ({"limits": {"cpu": "500m"}}, "limits.cpu", "1m", "500"),
        ({"limits": {"cpu": "2"}}, "limits.cpu", None, "2"),
        ({}, "limits.cpu", None, "4"),  # node allocatable stands in for an unset limit
        ({}, "limits.memory", "1Mi", "8192"),
        ({"limits": {"memory": "64Mi"}}, "limits.memory", None, str(64 * 2**20)),
        ({"limits": {"memory": "64Mi"}}, "limits.memory", "1Mi", "64"),
        ({"requests": {"memory": "1500k"}}, "requests.memory", "1M", "2"),
        ({"requests": {"cpu": "250m"}}, "requests.cpu", None, "1"),
        ({}, "requests.cpu", None, "0"),
    ],
)
async def test_resource_field_ref(
    client: FakeClient, resources: dict[str, Any], resource: str, divisor: str | None, want: str
) -> None:
    container = {"name": "c", "resources": resources, "env": resource_env(resource, divisor)}
    assert dict(await env_of(client, container)) == {"R": want}


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            [{"name": "C", "valueFrom": {"configMapKeyRef": {"name": "nope", "key": "A"}}}],
            'configmap "nope" not found',
        ),
        (
            [{"name": "C", "valueFrom": {"secretKeyRef": {"name": "nope", "key": "A"}}}],
            'secret "nope" not found',
        ),
        (
            [{"name": "C", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "k"}}}],
            "couldn't find key k in ConfigMap default/cfg",
        ),
        (
            [{"name": "C", "valueFrom": {"secretKeyRef": {"name": "sec", "key": "k"}}}],
            "couldn't find key k in Secret default/sec",
        ),
        (
            [{"name": "F", "valueFrom": {"fieldRef": {"fieldPath": "spec.nosuch"}}}],
            "field label not supported: spec.nosuch",
        ),
        (resource_env("limits.gpu"), "unsupported container resource : limits.gpu"),
    ],
)
async def test_env_errors(client: FakeClient, env: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(CreateContainerConfigError) as caught:
        await env_of(client, {"name": "c", "env": env})
    assert str(caught.value) == message
    assert caught.value.reason == "CreateContainerConfigError"


async def test_env_from_with_prefix_skips_invalid_keys_and_env_wins(client: FakeClient) -> None:
    warnings: list[str] = []
    container = {
        "name": "c",
        "envFrom": [
            {"configMapRef": {"name": "cfg"}},
            {"secretRef": {"name": "sec"}, "prefix": "S_"},
            {"configMapRef": {"name": "absent", "optional": True}},
            {"configMapRef": {"name": "cfg"}, "prefix": "1"},
        ],
        "env": [{"name": "A", "value": "override-$(S_PW)"}],
    }
    env = await env_of(client, container, warnings=warnings)
    assert env == [("A", "override-s3cret"), ("b-c", "2"), ("S_PW", "s3cret")]
    assert warnings == [
        "Keys [1A, 1b-c] from the EnvFrom configMap default/cfg were skipped since they are considered "
        "invalid environment variable names."
    ]


async def test_env_from_missing_config_map_is_an_error(client: FakeClient) -> None:
    with pytest.raises(CreateContainerConfigError, match='configmap "gone" not found'):
        await env_of(client, {"name": "c", "envFrom": [{"configMapRef": {"name": "gone"}}]})


SERVICES_SEEN = [
    service("kubernetes", "default", "127.96.0.1", {"name": "https", "port": 443, "protocol": "TCP"}),
    service(
        "my-db", "shop", "127.96.0.7", {"port": 5432}, {"name": "metrics", "port": 9187, "protocol": "UDP"}
    ),
    service("headless", "shop", "None", {"port": 80}),
    service("other", "elsewhere", "127.96.0.9", {"port": 80}),
]


def test_service_env_as_docker_links() -> None:
    env = service_env(SERVICES_SEEN, "shop")
    assert env["MY_DB_SERVICE_HOST"] == "127.96.0.7"
    assert env["MY_DB_SERVICE_PORT"] == "5432"
    assert env["MY_DB_SERVICE_PORT_METRICS"] == "9187"
    assert env["MY_DB_PORT"] == "tcp://127.96.0.7:5432"
    assert env["MY_DB_PORT_5432_TCP"] == "tcp://127.96.0.7:5432"
    assert env["MY_DB_PORT_5432_TCP_PROTO"] == "tcp"
    assert env["MY_DB_PORT_5432_TCP_PORT"] == "5432"
    assert env["MY_DB_PORT_5432_TCP_ADDR"] == "127.96.0.7"
    assert env["MY_DB_PORT_9187_UDP"] == "udp://127.96.0.7:9187"
    assert env["KUBERNETES_SERVICE_HOST"] == "127.96.0.1"
    assert env["KUBERNETES_SERVICE_PORT_HTTPS"] == "443"
    assert not [k for k in env if k.startswith(("HEADLESS_", "OTHER_"))]


def test_service_links_disabled_keeps_the_kubernetes_service() -> None:
    env = service_env(SERVICES_SEEN, "shop", enable_service_links=False)
    assert {k.split("_")[0] for k in env} == {"KUBERNETES"}


def test_ipv6_cluster_ip_is_bracketed() -> None:
    env = service_env([service("v6", "ns", "fd00::1", {"port": 80})], "ns")
    assert env["V6_PORT"] == "tcp://[fd00::1]:80"


async def test_service_env_appended_after_declared_and_expandable(client: FakeClient) -> None:
    container = {"name": "c", "env": [{"name": "URL", "value": "https://$(KUBERNETES_SERVICE_HOST)"}]}
    env = await env_of(client, container, services=SERVICES_SEEN)
    assert env[0] == ("URL", "https://127.96.0.1")
    assert ("KUBERNETES_SERVICE_PORT", "443") in env
    assert not [k for k, _ in env if k.startswith("MY_DB")]


async def test_services_listed_through_the_client_when_not_passed(client: FakeClient) -> None:
    client.seed(SERVICES, *SERVICES_SEEN)
    container = {"name": "c"}
    shop_pod = pod(container)
    shop_pod["metadata"]["namespace"] = "shop"
    env = dict(
        await make_environment_variables(
            client, shop_pod, container, pod_ip="127.1.0.5", host_ip="10.0.0.1", node_allocatable={}
        )
    )
    assert env["MY_DB_SERVICE_HOST"] == "127.96.0.7"
    assert env["KUBERNETES_SERVICE_HOST"] == "127.96.0.1"
    assert "OTHER_SERVICE_HOST" not in env


async def test_config_map_read_once_per_call(client: FakeClient) -> None:
    env = [
        {"name": "X", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "A"}}},
        {"name": "Y", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "b-c"}}},
    ]
    assert dict(
        await env_of(client, {"name": "c", "env": env, "envFrom": [{"configMapRef": {"name": "cfg"}}]})
    ) == {
        "A": "1",
        "b-c": "2",
        "X": "1",
        "Y": "2",
    }
    assert len(client.filter_actions("get", "configmaps")) == 1
