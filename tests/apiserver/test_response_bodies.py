"""Response bodies byte for byte as upstream's serializer (Go's ``json.Encoder``) writes them
(issue 13, item 19: an official e2e test compares bodies exactly): every document ends with one
newline (``/version`` has none: upstream writes it with ``json.MarshalIndent``), watch events
are one a line, HTML characters are escaped, ``kind`` and ``apiVersion`` lead, and ``pretty``
output is negotiated as upstream does."""

from __future__ import annotations

import json

import httpx
import pytest

from apiserver.endpoints.encoding import list_body

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
TABLE = {"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}


def one_document(response: httpx.Response) -> None:
    body = response.content
    assert body.endswith(b"}\n") and not body.endswith(b"\n\n"), body[-40:]
    json.loads(body)


def test_list_bodies_end_with_a_newline() -> None:
    assert list_body("ConfigMapList", "v1", {}, []).endswith(b'"items":[]}\n')
    assert list_body("ConfigMapList", "v1", {}, [b"{}", b"{}"]).endswith(b'"items":[{},{}]}\n')


async def test_objects_lists_tables_and_errors(api: httpx.AsyncClient) -> None:
    created = await api.post(CONFIGMAPS, json={"metadata": {"name": "nl"}, "data": {"k": "v"}})
    assert created.status_code == 201
    responses = [
        created,
        await api.get(f"{CONFIGMAPS}/nl"),
        await api.get(CONFIGMAPS),
        await api.get("/api/v1/namespaces/nowhere/configmaps"),  # an empty list
        await api.get(CONFIGMAPS, headers=TABLE),
        await api.get(f"{CONFIGMAPS}/nl", headers=TABLE),
        await api.patch(
            f"{CONFIGMAPS}/nl",
            json={"data": {"k": "w"}},
            headers={"content-type": "application/merge-patch+json"},
        ),
        await api.get(f"{CONFIGMAPS}/missing"),  # a NotFound Status from the resource endpoints
        await api.post(CONFIGMAPS, json={"metadata": {"name": "nl"}}),  # AlreadyExists
        await api.get("/nowhere"),  # a Status from the non-resource app
        await api.get("/api"),
        await api.get("/apis"),
        await api.get("/api/v1"),
        await api.get("/apis/apps/v1"),
        await api.delete(f"{CONFIGMAPS}/nl"),
    ]
    for response in responses:
        one_document(response)


async def test_watch_events_are_one_a_line(api: httpx.AsyncClient) -> None:
    await api.post(CONFIGMAPS, json={"metadata": {"name": "w"}})
    response = await api.get(CONFIGMAPS, params={"watch": "1", "resourceVersion": "0", "timeoutSeconds": "1"})
    assert response.content.endswith(b"}\n") and b"\n\n" not in response.content


async def test_version_is_indented_without_a_newline(api: httpx.AsyncClient) -> None:
    body = (await api.get("/version")).content
    assert body.startswith(b'{\n  "major"') and body.endswith(b"}")


@pytest.mark.parametrize("path", ["/api/v1/namespaces/default/configmaps/x"])
async def test_method_not_allowed_status(api: httpx.AsyncClient, path: str) -> None:
    response = await api.post(path, json={})
    assert response.status_code == 405
    one_document(response)


async def test_html_characters_are_escaped_as_go_writes_them(api: httpx.AsyncClient) -> None:
    """Go's encoder escapes <, >, & and U+2028/U+2029 in every document upstream writes."""
    data = {"html": "<b>&amp;</b>", "lines": "a\u2028b\u2029c", "dash": "a \u2013 b"}
    created = await api.post(CONFIGMAPS, json={"metadata": {"name": "esc"}, "data": data})
    escaped = b'"html":"\\u003cb\\u003e\\u0026amp;\\u003c/b\\u003e","lines":"a\\u2028b\\u2029c"'
    watched = await api.get(CONFIGMAPS, params={"watch": "1", "resourceVersion": "0", "timeoutSeconds": "1"})
    for response in (created, await api.get(f"{CONFIGMAPS}/esc"), await api.get(CONFIGMAPS), watched):
        assert escaped in response.content
        assert "a \u2013 b".encode() in response.content  # other non-ASCII stays UTF-8, as in Go
    assert (await api.get(f"{CONFIGMAPS}/esc")).json()["data"] == data
    bad = {"metadata": {"name": "s"}, "type": "kubernetes.io/dockercfg", "data": {".dockercfg": ""}}
    refused = await api.post("/api/v1/namespaces/default/secrets", json=bad)
    assert b"\\u003csecret contents redacted\\u003e" in refused.content  # in Status messages too


async def test_kind_and_api_version_lead_every_object(api: httpx.AsyncClient) -> None:
    """Upstream's structs put TypeMeta first: ``{"kind":...,"apiVersion":...,"metadata":...``,
    whatever order the client wrote (kubectl writes apiVersion first)."""
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "order"}}
    created = await api.post(CONFIGMAPS, json=body)
    lead = b'{"kind":"ConfigMap","apiVersion":"v1","metadata":'
    assert created.content.startswith(lead)
    assert (await api.get(f"{CONFIGMAPS}/order")).content.startswith(lead)
    assert (
        b'"items":[' + lead
        in (await api.get(CONFIGMAPS, params={"fieldSelector": "metadata.name=order"})).content
    )


@pytest.mark.parametrize(
    ("params", "agent", "pretty"),
    [
        ({}, "curl/8.5.0", True),
        ({}, "Wget/1.21", True),
        ({}, "Mozilla/5.0 (X11)", True),
        ({}, "kubectl/v1.33.1", False),
        ({"pretty": "true"}, "python-httpx", True),
        ({"pretty": "1"}, "python-httpx", True),
        ({"pretty": "false"}, "curl/8.5.0", False),
        ({"pretty": "yes"}, "curl/8.5.0", False),  # strconv.ParseBool refuses it: false
        ({"pretty": ""}, "curl/8.5.0", True),  # empty: the user agent decides
    ],
)
async def test_pretty_as_upstream_negotiates_it(
    api: httpx.AsyncClient, params: dict[str, str], agent: str, pretty: bool
) -> None:
    await api.post(CONFIGMAPS, json={"metadata": {"name": "pp"}, "data": {"a": "<b>"}})
    for path in (f"{CONFIGMAPS}/pp", CONFIGMAPS, f"{CONFIGMAPS}/missing", "/api/v1"):
        response = await api.get(path, params=params, headers={"user-agent": agent})
        if pretty:  # Go's json.MarshalIndent: two spaces, no trailing newline, HTML escaped
            assert response.content.startswith(b'{\n  "kind": '), response.content[:40]
            assert not response.content.endswith(b"\n")
            assert json.loads(response.content) == json.loads((await api.get(path)).content)
        else:
            assert response.content.startswith(b'{"kind":') and response.content.endswith(b"}\n")
    shown = (await api.get(f"{CONFIGMAPS}/pp", params=params, headers={"user-agent": agent})).content
    assert b"\\u003cb\\u003e" in shown


async def test_watches_are_never_pretty(api: httpx.AsyncClient) -> None:
    await api.post(CONFIGMAPS, json={"metadata": {"name": "wp"}})
    params = {"watch": "1", "resourceVersion": "0", "timeoutSeconds": "1", "pretty": "true"}
    response = await api.get(CONFIGMAPS, params=params)
    assert response.content.startswith(b'{"type":"ADDED"')
