"""``minikube-py apiserver``'s flow-control flags (upstream's names) into ``SecurityConfig``."""

from __future__ import annotations

import argparse

import pytest

from apiserver.options.security import add_security_flags, security_from_args


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_security_flags(parser)
    return parser.parse_args(argv)


def test_defaults_are_priority_and_fairness_over_scaled_upstream_limits() -> None:
    config = security_from_args(parse())
    assert (config.max_requests_inflight, config.max_mutating_requests_inflight) == (100, 50)
    assert config.enable_priority_and_fairness is True


def test_flags_set_the_limits_and_switch_priority_and_fairness() -> None:
    config = security_from_args(
        parse(
            "--max-requests-inflight=7",
            "--max-mutating-requests-inflight",
            "3",
            "--enable-priority-and-fairness=false",
        )
    )
    assert (config.max_requests_inflight, config.max_mutating_requests_inflight) == (7, 3)
    assert config.enable_priority_and_fairness is False
    assert security_from_args(parse("--enable-priority-and-fairness")).enable_priority_and_fairness is True


def test_a_bad_boolean_is_a_usage_error() -> None:
    with pytest.raises(SystemExit):
        parse("--enable-priority-and-fairness=maybe")
