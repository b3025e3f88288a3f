"""The PodSecurity admission plugin: pods are evaluated against their namespace's levels.

- ``enforce``: a failing pod is refused, 403 ``violates PodSecurity "<level>:<version>": ...``;
- ``audit``: the audit annotation ``pod-security.kubernetes.io/audit-violations``;
- ``warn``: a ``Warning`` header ``would violate PodSecurity ...`` (only on allowed requests).

Levels come from ``pod-security.kubernetes.io/<mode>`` (default ``privileged``), versions
from ``pod-security.kubernetes.io/<mode>-version`` (default ``latest``); an invalid level
enforces ``restricted`` (upstream fails closed). Updates (of the pod or of its
``ephemeralcontainers`` subresource) are checked only when they change what a pod runs
(container images or the number of containers)."""

from __future__ import annotations

from apiserver.admission import warnings
from apiserver.admission.attributes import Attributes, Operation, forbidden
from apiserver.admission.interfaces import Plugin
from apiserver.admission.plugins.podsecurity.checks import evaluate, forbidden_detail
from apiserver.lookup import Lookup
from apiserver.request.context import annotate
from minikube_py.api.unstructured import Object

NAME = "PodSecurity"
LABEL_PREFIX = "pod-security.kubernetes.io/"
LEVELS = ("privileged", "baseline", "restricted")
ENFORCED_POLICY_ANNOTATION = LABEL_PREFIX + "enforce-policy"
AUDIT_VIOLATIONS_ANNOTATION = LABEL_PREFIX + "audit-violations"


def policy(labels: dict[str, str], mode: str) -> tuple[str, str]:
    """(level, version) of ``mode``; an invalid level is ``restricted``."""
    level = labels.get(LABEL_PREFIX + mode, "privileged")
    version = labels.get(f"{LABEL_PREFIX}{mode}-version", "latest") or "latest"
    return (level if level in LEVELS else "restricted"), version


def significant_update(new: Object, old: Object) -> bool:
    def images(pod: Object, key: str) -> list[str]:
        return [c.get("image", "") for c in (pod.get("spec") or {}).get(key) or []]

    keys = ("containers", "initContainers", "ephemeralContainers")
    return any(images(new, k) != images(old, k) for k in keys)


class PodSecurity(Plugin):
    name = NAME
    operations = frozenset({Operation.CREATE, Operation.UPDATE})

    def __init__(self, lookup: Lookup) -> None:
        super().__init__()
        self.lookup = lookup

    async def validate(self, attrs: Attributes) -> None:
        pod = attrs.object
        # as upstream: pods, and pods/ephemeralcontainers (a debug container is judged too)
        is_pod = attrs.is_main("", "pods") or (
            (attrs.resource.group, attrs.resource.resource, attrs.subresource)
            == ("", "pods", "ephemeralcontainers")
        )
        if not is_pod or pod is None:
            return
        if attrs.operation == Operation.UPDATE and not significant_update(pod, attrs.old_object or {}):
            return
        namespace = await self.lookup.lister("", "v1", "namespaces").get("", attrs.namespace, fresh=True)
        labels = ((namespace or {}).get("metadata") or {}).get("labels") or {}
        results: dict[str, str] = {}

        def failures(level: str) -> str:
            if level not in results:
                results[level] = forbidden_detail(evaluate(level, pod))
            return results[level]

        enforce = policy(labels, "enforce")
        annotate(ENFORCED_POLICY_ANNOTATION, ":".join(enforce))
        audit = policy(labels, "audit")
        if failures(audit[0]):
            annotate(
                AUDIT_VIOLATIONS_ANNOTATION,
                f'would violate PodSecurity "{":".join(audit)}": {failures(audit[0])}',
            )
        if failures(enforce[0]):
            raise forbidden(attrs, f'violates PodSecurity "{":".join(enforce)}": {failures(enforce[0])}')
        warn = policy(labels, "warn")
        if failures(warn[0]):
            warnings.warn(f'would violate PodSecurity "{":".join(warn)}": {failures(warn[0])}')
