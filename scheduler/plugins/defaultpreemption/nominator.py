"""Pods nominated to a node by preemption and not bound yet (upstream's nominator in
``backend/queue``). While the victims go away, a nominated pod holds its place: a pod of lower
or equal priority is filtered as if the nominated pods of at least its priority were already
on their nodes, so it cannot take the room that was freed for them."""

from __future__ import annotations

from minikube_py.api.unstructured import Object
from scheduler.framework.types import PodInfo, pod_key


def pod_priority(pod: Object) -> int:
    """``spec.priority``, 0 when unset (upstream ``corev1helpers.PodPriority``)."""
    return int((pod.get("spec") or {}).get("priority") or 0)


def nominated_node_name(pod: Object) -> str:
    return str((pod.get("status") or {}).get("nominatedNodeName") or "")


def _uid(pod: Object) -> str:
    meta = pod.get("metadata") or {}
    return str(meta.get("uid") or pod_key(pod))


class Nominator:
    def __init__(self) -> None:
        self._nominated: dict[str, tuple[str, PodInfo]] = {}  # pod uid -> (node, pod)

    def __len__(self) -> int:
        return len(self._nominated)

    def nominate(self, pod: Object, node_name: str) -> None:
        """``pod`` is nominated to ``node_name`` ("" removes its nomination)."""
        uid = _uid(pod)
        if node_name:
            self._nominated[uid] = (node_name, PodInfo.of(pod))
        else:
            self._nominated.pop(uid, None)

    def add_pod(self, pod: Object) -> None:
        """An unscheduled pod seen by the scheduler: nominated when its status says so."""
        node = nominated_node_name(pod)
        if node:
            self.nominate(pod, node)

    def update_pod(self, old: Object, new: Object) -> None:
        """Follow ``status.nominatedNodeName``; an update that has none before or after keeps
        the nomination made in memory (its status patch may not have arrived yet)."""
        node = nominated_node_name(new)
        if not node and not nominated_node_name(old):
            node = self.node_of(old)
        self.delete_pod(old)
        self.nominate(new, node)

    def delete_pod(self, pod: Object) -> None:
        self._nominated.pop(_uid(pod), None)

    def node_of(self, pod: Object) -> str:
        found = self._nominated.get(_uid(pod))
        return found[0] if found else ""

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return [info for node, info in self._nominated.values() if node == node_name]

    def pods_to_count(self, pod: Object) -> dict[str, list[PodInfo]]:
        """Node -> the nominated pods (other than ``pod``) of at least ``pod``'s priority."""
        if not self._nominated:
            return {}
        uid, priority = _uid(pod), pod_priority(pod)
        out: dict[str, list[PodInfo]] = {}
        for other_uid, (node, info) in self._nominated.items():
            if other_uid != uid and pod_priority(info.pod) >= priority:
                out.setdefault(node, []).append(info)
        return out
