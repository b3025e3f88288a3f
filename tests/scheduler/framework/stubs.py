"""Stub plugins and a framework builder for the runtime tests (no in-tree plugin is used)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minikube_py.api.unstructured import Object
from minikube_py.clock import FakeClock
from scheduler.framework.config import PluginSet, Profile
from scheduler.framework.interface import Handle
from scheduler.framework.registry import Registry
from scheduler.framework.runtime import Framework
from scheduler.framework.status import SUCCESS, Status
from scheduler.framework.types import NodeInfo


class Snapshot:
    def __init__(self, nodes: list[NodeInfo] | None = None) -> None:
        self.nodes = nodes or []

    def list(self) -> list[NodeInfo]:
        return self.nodes

    def get(self, name: str) -> NodeInfo | None:
        return next((n for n in self.nodes if n.name == name), None)

    def have_pods_with_affinity_list(self) -> list[NodeInfo]:
        return []

    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]:
        return []

    def num_nodes_with_image(self, image: str) -> int:
        return sum(1 for n in self.nodes if image in n.image_sizes)


class Recorder:
    def event(self, obj: Object, event_type: str, reason: str, message: str) -> None:
        pass


def make_handle(nodes: list[NodeInfo] | None = None) -> Handle:
    return Handle(None, Snapshot(nodes), Recorder(), FakeClock())  # type: ignore[arg-type]


def node(name: str) -> NodeInfo:
    info = NodeInfo()
    info.set_node({"metadata": {"name": name}})
    return info


def nodes(count: int, prefix: str = "n") -> list[NodeInfo]:
    return [node(f"{prefix}{i}") for i in range(count)]


POD: Object = {"metadata": {"name": "p", "namespace": "default"}, "spec": {}}


class Sort:
    def less(self, a: Any, b: Any) -> bool:
        return bool(a.timestamp < b.timestamp)


class Binder:
    def __init__(self, calls: list[str] | None = None) -> None:
        self.calls = calls if calls is not None else []

    async def bind(self, state: Any, pod: Object, node_name: str) -> Status:
        self.calls.append(f"bind {node_name}")
        return SUCCESS


def plugin(**methods: Callable[..., Any]) -> Any:
    """An object whose methods are the given functions (without ``self``)."""
    obj = type("Stub", (), {})()
    for name, fn in methods.items():
        setattr(obj, name, fn)
    return obj


def build(
    plugins: dict[str, Any],
    *,
    multi: list[str | tuple[str, int]] | None = None,
    points: dict[str, PluginSet] | None = None,
    plugin_config: dict[str, dict[str, Any]] | None = None,
    handle: Handle | None = None,
) -> Framework:
    """A framework over ``plugins`` (name -> instance) plus ``Sort`` and ``Binder``, every
    plugin enabled through multiPoint unless ``multi`` says otherwise."""
    registry = Registry()
    everything = {"Sort": Sort(), "Binder": Binder(), **plugins}
    for name, instance in everything.items():
        registry.register(name, lambda _args, _handle, instance=instance: instance)
    multi = list(everything) if multi is None else ["Sort", "Binder", *multi]
    enabled = [(m, 0) if isinstance(m, str) else m for m in multi]
    profile = Profile(
        "test-scheduler",
        {"multiPoint": PluginSet(enabled), **(points or {})},
        plugin_config or {},
    )
    return Framework(profile, registry, handle or make_handle())
