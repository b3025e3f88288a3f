"""Priority: a pod's ``priorityClassName`` becomes its ``priority`` and ``preemptionPolicy``
(the global default class when it names none; priority 0 when there is no default), and at
most one PriorityClass may be the global default. The two system classes exist from the
first start (``apiserver.bootstrap.priorityclasses``, upstream's scheduling post-start hook)."""

from __future__ import annotations

import logging

from apiserver.admission.attributes import Attributes, Operation, forbidden
from apiserver.admission.interfaces import Plugin
from apiserver.lookup import Lookup
from minikube_py.api.unstructured import Object

NAME = "Priority"
log = logging.getLogger("apiserver.admission")
PC = ("scheduling.k8s.io", "v1", "priorityclasses")
SYSTEM_PRIORITY_CLASSES = (
    (
        "system-node-critical",
        2_000_001_000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
    (
        "system-cluster-critical",
        2_000_000_000,
        "Used for system critical pods that must run in the cluster, "
        "but can be moved to another node if necessary.",
    ),
)


class Priority(Plugin):
    name = NAME
    operations = frozenset({Operation.CREATE, Operation.UPDATE})

    def __init__(self, lookup: Lookup) -> None:
        super().__init__()
        self.lookup = lookup

    async def _default_class(self) -> Object | None:
        """The global default class; with several, the one of lowest value (upstream)."""
        listed = await self.lookup.lister(*PC).list("", fresh=True)
        defaults = [pc for pc in listed if pc.get("globalDefault")]
        return min(defaults, key=lambda pc: int(pc.get("value") or 0), default=None)

    async def admit(self, attrs: Attributes) -> None:
        if not attrs.is_main("", "pods") or attrs.object is None:
            return
        spec = attrs.object.setdefault("spec", {})
        if attrs.operation == Operation.UPDATE:
            old = (attrs.old_object or {}).get("spec") or {}
            for field in ("priority", "preemptionPolicy"):  # set on create: keep them
                if spec.get(field) is None and old.get(field) is not None:
                    spec[field] = old[field]
            return
        await self._admit_new_pod(attrs, spec)

    async def _admit_new_pod(self, attrs: Attributes, spec: Object) -> None:
        class_name = spec.get("priorityClassName") or ""
        if not class_name:
            pc = await self._default_class()
            priority, policy = (
                (0, "PreemptLowerPriority") if pc is None else (int(pc["value"]), pc.get("preemptionPolicy"))
            )
            if pc is not None:
                spec["priorityClassName"] = pc["metadata"]["name"]
        else:
            pc = await self.lookup.lister(*PC).get("", class_name, fresh=True)
            if pc is None:
                raise forbidden(attrs, f"no PriorityClass with name {class_name} was found")
            priority, policy = int(pc.get("value") or 0), pc.get("preemptionPolicy")
        given = spec.get("priority")
        if given is not None and given != priority:
            raise forbidden(
                attrs,
                f"the integer value of priority ({given}) must not be provided in pod spec; priority "
                f"admission controller computed {priority} from the given PriorityClass name",
            )
        spec["priority"] = priority
        if policy:
            wanted = spec.get("preemptionPolicy")
            if wanted is not None and wanted != policy:
                raise forbidden(
                    attrs,
                    f"the string value of PreemptionPolicy ({wanted}) must not be provided in pod spec; "
                    f"priority admission controller computed {policy} from the given PriorityClass name",
                )
            spec["preemptionPolicy"] = policy

    async def validate(self, attrs: Attributes) -> None:
        if not attrs.is_main(*PC[::2]) or attrs.object is None or not attrs.object.get("globalDefault"):
            return
        current = await self._default_class()
        if current is None:
            return
        name = current["metadata"]["name"]
        if attrs.operation == Operation.CREATE or name != attrs.object["metadata"].get("name"):
            raise forbidden(
                attrs, f"PriorityClass {name} is already marked as default. Only one default can exist"
            )
