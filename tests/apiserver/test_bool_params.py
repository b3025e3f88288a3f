"""Boolean query parameters as upstream converts them (issue 13, item 15): given and neither
``0`` nor ``false`` in any case is true (``True`` from Python clients, the empty string too);
only absence is the default. Covers ``watch``, ``allowWatchBookmarks``, ``sendInitialEvents``,
``orphanDependents`` and ``force``, through the API."""

from __future__ import annotations

import httpx
import pytest

from apiserver.request.queryparams import to_bool

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        *[("true", True), ("True", True), ("1", True), ("", True), ("yes", True), ("t", True)],
        *[("false", False), ("False", False), ("FALSE", False), ("fAlSe", False), ("0", False)],
    ],
)
def test_conversion(text: str, value: bool) -> None:
    assert to_bool(text) is value


async def configmap(api: httpx.AsyncClient, name: str) -> str:
    created = await api.post(CONFIGMAPS, json={"metadata": {"name": name}})
    assert created.status_code == 201, created.text
    return str(created.json()["metadata"]["resourceVersion"])


@pytest.mark.parametrize("watch", ["True", "", "yes"])
async def test_watch_true_in_any_spelling_is_a_watch(api: httpx.AsyncClient, watch: str) -> None:
    rv = await configmap(api, "w")
    response = await api.get(
        CONFIGMAPS, params={"watch": watch, "resourceVersion": "0", "timeoutSeconds": "1"}
    )
    assert response.status_code == 200
    events = [line for line in response.text.splitlines() if line]
    assert events and all('"type":"ADDED"' in line for line in events), response.text[:200]
    assert rv in response.text


@pytest.mark.parametrize("watch", ["False", "0"])
async def test_watch_false_is_a_list(api: httpx.AsyncClient, watch: str) -> None:
    response = await api.get(CONFIGMAPS, params={"watch": watch})
    assert response.json()["kind"] == "ConfigMapList"


async def test_bookmarks_and_initial_events_in_python_spelling(api: httpx.AsyncClient) -> None:
    rv = await configmap(api, "b")
    params = {
        "resourceVersion": rv,
        "watch": "True",
        "allowWatchBookmarks": "True",
        "sendInitialEvents": "True",
        "resourceVersionMatch": "NotOlderThan",
        "timeoutSeconds": "1",
    }
    response = await api.get(CONFIGMAPS, params=params)
    assert response.status_code == 200, response.text
    # sendInitialEvents ends the initial events with a bookmark, sent only when bookmarks are on
    assert '"type":"BOOKMARK"' in response.text
    assert "k8s.io/initial-events-end" in response.text


async def test_orphan_dependents_in_any_spelling(api: httpx.AsyncClient) -> None:
    await configmap(api, "o")
    response = await api.delete(f"{CONFIGMAPS}/o", params={"orphanDependents": "True"})
    assert response.status_code == 200, response.text  # an orphaning delete, not a 400
    kept = (await api.get(f"{CONFIGMAPS}/o")).json()["metadata"]  # until the GC orphans
    assert kept["finalizers"] == ["orphan"] and kept["deletionTimestamp"]
    false = await api.delete(f"{CONFIGMAPS}/o", params={"orphanDependents": "FALSE"})
    assert false.status_code in (200, 202), false.text


async def test_force_in_any_spelling_forces_an_apply(api: httpx.AsyncClient) -> None:
    apply = {"content-type": "application/apply-patch+yaml"}
    body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"f"},"data":{"k":"%s"}}'
    first = await api.patch(
        f"{CONFIGMAPS}/f", params={"fieldManager": "a"}, content=body % "a", headers=apply
    )
    assert first.status_code == 201, first.text
    conflict = await api.patch(
        f"{CONFIGMAPS}/f", params={"fieldManager": "b"}, content=body % "b", headers=apply
    )
    assert conflict.status_code == 409
    forced = await api.patch(
        f"{CONFIGMAPS}/f", params={"fieldManager": "b", "force": "True"}, content=body % "b", headers=apply
    )
    assert forced.status_code == 200, forced.text
    assert forced.json()["data"] == {"k": "b"}


async def test_the_first_of_repeated_values_counts(api: httpx.AsyncClient) -> None:
    """As upstream's conversions read url.Values: ``watch=0&watch=1`` is a list."""
    listed = await api.get(CONFIGMAPS, params=[("watch", "0"), ("watch", "1")])
    assert listed.json()["kind"] == "ConfigMapList"
    paged = await api.get(CONFIGMAPS, params=[("limit", "x"), ("limit", "1")])
    assert paged.status_code == 400  # the first, "x", is what converts
