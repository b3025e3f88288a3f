"""The slice plan of one Service (upstream's ``endpointslice`` reconciler): which slices to
create, update and delete so the managed slices hold exactly the desired endpoints, changing
as few slices as possible.

Per port set (slices carry one each): every existing slice keeps the desired endpoints it
already has (refreshed if their conditions changed) and loses the others; one left empty is
deleted. Endpoints not placed yet fill the slices being updated anyway (fullest first), then
the one unchanged slice that can take them all (the fullest that can), then new slices of at
most ``max_endpoints_per_slice``. A create is turned into an update of a slice that would be
deleted, so churn stays low. Slices of port sets nobody wants, or owned by another Service
(a recreated one), are deleted. A Service with no endpoints keeps one empty placeholder
slice, as upstream."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from controllers.endpointutil.slices import endpoint_key, new_slice, owned_by, ports_key
from minikube_py.api.unstructured import Object

#: upstream's ``--max-endpoints-per-slice`` default
MAX_ENDPOINTS_PER_SLICE = 100


@dataclass
class Desired:
    """The endpoints wanted for one port set."""

    ports: list[dict[str, Any]]
    endpoints: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class Plan:
    create: list[Object] = field(default_factory=list)
    update: list[Object] = field(default_factory=list)
    delete: list[Object] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.create or self.update or self.delete)


def plan_slices(
    service: Object,
    labels: dict[str, str],
    address_type: str,
    desired: dict[str, Desired],
    existing: list[Object],
    max_per_slice: int = MAX_ENDPOINTS_PER_SLICE,
) -> Plan:
    """``existing``: the managed slices of the Service (any address type); ``desired`` by
    ``ports_key``. Slices in the plan are copies, ready to send."""
    plan = Plan()
    by_ports: dict[str, list[Object]] = {}
    for slice_ in existing:
        if slice_.get("addressType") != address_type or not owned_by(slice_, service):
            plan.delete.append(slice_)
        else:
            by_ports.setdefault(ports_key(slice_.get("ports")), []).append(slice_)
    for key, slices in by_ports.items():
        if key not in desired:
            plan.delete.extend(slices)
    for key, want in desired.items():
        _plan_port_set(plan, service, labels, address_type, want, by_ports.get(key, []), max_per_slice)
    _reuse_deleted(plan)
    if len(plan.delete) == len(existing) and not plan.create:
        _keep_placeholder(plan, service, labels, address_type)
    return plan


def _plan_port_set(
    plan: Plan,
    service: Object,
    labels: dict[str, str],
    address_type: str,
    want: Desired,
    slices: list[Object],
    max_per_slice: int,
) -> None:
    remaining = dict(want.endpoints)
    updates: list[Object] = []
    unchanged: list[Object] = []
    for slice_ in slices:
        kept: list[dict[str, Any]] = []
        changed = False
        for endpoint in slice_.get("endpoints") or []:
            wanted = remaining.pop(endpoint_key(endpoint), None)
            if wanted is None:
                changed = True
                continue
            changed = changed or wanted != endpoint
            kept.append(wanted)
        relabel = (slice_["metadata"].get("labels") or {}) != labels
        if not changed and not relabel:
            unchanged.append(slice_)
            continue
        if not kept:
            plan.delete.append(slice_)
            continue
        updated = copy.deepcopy(slice_)  # the cache's copy is shared
        updated["endpoints"] = kept
        updated["metadata"]["labels"] = dict(labels)
        updates.append(updated)
    pending = list(remaining.values())
    for slice_ in sorted(updates, key=lambda s: -len(s["endpoints"])):
        room = max_per_slice - len(slice_["endpoints"])
        slice_["endpoints"].extend(pending[:room])
        pending = pending[max(room, 0) :]
    if pending:
        fits = [s for s in unchanged if len(s.get("endpoints") or []) + len(pending) <= max_per_slice]
        if fits:
            target = max(fits, key=lambda s: len(s.get("endpoints") or []))
            unchanged.remove(target)
            filled = copy.deepcopy(target)
            filled["endpoints"] = [*(filled.get("endpoints") or []), *pending]
            updates.append(filled)
            pending = []
    plan.update.extend(updates)
    while pending:
        created = new_slice(service, labels, address_type, copy.deepcopy(want.ports))
        created["endpoints"], pending = pending[:max_per_slice], pending[max_per_slice:]
        plan.create.append(created)


def _reuse_deleted(plan: Plan) -> None:
    """Write a slice to be created into one to be deleted instead (one update, not two writes)."""
    while plan.create and plan.delete:
        address_type = plan.create[-1]["addressType"]  # immutable: reuse only the same type
        target = next((s for s in plan.delete if s.get("addressType") == address_type), None)
        if target is None:
            return
        created = plan.create.pop()
        plan.delete.remove(target)
        reused = copy.deepcopy(target)
        for field_name in ("addressType", "endpoints", "ports"):
            reused[field_name] = created[field_name]
        reused["metadata"]["labels"] = created["metadata"]["labels"]
        reused["metadata"]["ownerReferences"] = created["metadata"]["ownerReferences"]
        plan.update.append(reused)


def _keep_placeholder(plan: Plan, service: Object, labels: dict[str, str], address_type: str) -> None:
    placeholder = new_slice(service, labels, address_type, [])
    if len(plan.delete) == 1 and _is_placeholder(plan.delete[0], placeholder):
        plan.delete.clear()  # it is the placeholder already: keep it
    else:
        plan.create.append(placeholder)


def _is_placeholder(slice_: Object, placeholder: Object) -> bool:
    return bool(
        slice_.get("addressType") == placeholder["addressType"]
        and not slice_.get("endpoints")
        and not slice_.get("ports")
        and (slice_["metadata"].get("labels") or {}) == placeholder["metadata"]["labels"]
        and slice_["metadata"].get("ownerReferences") == placeholder["metadata"]["ownerReferences"]
    )
