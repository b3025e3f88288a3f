"""``Explanation``: why a pod went where it went, or nowhere, in its last scheduling cycle
(beyond upstream; served at ``/debug/pods/{namespace}/{name}``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scheduler.framework.status import Status
from scheduler.framework.types import NodeInfo


@dataclass
class Explanation:
    """The last scheduling cycle of one pod: each node's Filter verdict, each feasible node's
    scores by plugin, the chosen node or the failure message. Kept as computed (formatting
    them for every pod would cost more than scoring); ``as_dict`` renders them on request."""

    cycle: int
    statuses: Mapping[str, Status] = field(default_factory=dict)
    feasible: Sequence[NodeInfo] = ()
    scored: list[str] = field(default_factory=list)  # the scored nodes' names
    scores: Mapping[str, list[int]] = field(default_factory=dict)  # plugin -> score per scored node
    selected: str = ""
    message: str = ""
    nominated: str = ""  # the node preemption made room on

    def as_dict(self) -> dict[str, Any]:
        verdicts = {name: _verdict(status) for name, status in self.statuses.items()}
        verdicts.update({node.name: {"code": "Success"} for node in self.feasible})
        by_node: dict[str, dict[str, int]] = {name: {} for name in self.scored}
        for plugin, column in self.scores.items():
            for name, value in zip(self.scored, column, strict=True):
                by_node[name][plugin] = value
        return {
            "cycle": self.cycle,
            "selectedNode": self.selected,
            "message": self.message,
            "nominatedNode": self.nominated,
            "filter": verdicts,
            "scores": by_node,
        }


def _verdict(status: Status) -> dict[str, Any]:
    return {
        "code": status.code.name.title().replace("_", ""),
        "plugin": status.plugin,
        "reasons": list(status.reasons),
    }
