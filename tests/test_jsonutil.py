"""``jsonutil.clone``: the deep copy the apiserver's write path uses instead of ``deepcopy``."""

from __future__ import annotations

from typing import Any

from minikube_py import jsonutil


def test_clone_is_equal_and_shares_nothing() -> None:
    pod: dict[str, Any] = {
        "metadata": {"name": "p", "labels": {"app": "web"}, "ownerReferences": [{"uid": "u"}]},
        "spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}], "priority": 0},
        "status": {"phase": "Running", "ready": True, "score": 0.5, "message": None, "name": "é"},
    }
    copied = jsonutil.clone(pod)
    assert copied == pod
    copied["metadata"]["labels"]["app"] = "other"
    copied["spec"]["containers"][0]["ports"].append({"containerPort": 443})
    assert pod["metadata"]["labels"] == {"app": "web"}
    assert pod["spec"]["containers"][0]["ports"] == [{"containerPort": 80}]


def test_clone_keeps_integers_beyond_64_bits() -> None:
    big = {"n": 2**70, "m": -(2**65)}
    assert jsonutil.clone(big) == big
