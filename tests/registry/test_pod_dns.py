"""Pod validation of the DNS fields (upstream's limits and messages, as 422 causes)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from apiserver.registry.resources.pod import PodStrategy
from tests.registry.helpers import causes, meta, prepared_for_create

STRATEGY = PodStrategy()
C = [{"name": "a", "image": "i"}]
IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            {"dnsPolicy": "None"},
            [
                (
                    "FieldValueRequired",
                    "spec.dnsConfig",
                    "Required value: must provide `dnsConfig` when `dnsPolicy` is None",
                )
            ],
        ),
        (
            {"dnsPolicy": "None", "dnsConfig": {"searches": ["a.b"]}},
            [
                (
                    "FieldValueRequired",
                    "spec.dnsConfig.nameservers",
                    "Required value: must provide at least one DNS nameserver when `dnsPolicy` is None",
                )
            ],
        ),
        (
            {"dnsConfig": {"nameservers": ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"]}},
            [
                (
                    "FieldValueInvalid",
                    "spec.dnsConfig.nameservers",
                    "must not have more than 3 nameservers",
                )
            ],
        ),
        (
            {"dnsConfig": {"nameservers": ["not-an-ip"]}},
            [("FieldValueInvalid", "spec.dnsConfig.nameservers[0]", f'Invalid value: "not-an-ip": {IP}')],
        ),
        (
            {"dnsConfig": {"searches": [f"s{i}.example" for i in range(33)]}},
            [("FieldValueInvalid", "spec.dnsConfig.searches", "must not have more than 32 search paths")],
        ),
        (
            {"dnsConfig": {"searches": ["a" * 60 + "." + "b" * 60 + "." + "c" * 60 for _ in range(12)]}},
            [
                (
                    "FieldValueInvalid",
                    "spec.dnsConfig.searches",
                    "must not have more than 2048 characters (including spaces) in the search list",
                )
            ],
        ),
        (
            {"dnsConfig": {"options": [{"value": "2"}]}},
            [("FieldValueRequired", "spec.dnsConfig.options[0]", "Required value: must not be empty")],
        ),
        (
            {"hostAliases": [{"ip": "nope", "hostnames": ["foo.local"]}]},
            [("FieldValueInvalid", "spec.hostAliases[0].ip", f'Invalid value: "nope": {IP}')],
        ),
        ({"subdomain": "Web_Set"}, [("FieldValueInvalid", "spec.subdomain", "RFC 1123 label")]),
    ],
)
def test_dns_fields_are_validated(spec: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    obj = {"metadata": meta("p"), "spec": {"containers": copy.deepcopy(C), **copy.deepcopy(spec)}}
    prepared_for_create(STRATEGY, obj)
    found = causes(STRATEGY.validate(obj))
    assert [(reason, field) for reason, field, _ in found] == [(r, f) for r, f, _ in expected]
    for (_, _, message), (_, _, want) in zip(found, expected, strict=True):
        assert want in message


@pytest.mark.parametrize(
    "spec",
    [
        {
            "dnsPolicy": "None",
            "dnsConfig": {
                "nameservers": ["127.0.0.53"],
                "searches": ["my.dns.search.suffix."],
                "options": [{"name": "ndots", "value": "2"}],
            },
        },
        {
            "hostname": "db-0",
            "subdomain": "db",
            "hostAliases": [{"ip": "127.0.0.5", "hostnames": ["foo.local"]}],
        },
    ],
)
def test_valid_dns_fields_pass(spec: dict[str, Any]) -> None:
    obj = {"metadata": meta("p"), "spec": {"containers": copy.deepcopy(C), **spec}}
    prepared_for_create(STRATEGY, obj)
    assert STRATEGY.validate(obj) == []
