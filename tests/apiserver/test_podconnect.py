"""pods/log, exec, attach and portforward in process: options, containers, nodes and the
upstream Status for each refusal (see apiserver/endpoints/podconnect.py)."""

from __future__ import annotations

import socket
from typing import Any

import httpx
import pytest

from apiserver.endpoints.podconnect import validate_container
from apiserver.nodeproxy import preferred_address
from minikube_py.api import errors

NS = "/api/v1/namespaces/default"
UPGRADE = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1"}
CONNECT = ("exec", "attach", "portforward")


def pod(name: str, *containers: str, node: str = "", **spec: Any) -> dict[str, Any]:
    spec["containers"] = [{"name": c, "image": "i"} for c in containers]
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def node(name: str, addresses: list[dict[str, str]], port: int = 0) -> dict[str, Any]:
    status: dict[str, Any] = {"addresses": addresses}
    if port:
        status["daemonEndpoints"] = {"kubeletEndpoint": {"Port": port}}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "status": status}


async def create(api: httpx.AsyncClient, obj: dict[str, Any]) -> None:
    path = "/api/v1/nodes" if obj["kind"] == "Node" else f"{NS}/pods"
    response = await api.post(path, json=obj)
    assert response.status_code == 201, response.text


def refused(response: httpx.Response, code: int, message: str, reason: str = "BadRequest") -> None:
    body = response.json()
    assert (response.status_code, body["kind"], body["reason"]) == (code, "Status", reason), body
    assert body["message"] == message


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# the pod and the options


async def test_a_missing_pod_is_not_found_for_every_subresource(api: httpx.AsyncClient) -> None:
    refused(await api.get(f"{NS}/pods/nope/log"), 404, 'pods "nope" not found', "NotFound")
    for sub in CONNECT:
        refused(await api.post(f"{NS}/pods/nope/{sub}"), 404, 'pods "nope" not found', "NotFound")


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("tailLines=ten", 'strconv.ParseInt: parsing "ten": invalid syntax'),
        ("sinceSeconds=1.5", 'strconv.ParseInt: parsing "1.5": invalid syntax'),
        (
            "limitBytes=99999999999999999999",
            'strconv.ParseInt: parsing "99999999999999999999": value out of range',
        ),
        ("tailLines=", 'strconv.ParseInt: parsing "": invalid syntax'),
        (
            "sinceTime=yesterday",
            'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
        ),
        ("sinceTime=2024-13-01T00:00:00Z", 'parsing time "2024-13-01T00:00:00Z": month out of range'),
        ("sinceTime=2024-02-30T00:00:00Z", 'parsing time "2024-02-30T00:00:00Z": day out of range'),
        (
            "sinceTime=2024-01-01T00:00:00",
            'parsing time "2024-01-01T00:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"',
        ),
        # the first of a repeated parameter counts, and conversion runs in upstream's field order
        ("tailLines=x&tailLines=1", 'strconv.ParseInt: parsing "x": invalid syntax'),
        ("limitBytes=a&sinceSeconds=b", 'strconv.ParseInt: parsing "b": invalid syntax'),
    ],
)
async def test_log_options_that_do_not_convert_are_400s(
    api: httpx.AsyncClient, query: str, message: str
) -> None:
    await create(api, pod("web", "app"))
    refused(await api.get(f"{NS}/pods/web/log?{query}"), 400, message)


@pytest.mark.parametrize(
    ("query", "causes"),
    [
        ("tailLines=-1", [("tailLines", "Invalid value: -1: must be greater than or equal to 0")]),
        ("limitBytes=0", [("limitBytes", "Invalid value: 0: must be greater than 0")]),
        ("sinceSeconds=0", [("sinceSeconds", "Invalid value: 0: must be greater than 0")]),
        (
            "sinceSeconds=10&sinceTime=2024-01-01T00:00:00Z",
            [("", "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified")],
        ),
        (  # an empty sinceTime is the zero time, still a sinceTime
            "sinceSeconds=-5&sinceTime=",
            [("", "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified")],
        ),
        (
            "tailLines=-2&limitBytes=-3",
            [
                ("tailLines", "Invalid value: -2: must be greater than or equal to 0"),
                ("limitBytes", "Invalid value: -3: must be greater than 0"),
            ],
        ),
    ],
)
async def test_invalid_log_options_are_422s_even_for_a_missing_pod(
    api: httpx.AsyncClient, query: str, causes: list[tuple[str, str]]
) -> None:
    response = await api.get(f"{NS}/pods/ghost/log?{query}")  # validated before the pod is read
    listed = [f"{f}: {m}" for f, m in causes]
    summary = listed[0] if len(listed) == 1 else "[" + ", ".join(listed) + "]"
    refused(response, 422, f'PodLogOptions "ghost" is invalid: {summary}', "Invalid")
    details = response.json()["details"]
    assert (details["name"], details["kind"]) == ("ghost", "PodLogOptions")
    assert [(c.get("field", ""), c["message"]) for c in details["causes"]] == causes


async def test_flags_follow_gos_bool_conversion(api: httpx.AsyncClient) -> None:
    await create(api, pod("web", "app"))
    for value in ("true", "1", "yes", "", "FALSE", "0"):  # only 0 and false are false; nothing fails
        assert (await api.get(f"{NS}/pods/web/log?follow={value}&timestamps={value}")).status_code == 204


# containers (upstream's validateContainer)


async def test_a_container_must_be_named_when_the_pod_has_several(api: httpx.AsyncClient) -> None:
    await create(api, pod("web", "a", "b", initContainers=[{"name": "init", "image": "i"}]))
    message = "a container name must be specified for pod web, choose one of: [init a b]"
    refused(await api.get(f"{NS}/pods/web/log"), 400, message)
    refused(await api.post(f"{NS}/pods/web/exec?command=ls"), 400, message)
    refused(await api.post(f"{NS}/pods/web/attach"), 400, message)


async def test_an_unknown_container_is_not_valid(api: httpx.AsyncClient) -> None:
    await create(api, pod("web", "a", "b"))
    refused(await api.get(f"{NS}/pods/web/log?container=x"), 400, "container x is not valid for pod web")
    refused(
        await api.post(f"{NS}/pods/web/exec?container=x&command=ls"),
        400,
        "container x is not valid for pod web",
    )


async def test_init_and_only_containers_are_valid_choices(api: httpx.AsyncClient) -> None:
    await create(api, pod("web", "app", initContainers=[{"name": "init", "image": "i"}]))
    assert (await api.get(f"{NS}/pods/web/log")).status_code == 204  # the only regular container
    assert (await api.get(f"{NS}/pods/web/log?container=init")).status_code == 204
    assert (await api.get(f"{NS}/pods/web/log?container=app")).status_code == 204


def test_container_choice_lists_ephemeral_containers_last() -> None:
    spec = {
        "initContainers": [{"name": "i"}],
        "containers": [{"name": "a"}, {"name": "b"}],
        "ephemeralContainers": [{"name": "e"}],
    }
    obj = {"metadata": {"name": "web"}, "spec": spec}
    with pytest.raises(errors.ApiError, match=r"choose one of: \[i a b e\]$"):
        validate_container("", obj)
    assert validate_container("e", obj) == "e"
    with pytest.raises(errors.ApiError, match=r"^a container name must be specified for pod web$"):
        validate_container("", {"metadata": {"name": "web"}, "spec": {"containers": []}})


# a pod not bound to a node


async def test_the_log_of_an_unbound_pod_is_no_content(api: httpx.AsyncClient) -> None:
    await create(api, pod("web", "app"))
    response = await api.get(f"{NS}/pods/web/log?follow=true")
    assert (response.status_code, response.content) == (204, b"")  # upstream's LocationStreamer


@pytest.mark.parametrize("sub", CONNECT)
async def test_connecting_to_an_unbound_pod_is_refused(api: httpx.AsyncClient, sub: str) -> None:
    await create(api, pod("web", "app"))
    refused(
        await api.post(f"{NS}/pods/web/{sub}", headers=UPGRADE), 400, "pod web does not have a host assigned"
    )
    refused(await api.get(f"{NS}/pods/web/{sub}"), 400, "pod web does not have a host assigned")


async def test_exec_without_a_command_is_left_to_the_node_agent(api: httpx.AsyncClient) -> None:
    # upstream's apiserver requires no command (nor a stream); kubectl and the kubelet do
    await create(api, pod("web", "app"))
    refused(await api.post(f"{NS}/pods/web/exec"), 400, "pod web does not have a host assigned")


@pytest.mark.parametrize("sub", CONNECT)
async def test_dry_run_is_not_supported_for_connections(api: httpx.AsyncClient, sub: str) -> None:
    await create(api, pod("web", "app"))
    refused(await api.post(f"{NS}/pods/web/{sub}?dryRun=All&command=ls"), 400, "dryRun is not supported")


@pytest.mark.parametrize(
    ("ports", "message"),
    [
        ("http", 'cannot convert to []int32: strconv.ParseUint: parsing "http": invalid syntax'),
        ("80,70000", 'cannot convert to []int32: strconv.ParseUint: parsing "70000": value out of range'),
        ("80,", 'cannot convert to []int32: strconv.ParseUint: parsing "": invalid syntax'),
    ],
)
async def test_portforward_ports_that_do_not_convert_are_400s(
    api: httpx.AsyncClient, ports: str, message: str
) -> None:
    await create(api, pod("web", "app"))
    refused(await api.post(f"{NS}/pods/web/portforward?ports={ports}"), 400, message)


@pytest.mark.parametrize(("method", "sub"), [("POST", "log"), ("PUT", "exec"), ("DELETE", "portforward")])
async def test_other_methods_are_not_allowed(api: httpx.AsyncClient, method: str, sub: str) -> None:
    await create(api, pod("web", "app"))
    response = await api.request(method, f"{NS}/pods/web/{sub}")
    assert (response.status_code, response.json()["reason"]) == (405, "MethodNotAllowed")


# a pod bound to a node


async def test_a_missing_node_is_not_found(api: httpx.AsyncClient) -> None:
    await create(api, pod("web", "app", node="n1"))
    refused(await api.get(f"{NS}/pods/web/log"), 404, 'nodes "n1" not found', "NotFound")
    refused(
        await api.post(f"{NS}/pods/web/exec?command=ls", headers=UPGRADE),
        404,
        'nodes "n1" not found',
        "NotFound",
    )


async def test_a_node_without_a_preferred_address_is_an_internal_error(api: httpx.AsyncClient) -> None:
    await create(api, node("n1", [{"type": "Other", "address": "x"}]))
    await create(api, pod("web", "app", node="n1"))
    message = "no preferred addresses found; known addresses: [{Other x}]"
    refused(await api.get(f"{NS}/pods/web/log"), 500, message, reason="")
    refused(await api.post(f"{NS}/pods/web/portforward"), 500, message, reason="")


def test_preferred_address_order_is_upstreams_default() -> None:
    addresses = [
        {"type": "ExternalIP", "address": "203.0.113.1"},
        {"type": "InternalIP", "address": "10.0.0.1"},
        {"type": "InternalDNS", "address": "n1.internal"},
        {"type": "Hostname", "address": "n1"},
    ]
    order = ("Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP")
    picked = [preferred_address(addresses[i:], order) for i in range(len(addresses))]
    assert picked == ["n1", "n1", "n1", "n1"]
    assert preferred_address(addresses[:3], order) == "n1.internal"
    assert preferred_address(addresses[:2], order) == "10.0.0.1"
    with pytest.raises(errors.ApiError, match=r"known addresses: \[\]$"):
        preferred_address([], order)


@pytest.mark.parametrize(
    "path",
    ["exec?container=app&command=ls", "exec", "attach?stdin=true", "portforward?ports=80", "portforward"],
)
@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_a_connection_that_is_not_an_upgrade_is_refused(
    api: httpx.AsyncClient, path: str, method: str
) -> None:
    await create(api, node("n1", [{"type": "InternalIP", "address": "127.0.0.1"}], closed_port()))
    await create(api, pod("web", "app", node="n1"))
    refused(await api.request(method, f"{NS}/pods/web/{path}"), 400, "Upgrade request required")


@pytest.mark.parametrize("sub", ["exec?command=ls", "attach?stdout=1", "portforward?ports=8080"])
async def test_an_upgrade_to_an_unreachable_node_agent_is_upstreams_dial_error(
    api: httpx.AsyncClient, sub: str
) -> None:
    port = closed_port()
    await create(api, node("n1", [{"type": "InternalIP", "address": "127.0.0.1"}], port))
    await create(api, pod("web", "app", node="n1"))
    message = f"error dialing backend: dial tcp 127.0.0.1:{port}: connect: connection refused"
    refused(await api.post(f"{NS}/pods/web/{sub}", headers=UPGRADE), 500, message, reason="")
    websocket = {
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Protocol": "v5.channel.k8s.io",
    }
    refused(await api.get(f"{NS}/pods/web/{sub}", headers=websocket), 500, message, reason="")


async def test_the_log_of_a_pod_on_an_unreachable_node_is_upstreams_dial_error(
    api: httpx.AsyncClient,
) -> None:
    port = closed_port()
    await create(api, node("n1", [{"type": "InternalIP", "address": "127.0.0.1"}], port))
    await create(api, pod("web", "app", node="n1"))
    url = f"https://127.0.0.1:{port}/containerLogs/default/web/app?tailLines=3"
    message = f'Get "{url}": dial tcp 127.0.0.1:{port}: connect: connection refused'
    refused(await api.get(f"{NS}/pods/web/log?tailLines=3"), 500, message, reason="")


async def test_a_node_without_a_kubelet_port_is_dialled_on_10250(api: httpx.AsyncClient) -> None:
    await create(api, node("n1", [{"type": "InternalIP", "address": "127.0.0.1"}]))
    await create(api, pod("web", "app", node="n1"))
    message = (await api.get(f"{NS}/pods/web/log")).json()["message"]
    assert message.startswith('Get "https://127.0.0.1:10250/containerLogs/default/web/app": ')
