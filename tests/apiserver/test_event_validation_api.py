"""events.k8s.io/v1 Event validation over HTTP: 422 Invalid with upstream's causes; the same
writes through core/v1 are accepted (core keeps its looser rules)."""

from __future__ import annotations

from typing import Any

import httpx

CORE = "/api/v1/namespaces/default/events"
EVENTS = "/apis/events.k8s.io/v1/namespaces/default/events"
MERGE = {"content-type": "application/merge-patch+json"}
POD = {"kind": "Pod", "namespace": "default", "name": "web", "uid": "p-1", "apiVersion": "v1"}


def new_style(name: str, **fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": name},
        "eventTime": "2024-05-01T11:58:00.000000Z",
        "reportingController": "default-scheduler",
        "reportingInstance": "default-scheduler-cp",
        "action": "Binding",
        "reason": "Scheduled",
        "regarding": POD,
        "note": "assigned",
        "type": "Normal",
        **fields,
    }


def causes(response: httpx.Response) -> list[tuple[str, str, str]]:
    details = response.json()["details"]
    return [(c["reason"], c["field"], c["message"]) for c in details["causes"]]


async def test_create_without_the_reporting_fields_is_invalid(api: httpx.AsyncClient) -> None:
    body = new_style("web.1", reportingInstance="", action="", deprecatedCount=2)
    response = await api.post(EVENTS, json=body)
    assert response.status_code == 422, response.text
    status = response.json()
    assert (status["reason"], status["details"]["name"], status["details"]["kind"]) == (
        "Invalid",
        "web.1",
        "Event",
    )
    assert causes(response) == [
        ("FieldValueRequired", "reportingInstance", "Required value"),
        ("FieldValueRequired", "action", "Required value"),
        ("FieldValueInvalid", "count", 'Invalid value: "": needs to be unset'),
    ]
    assert status["message"].endswith(
        'is invalid: [reportingInstance: Required value, action: Required value, count: Invalid value: "": '
        "needs to be unset]"
    )
    assert (await api.get(f"{EVENTS}/web.1")).status_code == 404


async def test_core_accepts_what_events_refuses(api: httpx.AsyncClient) -> None:
    body = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "web.2"},
        "involvedObject": POD,
        "reason": "Pulled",
        "count": 1,
    }
    assert (await api.post(CORE, json=body)).status_code == 201
    refused = await api.post(
        EVENTS, json={**body, "apiVersion": "events.k8s.io/v1", "metadata": {"name": "web.3"}}
    )
    assert refused.status_code == 422
    assert [c[1] for c in causes(refused)] == ["eventTime", "type"]


async def test_immutable_fields_through_events_but_not_through_core(api: httpx.AsyncClient) -> None:
    assert (await api.post(EVENTS, json=new_style("web.4"))).status_code == 201
    refused = await api.patch(f"{EVENTS}/web.4", json={"note": "changed", "reason": "Moved"}, headers=MERGE)
    assert refused.status_code == 422, refused.text
    assert causes(refused) == [
        ("FieldValueInvalid", "reason", 'Invalid value: "Moved": field is immutable'),
        ("FieldValueInvalid", "message", 'Invalid value: "changed": field is immutable'),
    ]
    series = {"count": 2, "lastObservedTime": "2024-05-01T11:59:00.000000Z"}
    assert (await api.patch(f"{EVENTS}/web.4", json={"series": series}, headers=MERGE)).status_code == 200
    through_core = await api.patch(f"{CORE}/web.4", json={"message": "changed"}, headers=MERGE)
    assert through_core.status_code == 200, through_core.text
    assert (await api.get(f"{EVENTS}/web.4")).json()["note"] == "changed"
