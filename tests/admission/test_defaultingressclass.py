"""DefaultIngressClass through a real apiserver: a new Ingress without a class gets the default
one (the newest when several are marked), one naming a class (or the legacy annotation) is
left alone, updates never default, no default leaves it unset; Ingress and IngressClass
validation answers 422 with upstream's messages."""

from __future__ import annotations

from typing import Any

import httpx

from apiserver.admission.plugins.defaultingressclass import default_class

ING = "/apis/networking.k8s.io/v1/namespaces/default/ingresses"
CLASSES = "/apis/networking.k8s.io/v1/ingressclasses"
DEFAULT = "ingressclass.kubernetes.io/is-default-class"


def ingress_class(name: str, default: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if default is not None:
        meta["annotations"] = {DEFAULT: default}
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "IngressClass",
        "metadata": meta,
        "spec": {"controller": "example.com/c"},
    }


def ingress(name: str, class_name: str | None = None, **annotations: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}}}
    if class_name is not None:
        spec["ingressClassName"] = class_name
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": name, "annotations": annotations},
        "spec": spec,
    }


async def create(api: httpx.AsyncClient, path: str, obj: dict[str, Any]) -> dict[str, Any]:
    r = await api.post(path, json=obj)
    assert r.status_code == 201, r.text
    return dict(r.json())


async def test_no_default_class_leaves_the_class_unset(admitted: httpx.AsyncClient) -> None:
    await create(admitted, CLASSES, ingress_class("plain", "false"))
    made = await create(admitted, ING, ingress("a"))
    assert "ingressClassName" not in made["spec"]


async def test_the_default_class_is_set_on_create_only(admitted: httpx.AsyncClient) -> None:
    await create(admitted, CLASSES, ingress_class("plain"))
    await create(admitted, CLASSES, ingress_class("main", "true"))
    made = await create(admitted, ING, ingress("a"))
    assert made["spec"]["ingressClassName"] == "main"
    named = await create(admitted, ING, ingress("b", "plain"))
    assert named["spec"]["ingressClassName"] == "plain"
    legacy = await create(admitted, ING, ingress("c", None, **{"kubernetes.io/ingress.class": "other"}))
    assert "ingressClassName" not in legacy["spec"]
    updated = await admitted.put(f"{ING}/c", json=legacy)
    assert updated.status_code == 200 and "ingressClassName" not in updated.json()["spec"]


async def test_with_two_defaults_the_newest_wins(admitted: httpx.AsyncClient) -> None:
    await create(admitted, CLASSES, ingress_class("older", "true"))
    await create(admitted, CLASSES, ingress_class("newer", "true"))
    # created within one second: equal timestamps, so the first name wins
    made = await create(admitted, ING, ingress("a"))
    assert made["spec"]["ingressClassName"] == "newer"


async def test_invalid_ingress_and_class_answer_422(admitted: httpx.AsyncClient) -> None:
    bad = ingress("bad")
    bad["spec"] = {
        "rules": [
            {
                "host": "a.io",
                "http": {
                    "paths": [{"path": "/", "backend": {"service": {"name": "web", "port": {"number": 80}}}}]
                },
            }
        ]
    }
    r = await admitted.post(ING, json=bad)
    assert r.status_code == 422
    assert r.json()["message"] == (
        'Ingress.networking.k8s.io "bad" is invalid: spec.rules[0].http.paths[0].pathType: '
        "Required value: pathType must be specified"
    )
    no_controller = ingress_class("x")
    no_controller["spec"] = {}
    r = await admitted.post(CLASSES, json=no_controller)
    assert r.status_code == 422
    assert (
        r.json()["message"]
        == 'IngressClass.networking.k8s.io "x" is invalid: spec.controller: Required value'
    )
    await create(admitted, CLASSES, ingress_class("y"))
    changed = (await admitted.get(f"{CLASSES}/y")).json()
    changed["spec"]["controller"] = "example.com/other"
    r = await admitted.put(f"{CLASSES}/y", json=changed)
    assert r.status_code == 422
    assert 'spec.controller: Invalid value: "example.com/other": field is immutable' in r.json()["message"]


def test_default_class_prefers_the_newest_then_the_first_name() -> None:
    def made(name: str, at: str, default: str = "true") -> dict[str, Any]:
        obj = ingress_class(name, default)
        obj["metadata"]["creationTimestamp"] = at
        return obj

    older, newer = made("a-old", "2024-01-01T00:00:00Z"), made("z-new", "2024-01-02T00:00:00Z")
    assert default_class([older, newer])["metadata"]["name"] == "z-new"  # type: ignore[index]
    twin = made("b-twin", "2024-01-02T00:00:00Z")
    assert default_class([older, newer, twin])["metadata"]["name"] == "b-twin"  # type: ignore[index]
    assert default_class([made("off", "2024-01-03T00:00:00Z", "false")]) is None
