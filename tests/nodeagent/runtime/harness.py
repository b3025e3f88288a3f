"""Per-runtime recipes for the conformance suite: the same behaviour, expressed as a real
command for the process runtime and as ``FAKE_*`` env for the fake runtime."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from nodeagent import logs
from nodeagent.runtime.fake import FakeRuntime
from nodeagent.runtime.interface import ContainerConfig, ContainerRuntime, ContainerState, ContainerStatus
from nodeagent.runtime.process import ProcessRuntime

SMALL_CIDR = "127.1.0.0/29"  # .1 is the node's: five pod IPs, exhaustion is reachable


@dataclass
class Harness:
    runtime: ContainerRuntime
    log_dir: str

    def config(
        self, name: str, command: Sequence[str], env: Sequence[tuple[str, str]] = ()
    ) -> ContainerConfig:
        return ContainerConfig(name, "busybox", command, env=env, log_path=f"{self.log_dir}/{name}/0.log")

    def long_running(self, name: str = "main") -> ContainerConfig:
        return self.config(name, ["sleep", "60"])

    def exiting(self, code: int, after: float, name: str = "main") -> ContainerConfig:
        raise NotImplementedError

    def printing(self, lines: list[str], name: str = "main") -> ContainerConfig:
        raise NotImplementedError

    def failing_start(self) -> tuple[ContainerConfig, str]:
        raise NotImplementedError

    def ignoring_sigterm(self) -> ContainerConfig:
        raise NotImplementedError

    def exec_returning(self, output: str, code: int) -> tuple[ContainerConfig, list[str]]:
        raise NotImplementedError

    def exec_slow(self) -> tuple[ContainerConfig, list[str]]:
        raise NotImplementedError

    def attachable(self, code: int) -> ContainerConfig:
        """With stdin; writes ``got-go`` (after reading ``go``) and exits with ``code``."""
        raise NotImplementedError

    async def wait_log(self, path: str, text: bytes, timeout: float = 5.0) -> bytes:
        deadline = time.monotonic() + timeout
        while text not in (data := logs.read_log(path)) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        return data

    async def wait_state(self, cid: str, state: ContainerState, timeout: float = 5.0) -> ContainerStatus:
        deadline = time.monotonic() + timeout
        while True:
            status = await self.runtime.container_status(cid)
            if status.state is state or time.monotonic() > deadline:
                return status
            await asyncio.sleep(0.02)


class ProcessHarness(Harness):
    def exiting(self, code: int, after: float, name: str = "main") -> ContainerConfig:
        return self.config(name, ["sh", "-c", f"sleep {after}; exit {code}"])

    def printing(self, lines: list[str], name: str = "main") -> ContainerConfig:
        return self.config(name, ["sh", "-c", "; ".join(f"echo '{line}'" for line in lines) + "; sleep 60"])

    def failing_start(self) -> tuple[ContainerConfig, str]:
        return self.config("bad", ["nosuch"]), 'exec: "nosuch": executable file not found in $PATH'

    def ignoring_sigterm(self) -> ContainerConfig:
        return self.config(
            "stubborn", ["sh", "-c", "trap '' TERM; echo ready; while true; do sleep 0.05; done"]
        )

    def exec_returning(self, output: str, code: int) -> tuple[ContainerConfig, list[str]]:
        return self.long_running(), ["sh", "-c", f"printf '{output}'; exit {code}"]

    def exec_slow(self) -> tuple[ContainerConfig, list[str]]:
        return self.long_running(), ["sleep", "10"]

    def attachable(self, code: int) -> ContainerConfig:
        config = self.config("main", ["sh", "-c", f"read line; echo got-$line; exit {code}"])
        return replace(config, stdin=True)


class FakeHarness(Harness):
    def exiting(self, code: int, after: float, name: str = "main") -> ContainerConfig:
        return self.config(name, ["app"], [("FAKE_EXIT_AFTER", str(after)), ("FAKE_EXIT_CODE", str(code))])

    def printing(self, lines: list[str], name: str = "main") -> ContainerConfig:
        return self.config(name, ["app"], [("FAKE_LOG", "\n".join(lines))])

    def failing_start(self) -> tuple[ContainerConfig, str]:
        message = 'exec: "nosuch": executable file not found in $PATH'
        return self.config("bad", ["nosuch"], [("FAKE_START_ERROR", message)]), message

    def ignoring_sigterm(self) -> ContainerConfig:
        return self.config("stubborn", ["app"], [("FAKE_IGNORE_SIGTERM", "1"), ("FAKE_LOG", "ready")])

    def exec_returning(self, output: str, code: int) -> tuple[ContainerConfig, list[str]]:
        env = [("FAKE_EXEC_OUTPUT", output), ("FAKE_EXEC_EXIT_CODE", str(code))]
        return self.config("main", ["app"], env), ["anything"]

    def exec_slow(self) -> tuple[ContainerConfig, list[str]]:
        return self.config("main", ["app"], [("FAKE_EXEC_DELAY", "10")]), ["anything"]

    def attachable(self, code: int) -> ContainerConfig:
        env = [("FAKE_LOG", "got-go"), ("FAKE_EXIT_AFTER", "0.5"), ("FAKE_EXIT_CODE", str(code))]
        return replace(self.config("main", ["app"], env), stdin=True)


def make_harness(kind: str, tmp: str) -> Harness:
    if kind == "process":
        return ProcessHarness(ProcessRuntime(state_dir=f"{tmp}/state", pod_cidr=SMALL_CIDR), f"{tmp}/logs")
    return FakeHarness(FakeRuntime(start_delay=0.01, start_jitter=0.02, pod_cidr=SMALL_CIDR), f"{tmp}/logs")
