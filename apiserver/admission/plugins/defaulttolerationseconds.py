"""DefaultTolerationSeconds: a new pod that does not already tolerate them gets tolerations of
the ``not-ready`` and ``unreachable`` NoExecute taints for 300 seconds (upstream's
``--default-not-ready-toleration-seconds``/``--default-unreachable-toleration-seconds``)."""

from __future__ import annotations

from typing import Any

from apiserver.admission.attributes import Attributes, Operation
from apiserver.admission.interfaces import Plugin
from apiserver.lookup import Lookup

NAME = "DefaultTolerationSeconds"
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_SECONDS = 300


def _tolerates(tolerations: list[dict[str, Any]], key: str) -> bool:
    return any(
        t.get("key", "") in ("", key) and t.get("effect", "") in ("", "NoExecute") for t in tolerations
    )


class DefaultTolerationSeconds(Plugin):
    name = NAME
    operations = frozenset({Operation.CREATE})

    def __init__(self, lookup: Lookup | None = None, seconds: int = DEFAULT_SECONDS) -> None:
        super().__init__()
        self.seconds = seconds

    async def admit(self, attrs: Attributes) -> None:
        if not attrs.is_main("", "pods") or attrs.object is None:
            return
        spec = attrs.object.setdefault("spec", {})
        tolerations = list(spec.get("tolerations") or [])
        added = [
            {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": self.seconds}
            for key in (NOT_READY, UNREACHABLE)
            if not _tolerates(tolerations, key)
        ]
        if added:
            spec["tolerations"] = tolerations + added
