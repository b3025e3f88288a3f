"""``resourceVersion`` and ``limit`` query values that do not parse as upstream's do (issue 13,
item 6): ``resourceVersion=18446744073709551616`` waited 3 s for a revision and answered 504,
``limit=10^30`` was accepted."""

from __future__ import annotations

import time

import httpx
import pytest

from apiserver.endpoints.watch import watch_timeout

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
HUGE = "18446744073709551616"  # 2**64


def parse_uint_error(value: str, why: str) -> str:
    return f'resourceVersion: Invalid value: "{value}": strconv.ParseUint: parsing "{value}": {why}'


@pytest.mark.parametrize(
    ("rv", "why"),
    [
        (HUGE, "value out of range"),
        ("abc", "invalid syntax"),
        ("-1", "invalid syntax"),
        ("+1", "invalid syntax"),
    ],
)
async def test_list_with_an_unparsable_resource_version_is_400_at_once(
    api: httpx.AsyncClient, rv: str, why: str
) -> None:
    started = time.monotonic()
    response = await api.get(CONFIGMAPS, params={"resourceVersion": rv})
    assert time.monotonic() - started < 2  # no wait for a revision that cannot come
    assert (response.status_code, response.json()["reason"]) == (400, "BadRequest")
    assert response.json()["message"] == "invalid resource version: " + parse_uint_error(rv, why)


async def test_watch_with_an_unparsable_resource_version_is_invalid(api: httpx.AsyncClient) -> None:
    params = {"watch": "true", "resourceVersion": HUGE, "fieldSelector": "metadata.name=x"}
    response = await api.get(CONFIGMAPS, params=params)
    assert response.status_code == 422
    body = response.json()
    assert body["message"] == 'configmaps "x" is invalid: ' + parse_uint_error(HUGE, "value out of range")
    assert body["details"]["causes"][0]["field"] == "resourceVersion"
    apps = await api.get("/apis/apps/v1/deployments", params={"watch": "1", "resourceVersion": "x"})
    assert apps.json()["message"].startswith('deployments.apps "" is invalid: resourceVersion')


async def test_get_with_an_unparsable_resource_version_is_400(api: httpx.AsyncClient) -> None:
    await api.post(CONFIGMAPS, json={"metadata": {"name": "g"}})
    response = await api.get(f"{CONFIGMAPS}/g", params={"resourceVersion": HUGE})
    assert (response.status_code, response.json()["message"]) == (
        400,
        parse_uint_error(HUGE, "value out of range"),
    )


async def test_a_valid_resource_version_of_zero_padded_digits_is_accepted(api: httpx.AsyncClient) -> None:
    assert (await api.get(CONFIGMAPS, params={"resourceVersion": "0"})).status_code == 200
    listed = (await api.get(CONFIGMAPS)).json()["metadata"]["resourceVersion"]
    assert (await api.get(CONFIGMAPS, params={"resourceVersion": "00" + listed})).status_code == 200


@pytest.mark.parametrize(
    ("limit", "message"),
    [
        ("1" + "0" * 30, 'strconv.ParseInt: parsing "1000000000000000000000000000000": value out of range'),
        ("9223372036854775808", 'strconv.ParseInt: parsing "9223372036854775808": value out of range'),
        ("ten", 'strconv.ParseInt: parsing "ten": invalid syntax'),
        ("", 'strconv.ParseInt: parsing "": invalid syntax'),
    ],
)
async def test_unparsable_limit_is_400(api: httpx.AsyncClient, limit: str, message: str) -> None:
    response = await api.get(CONFIGMAPS, params={"limit": limit})
    assert (response.status_code, response.json()["message"]) == (400, message)


async def test_zero_and_negative_limits_do_not_page(api: httpx.AsyncClient) -> None:
    for name in ("l1", "l2"):
        await api.post(CONFIGMAPS, json={"metadata": {"name": name}})
    for limit in ("0", "-5", "9223372036854775807"):
        listed = (await api.get(CONFIGMAPS, params={"limit": limit})).json()
        assert len(listed["items"]) == 2 and "continue" not in listed["metadata"], limit
    paged = (await api.get(CONFIGMAPS, params={"limit": "1"})).json()
    assert len(paged["items"]) == 1 and paged["metadata"]["continue"]


@pytest.mark.parametrize(
    ("seconds", "message"),
    [
        ("9223372036854775808", 'strconv.ParseInt: parsing "9223372036854775808": value out of range'),
        ("1e3", 'strconv.ParseInt: parsing "1e3": invalid syntax'),
        ("-1", 'timeoutSeconds: Invalid value: "-1": must be a non-negative integer'),
    ],
)
async def test_a_watch_timeout_past_int64_or_not_an_integer_is_400(
    api: httpx.AsyncClient, seconds: str, message: str
) -> None:
    """Regression: ``timeoutSeconds`` above int64 was accepted (upstream's conversion refuses it)."""
    response = await api.get(CONFIGMAPS, params={"watch": "true", "timeoutSeconds": seconds})
    assert (response.status_code, response.json()["message"]) == (400, message)


def test_the_largest_watch_timeout_is_taken_as_given() -> None:
    assert watch_timeout("9223372036854775807", 1800) == 9223372036854775807
    assert 1800 <= watch_timeout("0", 1800) < 3600
