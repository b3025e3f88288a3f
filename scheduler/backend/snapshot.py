"""The per-cycle view of nodes (upstream ``backend/cache/snapshot.go``).

``Cache.update_snapshot`` refreshes it at the start of each cycle, touching only the nodes that
changed since the snapshot's ``generation``: a changed node's NodeInfo is overwritten in place,
so ``list()`` keeps its order (the cache's: nodes in the order they were first added) and is
rebuilt only when nodes come or go. The affinity lists follow the same order and are rebuilt
(O(k log k) for k listed nodes) only when a node joins or leaves them.

Between two updates a snapshot does not change; an update overwrites changed NodeInfos in
place (as upstream), so a reference kept across cycles sees the new state. Callers must not
mutate the lists or NodeInfos it returns.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from scheduler.framework.types import NodeInfo

NodeInfoList = list[NodeInfo]
_FIELDS = tuple(f.name for f in dataclasses.fields(NodeInfo))


class _Index:
    """Named NodeInfos with a list view cached until membership changes; ``position`` (if
    given) orders that view, else insertion order does."""

    def __init__(self, position: Callable[[], dict[str, int]] | None = None) -> None:
        self.by_name: dict[str, NodeInfo] = {}
        self._position = position
        self._list: NodeInfoList | None = None

    def set(self, name: str, info: NodeInfo, member: bool = True) -> bool:
        """Make ``name`` a member or not; True when membership changed."""
        present = name in self.by_name
        if member and not present:
            self.by_name[name] = info
        elif not member and present:
            del self.by_name[name]
        else:
            return False
        self._list = None
        return True

    def reorder(self, names: Iterable[str]) -> None:
        self.by_name = {name: self.by_name[name] for name in names if name in self.by_name}
        self._list = None

    def list(self) -> NodeInfoList:
        if self._list is None:
            if self._position is None:
                self._list = list(self.by_name.values())
            else:
                position = self._position()
                self._list = [self.by_name[n] for n in sorted(self.by_name, key=position.__getitem__)]
        return self._list


class Snapshot:
    """Nodes with a Node object, their pods (assumed ones included) and the nodes that hold
    pods with (anti-)affinity; implements ``framework.interface.SnapshotLister``."""

    def __init__(self) -> None:
        self.generation = 0
        self._nodes = _Index()
        self._positions: dict[str, int] | None = None
        self._with_affinity = _Index(self._node_positions)
        self._with_required_anti_affinity = _Index(self._node_positions)
        self._image_nodes: dict[str, int] = {}  # image name -> how many nodes report it

    @classmethod
    def from_node_infos(cls, infos: Iterable[NodeInfo]) -> Snapshot:
        """A snapshot holding exactly ``infos`` (for tests and tools; not copied)."""
        snapshot = cls()
        for info in infos:
            snapshot.set_node_info(info.name, info)
        return snapshot

    def list(self) -> NodeInfoList:
        return self._nodes.list()

    def get(self, node_name: str) -> NodeInfo | None:
        return self._nodes.by_name.get(node_name)

    def num_nodes(self) -> int:
        return len(self._nodes.by_name)

    def have_pods_with_affinity_list(self) -> NodeInfoList:
        return self._with_affinity.list()

    def have_pods_with_required_anti_affinity_list(self) -> NodeInfoList:
        return self._with_required_anti_affinity.list()

    def num_nodes_with_image(self, image: str) -> int:
        return self._image_nodes.get(image, 0)

    def _count_images(self, images: Iterable[str], delta: int) -> None:
        counts = self._image_nodes
        for image in images:
            left = counts.get(image, 0) + delta
            if left:
                counts[image] = left
            else:
                del counts[image]

    def set_node_info(self, name: str, info: NodeInfo) -> bool:
        """Add ``info`` under ``name`` (True), or overwrite the NodeInfo already there with it."""
        existing = self._nodes.by_name.get(name)
        if existing is None:
            self._nodes.set(name, info)
            self._positions = None
            self._count_images(info.image_sizes, 1)
        else:
            if existing.image_sizes.keys() != info.image_sizes.keys():
                self._count_images(existing.image_sizes, -1)
                self._count_images(info.image_sizes, 1)
            for field in _FIELDS:
                setattr(existing, field, getattr(info, field))
            info = existing
        self._with_affinity.set(name, info, bool(info.pods_with_affinity))
        self._with_required_anti_affinity.set(name, info, bool(info.pods_with_required_anti_affinity))
        return existing is None

    def remove_node_info(self, name: str) -> None:
        existing = self._nodes.by_name.get(name)
        if existing is not None:
            self._count_images(existing.image_sizes, -1)
        if self._nodes.set(name, NodeInfo(), member=False):
            self._positions = None
        self._with_affinity.set(name, NodeInfo(), member=False)
        self._with_required_anti_affinity.set(name, NodeInfo(), member=False)

    def reorder(self, names: Iterable[str]) -> None:
        """List the nodes in the order of ``names`` (O(n): only after nodes were added)."""
        self._nodes.reorder(names)
        self._positions = None
        self._with_affinity.reorder(self._nodes.by_name)
        self._with_required_anti_affinity.reorder(self._nodes.by_name)

    def _node_positions(self) -> dict[str, int]:
        if self._positions is None:
            self._positions = {name: i for i, name in enumerate(self._nodes.by_name)}
        return self._positions
