"""Protobuf request bodies on every verb that takes one, as client-go's typed clients send them
(issue 13, item 13): DeleteOptions on DELETE of an object and of a collection (Helm's
uninstall), Eviction, Binding and Scale. The bytes come from Google's ``protobuf`` package with
upstream's field numbers (``tests.api.protobuf.upstream``), not from the decoder under test."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.protobuf.proto_builder import envelope
from tests.api.protobuf.upstream import UPSTREAM as T

PROTOBUF = {"content-type": "application/vnd.kubernetes.protobuf", "accept": "application/json"}
NS = "/api/v1/namespaces/default"


def delete_options(api_version: str = "v1", **fields: Any) -> bytes:
    return envelope(api_version, "DeleteOptions", T["DeleteOptions"](**fields).SerializeToString())


async def create(api: httpx.AsyncClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    created = await api.post(path, json=body)
    assert created.status_code == 201, created.text
    result: dict[str, Any] = created.json()
    return result


def pod(name: str) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


@pytest.mark.parametrize("api_version", ["v1", "meta.k8s.io/v1", "apps/v1"])
async def test_delete_with_protobuf_delete_options(api: httpx.AsyncClient, api_version: str) -> None:
    """client-go encodes DeleteOptions in the client's group version; upstream takes any."""
    await create(api, f"{NS}/secrets", {"metadata": {"name": "sh.helm.release.v1.r.v1"}})
    body = delete_options(api_version, propagationPolicy="Background")
    deleted = await api.request(
        "DELETE", f"{NS}/secrets/sh.helm.release.v1.r.v1", content=body, headers=PROTOBUF
    )
    assert deleted.status_code == 200, deleted.text
    assert (await api.get(f"{NS}/secrets/sh.helm.release.v1.r.v1")).status_code == 404


async def test_protobuf_delete_options_are_honoured(api: httpx.AsyncClient) -> None:
    made = await create(api, f"{NS}/configmaps", {"metadata": {"name": "kept"}})
    stale = delete_options(preconditions=T["Preconditions"](uid="not-" + made["metadata"]["uid"]))
    refused = await api.request("DELETE", f"{NS}/configmaps/kept", content=stale, headers=PROTOBUF)
    assert refused.status_code == 409, refused.text
    dry = delete_options(dryRun=["All"], gracePeriodSeconds=0)
    assert (
        await api.request("DELETE", f"{NS}/configmaps/kept", content=dry, headers=PROTOBUF)
    ).status_code == 200
    assert (await api.get(f"{NS}/configmaps/kept")).status_code == 200  # a dry run
    orphan = delete_options(orphanDependents=True)
    done = await api.request("DELETE", f"{NS}/configmaps/kept", content=orphan, headers=PROTOBUF)
    assert done.status_code == 200
    assert (await api.get(f"{NS}/configmaps/kept")).json()["metadata"]["finalizers"] == ["orphan"]


async def test_protobuf_delete_options_are_validated(api: httpx.AsyncClient) -> None:
    await create(api, f"{NS}/configmaps", {"metadata": {"name": "v"}})
    bad = delete_options(propagationPolicy="Sideways")
    refused = await api.request("DELETE", f"{NS}/configmaps/v", content=bad, headers=PROTOBUF)
    assert refused.status_code == 422
    assert 'propagationPolicy: Unsupported value: "Sideways"' in refused.json()["message"]


async def test_delete_collection_with_protobuf_delete_options(api: httpx.AsyncClient) -> None:
    for name in ("a", "b"):
        await create(api, f"{NS}/configmaps", {"metadata": {"name": name, "labels": {"set": "x"}}})
    body = delete_options(propagationPolicy="Background")
    deleted = await api.request(
        "DELETE", f"{NS}/configmaps", params={"labelSelector": "set=x"}, content=body, headers=PROTOBUF
    )
    assert deleted.status_code == 200, deleted.text
    assert (await api.get(f"{NS}/configmaps", params={"labelSelector": "set=x"})).json()["items"] == []


@pytest.mark.parametrize(
    "body",
    [
        envelope("v1", "Pod", b""),  # another kind
        b"k8s\x00\x0a\x03bad",  # a truncated envelope
        b"not protobuf at all",
    ],
)
async def test_bad_protobuf_delete_bodies_are_400(api: httpx.AsyncClient, body: bytes) -> None:
    await create(api, f"{NS}/configmaps", {"metadata": {"name": "bad"}})
    refused = await api.request("DELETE", f"{NS}/configmaps/bad", content=body, headers=PROTOBUF)
    assert refused.status_code == 400, refused.text
    assert refused.json()["kind"] == "Status"
    assert (await api.get(f"{NS}/configmaps/bad")).status_code == 200


@pytest.mark.parametrize("api_version", ["policy/v1", "policy/v1beta1"])
async def test_protobuf_eviction(api: httpx.AsyncClient, api_version: str) -> None:
    await create(api, f"{NS}/pods", pod("ev"))
    eviction = T["Eviction"](
        metadata=T["ObjectMeta"](name="ev", namespace="default"),
        deleteOptions=T["DeleteOptions"](gracePeriodSeconds=0),
    )
    body = envelope(api_version, "Eviction", eviction.SerializeToString())
    evicted = await api.post(f"{NS}/pods/ev/eviction", content=body, headers=PROTOBUF)
    assert evicted.status_code == 201, evicted.text
    assert (await api.get(f"{NS}/pods/ev")).status_code == 404


async def test_protobuf_binding(api: httpx.AsyncClient) -> None:
    await create(api, f"{NS}/pods", pod("bound"))
    binding = T["Binding"](
        metadata=T["ObjectMeta"](name="bound", namespace="default", annotations={"a": "b"}),
        target=T["ObjectReference"](apiVersion="v1", kind="Node", name="node-1"),
    )
    body = envelope("v1", "Binding", binding.SerializeToString())
    bound = await api.post(f"{NS}/pods/bound/binding", content=body, headers=PROTOBUF)
    assert bound.status_code == 201, bound.text
    got = (await api.get(f"{NS}/pods/bound")).json()
    assert got["spec"]["nodeName"] == "node-1"
    assert got["metadata"]["annotations"] == {"a": "b"}


async def test_protobuf_scale_update(api: httpx.AsyncClient) -> None:
    labels = {"app": "web"}
    template = {"metadata": {"labels": labels}, "spec": pod("x")["spec"]}
    deployment = {
        "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": labels}, "template": template},
    }
    await create(api, "/apis/apps/v1/namespaces/default/deployments", deployment)
    scale = T["Scale"](
        metadata=T["ObjectMeta"](name="web", namespace="default"), spec=T["ScaleSpec"](replicas=4)
    )
    body = envelope("autoscaling/v1", "Scale", scale.SerializeToString())
    path = "/apis/apps/v1/namespaces/default/deployments/web/scale"
    updated = await api.put(path, content=body, headers=PROTOBUF)
    assert updated.status_code == 200, updated.text
    assert updated.json()["spec"]["replicas"] == 4
    zero = T["Scale"](metadata=T["ObjectMeta"](name="web"), spec=T["ScaleSpec"](replicas=0))
    scaled_down = await api.put(
        path, content=envelope("autoscaling/v1", "Scale", zero.SerializeToString()), headers=PROTOBUF
    )
    assert scaled_down.status_code == 200, scaled_down.text
    assert scaled_down.json()["spec"]["replicas"] == 0  # omitempty: absent on the wire is 0


async def test_protobuf_pod_create(api: httpx.AsyncClient) -> None:
    # client-go's typed Pods().Create sends protobuf; once answered 415, now decoded whole
    # (status included: strict field validation would refuse a key the decoder invented).
    body = T["Pod"](
        metadata=T["ObjectMeta"](name="proto-pod"),
        spec=T["PodSpec"](containers=[T["Container"](name="c", image="busybox")]),
        status=T["PodStatus"](phase="Pending"),
    )
    created = await api.post(
        f"{NS}/pods?fieldValidation=Strict",
        content=envelope("v1", "Pod", body.SerializeToString()),
        headers=PROTOBUF,
    )
    assert created.status_code == 201, created.text
    got = created.json()
    assert got["spec"]["containers"][0]["image"] == "busybox"
    assert got["status"]["phase"] == "Pending"
