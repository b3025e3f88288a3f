"""PodSyncer with the fake runtime and a stub environment: a running pod's volumes are refreshed
on every sync (a failure is a FailedMount event, the containers keep running), and an ephemeral
container is started once, with its target's runtime id."""

from __future__ import annotations

from minikube_py.api.unstructured import Object
from minikube_py.clock import FakeClock
from minikube_py.events import FakeRecorder
from nodeagent.pod.runtimestatus import LABEL_CONTAINER_NAME, LABEL_POD_UID, PodRuntimeStatus, group_by_pod
from nodeagent.pod.sync import PodSyncer, VolumeError
from nodeagent.runtime.fake import FakeRuntime
from nodeagent.runtime.interface import ContainerConfig, ContainerState
from tests.nodeagent.pod.builders import UID, make_pod


class Environment:
    """Records what the syncer asks; ``refresh_error`` makes the next refreshes fail."""

    def __init__(self) -> None:
        self.prepared = self.refreshed = 0
        self.refresh_error = ""
        self.configs: list[ContainerConfig] = []

    async def prepare_pod(self, pod: Object) -> None:
        self.prepared += 1

    async def refresh_pod(self, pod: Object) -> None:
        self.refreshed += 1
        if self.refresh_error:
            raise VolumeError(self.refresh_error)

    async def container_config(
        self, pod: Object, container: Object, *, pod_ip: str, attempt: int, log_directory: str
    ) -> ContainerConfig:
        labels = {LABEL_POD_UID: UID, LABEL_CONTAINER_NAME: container["name"]}
        config = ContainerConfig(
            container["name"], container["image"], ["sleep"], attempt=attempt, labels=labels
        )
        self.configs.append(config)
        return config

    def log_directory(self, pod: Object) -> str:
        return ""

    async def cleanup_pod(self, pod: Object) -> None:
        pass


class RecordingRuntime(FakeRuntime):
    """The fake runtime, keeping every config it was asked to create."""

    created: list[ContainerConfig]

    async def create_container(self, sandbox_id: str, config: ContainerConfig) -> str:
        self.created = [*getattr(self, "created", []), config]
        return await super().create_container(sandbox_id, config)


async def status(runtime: FakeRuntime) -> PodRuntimeStatus:
    pods = group_by_pod(await runtime.list_pod_sandboxes(), await runtime.list_containers())
    return pods.get(UID, PodRuntimeStatus(UID))


async def test_running_pods_refresh_their_volumes_and_a_failure_is_an_event() -> None:
    clock = FakeClock()
    runtime, env, recorder = FakeRuntime(clock, start_delay=0, start_jitter=0), Environment(), FakeRecorder()
    syncer = PodSyncer(runtime, env, recorder, clock)
    pod = make_pod("a")
    await syncer.sync_pod(pod, await status(runtime))
    assert (env.prepared, env.refreshed) == (1, 0)  # a new sandbox: set up, not refreshed
    await syncer.sync_pod(pod, await status(runtime))
    assert (env.prepared, env.refreshed) == (1, 1)
    env.refresh_error = 'MountVolume.SetUp failed for volume "cfg" : configmap "cfg" not found'
    await syncer.sync_pod(pod, await status(runtime))
    assert f"Warning FailedMount {env.refresh_error}" in recorder.events
    [running] = (await status(runtime)).containers
    assert running.state is ContainerState.RUNNING and running.attempt == 0


async def test_an_ephemeral_container_starts_once_with_its_target() -> None:
    clock = FakeClock()
    runtime, env = RecordingRuntime(clock, start_delay=0, start_jitter=0), Environment()
    syncer = PodSyncer(runtime, env, FakeRecorder(), clock)
    pod = make_pod("a")
    await syncer.sync_pod(pod, await status(runtime))
    pod["spec"]["ephemeralContainers"] = [{"name": "dbg", "image": "busybox", "targetContainerName": "a"}]
    await syncer.sync_pod(pod, await status(runtime))
    target = (await status(runtime)).latest("a")
    debugger = (await status(runtime)).latest("dbg")
    assert target is not None and debugger is not None and debugger.state is ContainerState.RUNNING
    assert [(c.name, c.target_container_id) for c in runtime.created] == [("a", ""), ("dbg", target.id)]
    await runtime.stop_container(debugger.id, 0)
    await syncer.sync_pod(pod, await status(runtime))
    assert [c.name for c in runtime.created] == ["a", "dbg"]  # exited: never started again
