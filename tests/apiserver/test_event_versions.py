"""core/v1 and events.k8s.io/v1 Events over HTTP, in process: one storage, each version served in
its own shape (create, get, list, patch, apply, watch, Tables) and upstream's field labels."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

CORE = "/api/v1/namespaces/default/events"
EVENTS = "/apis/events.k8s.io/v1/namespaces/default/events"
TABLE = {"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
POD = {"kind": "Pod", "namespace": "default", "name": "web", "uid": "p-1", "apiVersion": "v1"}
NODE = {"kind": "Node", "name": "n1"}
SERIES_TIME = "2024-05-01T11:59:00.000000Z"  # a MicroTime must parse (typed decoding)


def new_style(name: str, regarding: dict[str, Any] = POD, **fields: Any) -> dict[str, Any]:
    """An events.k8s.io/v1 Event as a new-style recorder (e.g. the scheduler) writes it."""
    return {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": name},
        "eventTime": "2024-05-01T11:58:00.000000Z",
        "reportingController": "default-scheduler",
        "reportingInstance": "default-scheduler-cp",
        "action": "Binding",
        "reason": "Scheduled",
        "regarding": regarding,
        "note": "Successfully assigned default/web to n1",
        "type": "Normal",
        **fields,
    }


def old_style(name: str, involved: dict[str, Any] = POD, **fields: Any) -> dict[str, Any]:
    """A core/v1 Event as the old recorder (e.g. a kubelet) writes it."""
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name},
        "involvedObject": involved,
        "reason": "Pulled",
        "message": "Container image already present",
        "source": {"component": "kubelet", "host": "n1"},
        "firstTimestamp": "2024-05-01T11:00:00Z",
        "lastTimestamp": "2024-05-01T11:00:00Z",
        "count": 1,
        "type": "Normal",
    }


async def created(api: httpx.AsyncClient, url: str, body: dict[str, Any]) -> dict[str, Any]:
    response = await api.post(url, json=body)
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()
    return result


async def test_created_through_events_read_through_core(api: httpx.AsyncClient) -> None:
    series = {"count": 2, "lastObservedTime": SERIES_TIME}
    made = await created(api, EVENTS, new_style("web.1", series=series))
    assert made["note"] == "Successfully assigned default/web to n1" and "message" not in made
    core = (await api.get(f"{CORE}/web.1")).json()
    assert core["apiVersion"] == "v1" and core["kind"] == "Event"
    assert core["involvedObject"] == POD and core["message"] == made["note"]
    assert (core["reportingComponent"], core["reportingInstance"]) == (
        "default-scheduler",
        "default-scheduler-cp",
    )
    assert (core["eventTime"], core["series"], core["action"]) == (
        made["eventTime"],
        {"count": 2, "lastObservedTime": SERIES_TIME},
        "Binding",
    )
    assert not {"regarding", "note", "reportingController"} & set(core)
    assert core["metadata"]["resourceVersion"] == made["metadata"]["resourceVersion"]


async def test_created_through_core_read_through_events(api: httpx.AsyncClient) -> None:
    await created(api, CORE, old_style("web.2"))
    event = (await api.get(f"{EVENTS}/web.2")).json()
    assert event["apiVersion"] == "events.k8s.io/v1"
    assert event["regarding"] == POD and event["note"] == "Container image already present"
    assert event["deprecatedSource"] == {"component": "kubelet", "host": "n1"}
    assert (
        event["deprecatedFirstTimestamp"],
        event["deprecatedLastTimestamp"],
        event["deprecatedCount"],
    ) == (
        "2024-05-01T11:00:00Z",
        "2024-05-01T11:00:00Z",
        1,
    )
    assert not {"involvedObject", "message", "source", "firstTimestamp", "count"} & set(event)


async def test_lists_serve_each_versions_shape(api: httpx.AsyncClient) -> None:
    await created(api, EVENTS, new_style("a"))
    await created(api, CORE, old_style("b"))
    events, core = (await api.get(EVENTS)).json(), (await api.get(CORE)).json()
    assert (events["kind"], events["apiVersion"], core["kind"], core["apiVersion"]) == (
        "EventList",
        "events.k8s.io/v1",
        "EventList",
        "v1",
    )
    assert [(e["apiVersion"], "note" in e, "message" in e) for e in events["items"]] == [
        ("events.k8s.io/v1", True, False)
    ] * 2
    assert [(e["apiVersion"], "message" in e, "note" in e) for e in core["items"]] == [
        ("v1", True, False)
    ] * 2
    assert events["metadata"]["resourceVersion"] == core["metadata"]["resourceVersion"]


async def test_patches_apply_to_the_served_shape(api: httpx.AsyncClient) -> None:
    await created(api, CORE, old_style("web.2"))
    merge = {"content-type": "application/merge-patch+json"}
    series = {"count": 2, "lastObservedTime": "2024-05-01T11:30:00.000000Z"}
    patched = await api.patch(f"{EVENTS}/web.2", json={"series": series}, headers=merge)
    assert patched.status_code == 200, patched.text
    assert (patched.json()["note"], patched.json()["series"]) == ("Container image already present", series)
    core = (await api.get(f"{CORE}/web.2")).json()
    assert (core["message"], core["series"]) == ("Container image already present", series)
    assert "note" not in core
    json_patch = {"content-type": "application/json-patch+json"}
    ops = [{"op": "replace", "path": "/series/count", "value": 3}]
    assert (await api.patch(f"{EVENTS}/web.2", json=ops, headers=json_patch)).status_code == 200
    assert (await api.get(f"{CORE}/web.2")).json()["series"]["count"] == 3


async def test_put_through_events_keeps_the_object_core_shaped(api: httpx.AsyncClient) -> None:
    await created(api, CORE, old_style("web.2"))
    current = (await api.get(f"{EVENTS}/web.2")).json()
    current["metadata"]["labels"] = {"put": "yes"}  # the note is immutable through events.k8s.io
    replaced = await api.put(f"{EVENTS}/web.2", json=current)
    assert replaced.status_code == 200, replaced.text
    core = (await api.get(f"{CORE}/web.2")).json()
    assert core["metadata"]["labels"] == {"put": "yes"} and core["message"] == current["note"]
    assert "note" not in core and "regarding" not in core


async def test_server_side_apply_through_events(api: httpx.AsyncClient) -> None:
    body = json.dumps(new_style("web.3", note="applied"))
    headers = {"content-type": "application/apply-patch+yaml"}
    response = await api.patch(f"{EVENTS}/web.3", content=body, headers=headers, params={"fieldManager": "m"})
    assert response.status_code == 201, response.text
    assert (await api.get(f"{CORE}/web.3")).json()["message"] == "applied"


@pytest.mark.parametrize(
    ("url", "selector", "names"),
    [
        (EVENTS, "regarding.name=web", ["pod-event"]),
        (EVENTS, "regarding.kind=Node", ["node-event"]),
        (EVENTS, "reportingController=default-scheduler", ["pod-event"]),
        (EVENTS, "source=kubelet", ["node-event"]),
        (EVENTS, "reason=Scheduled,type=Normal", ["pod-event"]),
        (EVENTS, "metadata.name=node-event", ["node-event"]),
        (CORE, "involvedObject.name=web", ["pod-event"]),
        (CORE, "reportingComponent=default-scheduler", ["pod-event"]),
    ],
)
async def test_field_selectors_use_each_versions_labels(
    api: httpx.AsyncClient, url: str, selector: str, names: list[str]
) -> None:
    await created(api, EVENTS, new_style("pod-event"))
    await created(api, CORE, old_style("node-event", NODE))
    listed = await api.get(url, params={"fieldSelector": selector})
    assert listed.status_code == 200, listed.text
    assert [e["metadata"]["name"] for e in listed.json()["items"]] == names


@pytest.mark.parametrize(
    ("url", "label"),
    [
        (EVENTS, "involvedObject.name"),
        (EVENTS, "reportingComponent"),
        (CORE, "regarding.name"),
        (CORE, "reportingController"),
    ],
)
async def test_the_other_versions_labels_are_not_supported(
    api: httpx.AsyncClient, url: str, label: str
) -> None:
    response = await api.get(url, params={"fieldSelector": f"{label}=web"})
    assert response.status_code == 400
    assert response.json()["message"] == f"field label not supported: {label}"


async def test_events_table_is_cores(api: httpx.AsyncClient) -> None:
    await created(api, EVENTS, new_style("pod-event"))
    events = (await api.get(EVENTS, headers=TABLE)).json()
    core = (await api.get(CORE, headers=TABLE)).json()
    assert events["columnDefinitions"] == core["columnDefinitions"]
    assert [c["name"] for c in events["columnDefinitions"]][:5] == [
        "Last Seen",
        "Type",
        "Reason",
        "Object",
        "Subobject",
    ]
    assert events["rows"][0]["cells"][1:7] == core["rows"][0]["cells"][1:7]
    assert events["rows"][0]["cells"][3:7] == [
        "pod/web",
        "",
        "default-scheduler, default-scheduler-cp",
        "Successfully assigned default/web to n1",
    ]


async def watch_lines(api: httpx.AsyncClient, url: str, since: str, **params: str) -> list[dict[str, Any]]:
    """Every event of a one-second watch from ``since`` (the stream ends at its timeout)."""
    query = {"watch": "true", "resourceVersion": since, "timeoutSeconds": "1", **params}
    response = await api.get(url, params=query)
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.splitlines()]


async def test_watches_serve_each_versions_shape(api: httpx.AsyncClient) -> None:
    since = (await api.get(CORE)).json()["metadata"]["resourceVersion"]
    await created(api, EVENTS, new_style("web.1", note="one"))
    merge = {"content-type": "application/merge-patch+json"}
    await api.patch(f"{CORE}/web.1", json={"message": "two"}, headers=merge)
    assert (await api.delete(f"{EVENTS}/web.1")).status_code == 200
    events = await watch_lines(api, EVENTS, since)
    core = await watch_lines(api, CORE, since)
    kinds = ["ADDED", "MODIFIED", "DELETED"]
    assert [(e["type"], e["object"]["apiVersion"], e["object"].get("note")) for e in events] == [
        (kind, "events.k8s.io/v1", note) for kind, note in zip(kinds, ["one", "two", "two"], strict=True)
    ]
    assert [(e["type"], e["object"]["apiVersion"], e["object"].get("message")) for e in core] == [
        (kind, "v1", note) for kind, note in zip(kinds, ["one", "two", "two"], strict=True)
    ]
    assert all("regarding" in e["object"] for e in events) and all(
        "involvedObject" in e["object"] for e in core
    )


async def test_watch_selectors_and_bookmarks(api: httpx.AsyncClient) -> None:
    since = (await api.get(CORE)).json()["metadata"]["resourceVersion"]
    await created(api, CORE, old_style("node-event", NODE))
    await created(api, CORE, old_style("pod-event"))
    lines = await watch_lines(
        api, EVENTS, since, fieldSelector="regarding.kind=Pod", allowWatchBookmarks="true"
    )
    objects = [e for e in lines if e["type"] != "BOOKMARK"]
    assert [
        (e["type"], e["object"]["metadata"]["name"], e["object"]["regarding"]["kind"]) for e in objects
    ] == [("ADDED", "pod-event", "Pod")]
    for bookmark in (e for e in lines if e["type"] == "BOOKMARK"):
        assert bookmark["object"]["apiVersion"] == "events.k8s.io/v1" and "note" not in bookmark["object"]
