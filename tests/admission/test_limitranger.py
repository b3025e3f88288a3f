"""LimitRanger's rules, table-driven (defaulting and the min/max/ratio messages)."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.admission.plugins.limitranger import aggregate, default_pod, defaulted_item, validate_pod


def pod(*containers: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {}, "spec": {"containers": list(containers)}}


def c(
    name: str = "c", requests: dict[str, str] | None = None, limits: dict[str, str] | None = None
) -> dict[str, Any]:
    resources = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    return {"name": name, "resources": resources}


def test_item_defaults_follow_upstream() -> None:
    item = defaulted_item({"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "64Mi"}})
    assert item["default"] == {"cpu": "2"}
    assert item["defaultRequest"] == {"cpu": "2", "memory": "64Mi"}


def test_defaults_fill_only_missing_values() -> None:
    p = pod(c("a", requests={"cpu": "100m"}), c("b"))
    notes = default_pod(p, {"default": {"cpu": "1"}, "defaultRequest": {"cpu": "500m"}})
    assert p["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "100m"}, "limits": {"cpu": "1"}}
    assert p["spec"]["containers"][1]["resources"] == {"requests": {"cpu": "500m"}, "limits": {"cpu": "1"}}
    assert notes == ["cpu limit for container a", "cpu request for container b", "cpu limit for container b"]


@pytest.mark.parametrize(
    ("item", "container", "messages"),
    [
        (
            {"type": "Container", "min": {"cpu": "100m"}},
            c(),
            ["minimum cpu usage per Container is 100m.  No request is specified"],
        ),
        (
            {"type": "Container", "min": {"cpu": "100m"}},
            c(requests={"cpu": "50m"}),
            ["minimum cpu usage per Container is 100m, but request is 50m"],
        ),
        (
            {"type": "Container", "max": {"cpu": "1"}},
            c(),
            ["maximum cpu usage per Container is 1.  No limit is specified"],
        ),
        (
            {"type": "Container", "max": {"cpu": "1"}},
            c(limits={"cpu": "2"}),
            ["maximum cpu usage per Container is 1, but limit is 2"],
        ),
        (
            {"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}},
            c(requests={"cpu": "100m"}, limits={"cpu": "1"}),
            ["cpu max limit to request ratio per Container is 2, but provided ratio is 10.000000"],
        ),
        (
            {"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}},
            c(limits={"cpu": "1"}),
            [
                "cpu max limit to request ratio per Container is 2, but no request is specified "
                "or request is 0"
            ],
        ),
        (
            {"type": "Pod", "max": {"memory": "1Gi"}},
            c(limits={"memory": "2Gi"}),
            ["maximum memory usage per Pod is 1Gi, but limit is 2Gi"],
        ),
        (
            {"type": "Container", "min": {"cpu": "1"}, "max": {"cpu": "2"}},
            c(requests={"cpu": "1"}, limits={"cpu": "2"}),
            [],
        ),
    ],
)
def test_validation(item: dict[str, Any], container: dict[str, Any], messages: list[str]) -> None:
    assert validate_pod(pod(container), item) == messages


def test_several_problems_aggregate_as_upstream() -> None:
    assert aggregate(["a", "b", "a"]) == "[a, b]" and aggregate(["a"]) == "a"
