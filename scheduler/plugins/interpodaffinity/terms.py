"""Pod (anti-)affinity terms compiled once per pod. An existing pod's terms are cached on its
``PodInfo`` (the cache and snapshots share PodInfos, and pod dicts are never mutated)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from minikube_py.api.labels import Selector, SelectorError, label_selector_as_selector
from minikube_py.api.unstructured import Object
from scheduler.framework.interface import NamespaceLabels
from scheduler.framework.types import PodInfo

__all__ = ["AffinityTerm", "NamespaceLabels", "PodAffinityTerms", "WeightedTerm", "parse_pod"]

_CACHE_ATTR = "_inter_pod_affinity_terms"


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    namespaces: frozenset[str]
    selector: Selector
    topology_key: str
    namespace_selector: Selector

    def matches(self, pod: Object, ns_labels: Mapping[str, str] | None) -> bool:
        """Whether ``pod`` is in the term's namespaces and its labels match the selector."""
        meta = pod.get("metadata") or {}
        if meta.get("namespace") in self.namespaces or self.namespace_selector.matches(ns_labels or {}):
            return self.selector.matches(meta.get("labels") or {})
        return False


@dataclass(frozen=True, slots=True)
class WeightedTerm:
    term: AffinityTerm
    weight: int


@dataclass(frozen=True, slots=True)
class PodAffinityTerms:
    required_affinity: tuple[AffinityTerm, ...] = ()
    required_anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[WeightedTerm, ...] = ()
    preferred_anti_affinity: tuple[WeightedTerm, ...] = ()

    @property
    def has_required(self) -> bool:
        return bool(self.required_affinity or self.required_anti_affinity)

    @property
    def has_preferred(self) -> bool:
        return bool(self.preferred_affinity or self.preferred_anti_affinity)


def parse_term(term: Mapping[str, Any], namespace: str) -> AffinityTerm:
    """Raises ``SelectorError`` on a bad selector. No namespaces and no namespaceSelector
    mean the pod's own namespace."""
    namespaces = frozenset(str(n) for n in term.get("namespaces") or [])
    raw_ns_selector = term.get("namespaceSelector")
    if not namespaces and raw_ns_selector is None:
        namespaces = frozenset({namespace})
    return AffinityTerm(
        namespaces,
        label_selector_as_selector(term.get("labelSelector")),
        str(term.get("topologyKey", "")),
        label_selector_as_selector(raw_ns_selector),
    )


def parse_pod(pod: Object) -> PodAffinityTerms:
    """The pod's terms; raises ``SelectorError`` when one does not parse."""
    spec_affinity = (pod.get("spec") or {}).get("affinity") or {}
    if not spec_affinity.get("podAffinity") and not spec_affinity.get("podAntiAffinity"):
        return PodAffinityTerms()
    namespace = str((pod.get("metadata") or {}).get("namespace", ""))
    affinity = spec_affinity.get("podAffinity") or {}
    anti = spec_affinity.get("podAntiAffinity") or {}

    def required(section: Mapping[str, Any]) -> tuple[AffinityTerm, ...]:
        terms = section.get("requiredDuringSchedulingIgnoredDuringExecution") or []
        return tuple(parse_term(t, namespace) for t in terms)

    def preferred(section: Mapping[str, Any]) -> tuple[WeightedTerm, ...]:
        terms = section.get("preferredDuringSchedulingIgnoredDuringExecution") or []
        return tuple(
            WeightedTerm(parse_term(t.get("podAffinityTerm") or {}, namespace), int(t.get("weight") or 0))
            for t in terms
        )

    return PodAffinityTerms(required(affinity), required(anti), preferred(affinity), preferred(anti))


def terms_of(info: PodInfo) -> PodAffinityTerms:
    """An existing pod's terms, parsed once; a pod whose terms do not parse has none."""
    cached: PodAffinityTerms | None = info.__dict__.get(_CACHE_ATTR)
    if cached is None:
        try:
            cached = parse_pod(info.pod)
        except SelectorError:
            cached = PodAffinityTerms()
        info.__dict__[_CACHE_ATTR] = cached
    return cached


def pod_matches_all(terms: tuple[AffinityTerm, ...], pod: Object) -> bool:
    """Whether ``pod`` matches every term (False for no terms)."""
    return bool(terms) and all(t.matches(pod, None) for t in terms)
