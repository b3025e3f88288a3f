"""Pods started directly on a ``FakeRuntime``, labelled as the pod manager labels them."""

from __future__ import annotations

from collections.abc import Mapping

from nodeagent.pod.runtimestatus import (
    LABEL_CONTAINER_NAME,
    LABEL_POD_NAME,
    LABEL_POD_NAMESPACE,
    LABEL_POD_UID,
)
from nodeagent.runtime.fake import FakeRuntime
from nodeagent.runtime.interface import ContainerConfig, PodSandboxConfig


async def start_pod(
    runtime: FakeRuntime,
    name: str,
    containers: Mapping[str, Mapping[str, str]],
    *,
    namespace: str = "default",
    attempt: int = 0,
    log_directory: str = "",
    uid: str = "",
) -> dict[str, str]:
    """Start pod ``name`` (uid ``uid`` or ``uid-<name>``) with ``containers`` (name -> env); returns the
    container ids by name."""
    uid = uid or f"uid-{name}"
    sandbox = await runtime.run_pod_sandbox(PodSandboxConfig(uid, name, namespace))
    ids = {}
    for container, env in containers.items():
        labels = {
            LABEL_POD_UID: uid,
            LABEL_POD_NAME: name,
            LABEL_POD_NAMESPACE: namespace,
            LABEL_CONTAINER_NAME: container,
        }
        log_path = f"{log_directory}/{container}/{attempt}.log" if log_directory else ""
        config = ContainerConfig(
            container,
            "img",
            ["run"],
            env=list(env.items()),
            attempt=attempt,
            labels=labels,
            log_path=log_path,
        )
        ids[container] = await runtime.create_container(sandbox, config)
        await runtime.start_container(ids[container])
    return ids
