"""Running one probe once (upstream ``prober.runProbe``): exec, httpGet or tcpSocket.

``run_probe(probe, container, pod_ip, runtime, container_id)`` answers ``(success, output)``:

- **exec**: the command in the container (``exec_sync``); success is exit code 0; the output
  (stdout and stderr) explains a failure;
- **httpGet**: ``scheme://host:port/path`` (host defaults to the pod IP, port may name a
  container port, HTTPS is not verified, headers as given); success is a status in 200-399,
  a failure says ``HTTP probe failed with statuscode: 503`` or why it could not connect;
- **tcpSocket**: a TCP connection to ``host:port`` opens within the timeout.

On the ``fake`` runtime nothing listens, so httpGet and tcpSocket probes are answered by the
runtime's scripted probe result (``exec_sync``, see ``FAKE_PROBE_FAIL``), like exec ones.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from minikube_py.api.unstructured import Object
from nodeagent.runtime.interface import ContainerRuntime, ExecTimeoutError, RuntimeError_


async def run_probe(
    probe: Object, container: Object, pod_ip: str, runtime: ContainerRuntime, container_id: str
) -> tuple[bool, str]:
    timeout = float(probe.get("timeoutSeconds") or 1)
    if "exec" in probe or runtime.name == "fake":
        command = (probe.get("exec") or {}).get("command") or ["probe"]
        return await _exec(runtime, container_id, command, timeout)
    if "httpGet" in probe:
        return await _http_get(probe["httpGet"], container, pod_ip, timeout)
    if "tcpSocket" in probe:
        return await _tcp(probe["tcpSocket"], container, pod_ip, timeout)
    return False, "missing probe handler"


async def _exec(
    runtime: ContainerRuntime, container_id: str, command: list[str], timeout: float
) -> tuple[bool, str]:
    try:
        result = await runtime.exec_sync(container_id, command, timeout)
    except ExecTimeoutError:
        return False, f"command {_go_list(command)} timed out"
    except RuntimeError_ as err:
        return False, str(err)
    output = (result.stdout + result.stderr).decode(errors="replace")
    return result.exit_code == 0, output


async def _http_get(action: Object, container: Object, pod_ip: str, timeout: float) -> tuple[bool, str]:
    port = resolve_port(action.get("port"), container)
    scheme = str(action.get("scheme") or "HTTP").lower()
    host = action.get("host") or pod_ip
    path = action.get("path") or "/"
    url = f"{scheme}://{_host_port(host, port)}{path if path.startswith('/') else '/' + path}"
    headers = {h["name"]: h.get("value", "") for h in action.get("httpHeaders") or []}
    headers.setdefault("User-Agent", "kube-probe/1.32")
    try:
        async with httpx.AsyncClient(verify=False, timeout=timeout, trust_env=False) as client:
            response = await client.get(url, headers=headers)
    except httpx.TimeoutException:
        return (
            False,
            f'Get "{url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
        )
    except httpx.HTTPError as err:
        return False, f'Get "{url}": {_describe(err)}'
    if 200 <= response.status_code < 400:
        return True, ""
    return False, f"HTTP probe failed with statuscode: {response.status_code}"


async def _tcp(action: Object, container: Object, pod_ip: str, timeout: float) -> tuple[bool, str]:
    port = resolve_port(action.get("port"), container)
    host = action.get("host") or pod_ip
    try:
        _reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except (OSError, TimeoutError) as err:
        return False, f"dial tcp {_host_port(host, port)}: {_describe(err)}"
    writer.close()
    return True, ""


def resolve_port(port: Any, container: Object) -> int:
    """A probe's port: a number, or the name of one of the container's ports."""
    if isinstance(port, int):
        return port
    if isinstance(port, str) and port.isdigit():
        return int(port)
    for each in container.get("ports") or []:
        if each.get("name") == port:
            return int(each["containerPort"])
    return -1


def _host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _describe(err: BaseException) -> str:
    if isinstance(err, ConnectionRefusedError) or "refused" in str(err).lower():
        return "connect: connection refused"
    if isinstance(err, TimeoutError):
        return "i/o timeout"
    return str(err) or type(err).__name__


def _go_list(items: list[str]) -> str:
    return "[" + " ".join(items) + "]"
