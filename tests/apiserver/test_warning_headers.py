"""Warning response headers as upstream writes them (UTF-8, escaped, bounded), and a warning that
cannot be written never failing a write that is already committed (issue 13, item 5)."""

from __future__ import annotations

import asyncio
import ssl
import subprocess

import httpx
import pytest

from apiserver.endpoints.warningheaders import (
    TRUNCATE_AT_TOTAL_RUNES,
    TRUNCATE_ITEM_RUNES,
    warning_header,
    warning_headers,
)
from tests.client.apiserver import RunningApiserver
from tests.cluster import KUBECTL

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def https_client(api: RunningApiserver) -> httpx.AsyncClient:
    context = ssl.create_default_context(cafile=str(api.pki.ca.cert))
    context.load_cert_chain(str(api.pki.admin.cert), str(api.pki.admin.key))
    return httpx.AsyncClient(base_url=api.url, verify=context, timeout=10)


def test_quotes_and_backslashes_are_escaped() -> None:
    assert warning_header('unknown field "a\\b"') == b'299 - "unknown field \\"a\\\\b\\""'


def test_non_latin1_text_is_utf8() -> None:
    assert warning_header('unknown field "ключ"') == '299 - "unknown field \\"ключ\\""'.encode()


def test_texts_upstream_refuses_are_dropped() -> None:
    for text in ("tab\there", "new\nline", "c1\x85control", "surrogate \udc80"):
        assert warning_header(text) is None
    assert warning_headers(["a", "bad\r\n", "b"]) == [b'299 - "a"', b'299 - "b"']


def test_duplicates_and_empty_texts_are_dropped() -> None:
    assert warning_headers(["a", "", "b", "a"]) == [b'299 - "a"', b'299 - "b"']


def test_within_the_budget_nothing_is_cut() -> None:
    texts = [str(i) * 1000 for i in range(4)]  # 4000 runes
    assert [len(v) for v in warning_headers(texts)] == [1000 + 8] * 4


def test_over_the_budget_every_warning_is_cut_and_the_rest_dropped() -> None:
    texts = [f"{i:02d}" + "é" * 998 for i in range(40)]  # 1000 runes each, 2000 bytes
    values = warning_headers(texts)
    # the fifth passes 4096: all five replayed cut to 256 runes, then more until 4096 are written
    assert len(values) == -(-TRUNCATE_AT_TOTAL_RUNES // TRUNCATE_ITEM_RUNES)
    assert all(
        v.decode() == f'299 - "{t[:TRUNCATE_ITEM_RUNES]}"' for v, t in zip(values, texts, strict=False)
    )


async def test_a_non_latin1_unknown_field_on_create_is_201_with_its_warning(
    https_api: RunningApiserver,
) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cyrillic"}, "ключ": 1}
    async with https_client(https_api) as client:
        created = await client.post(CONFIGMAPS, json=body)
        assert created.status_code == 201, created.text
        assert created.headers.get_list("warning") == ['299 - "unknown field \\"ключ\\""']
        assert (
            b"warning",
            '299 - "unknown field \\"ключ\\""'.encode(),
        ) in created.headers.raw  # UTF-8 on the wire
        again = await client.post(CONFIGMAPS, json=body)
        assert again.status_code == 409  # the first answer was the truth: stored once
        patched = await client.patch(
            f"{CONFIGMAPS}/cyrillic",
            json={"data": {"a": "1"}, "ещё": True},
            headers={"content-type": "application/merge-patch+json"},
        )
        assert patched.status_code == 200, patched.text
        assert patched.headers.get_list("warning") == ['299 - "unknown field \\"ещё\\""']


@pytest.mark.e2e
async def test_kubectl_prints_the_utf8_warning(https_api: RunningApiserver) -> None:
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shown\nключ: 1\n"
    cache = https_api.kubeconfig.parent / "kube-cache"  # never the user's ~/.kube
    command = [KUBECTL, "--kubeconfig", str(https_api.kubeconfig), "--cache-dir", str(cache)]
    command += ["create", "--validate=warn", "-f", "-"]
    done = await asyncio.to_thread(
        subprocess.run, command, input=manifest, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert 'Warning: unknown field "ключ"' in done.stderr
    assert "configmap/shown created" in done.stdout
