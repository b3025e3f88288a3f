"""The scheme lists groups in kube-apiserver's order (what ``/apis`` and ``kubectl api-resources``
show), not in the order model modules happen to be found."""

from __future__ import annotations

from minikube_py.api.builtin import builtin_scheme
from minikube_py.api.scheme import GROUP_ORDER, ResourceType, Scheme, served_order


def test_builtin_groups_follow_kube_apiservers_order() -> None:
    groups = list(dict.fromkeys(group for group, _ in builtin_scheme().group_versions()))
    known = [g for g in groups if g in GROUP_ORDER]
    assert known == sorted(known, key=GROUP_ORDER.index)
    assert groups[:3] == ["", "apps", "events.k8s.io"]
    assert groups[-1] == "metrics.k8s.io"  # an extension API: after every built-in group


def test_unknown_groups_come_after_the_known_ones_by_name() -> None:
    def rt(group: str, version: str = "v1", resource: str = "things") -> ResourceType:
        return ResourceType(group, version, "Thing", resource, True)

    types = [rt("zeta.example.com"), rt("alpha.example.com"), rt("batch"), rt(""), rt("batch", "v1beta1")]
    ordered = Scheme(sorted(types, key=served_order))
    assert [(t.group, t.version) for t in ordered] == [
        ("", "v1"),
        ("batch", "v1"),
        ("batch", "v1beta1"),
        ("alpha.example.com", "v1"),
        ("zeta.example.com", "v1"),
    ]
