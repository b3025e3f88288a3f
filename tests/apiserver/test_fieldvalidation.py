"""Server-side field validation: directives, upstream's messages and Warning headers."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from starlette.responses import JSONResponse

from apiserver.admission import warnings as request_warnings
from apiserver.endpoints.fieldvalidation import FieldValidation, parse_directive
from apiserver.endpoints.warningheaders import warning_headers
from minikube_py.api import errors
from minikube_py.api.builtin import builtin_scheme
from minikube_py.api.scheme import ResourceType

SCHEME = builtin_scheme()
DEPLOYMENTS = SCHEME.by_kind("apps/v1", "Deployment")
assert DEPLOYMENTS is not None
DEPLOY: ResourceType = DEPLOYMENTS
STORED: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"x": "y"}},
    "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
}


def validation(directive: str | None, options: str = "CreateOptions") -> FieldValidation:
    return FieldValidation(DEPLOY, {} if directive is None else {"fieldValidation": directive}, options)


def with_unknown(obj: dict[str, Any] | None = None) -> dict[str, Any]:
    out = copy.deepcopy(obj or STORED)
    out["spec"]["foo"] = 1
    out["spec"]["template"]["spec"]["containers"][0]["imagee"] = "x"
    return out


@pytest.mark.parametrize(
    ("given", "directive"), [(None, "Warn"), ("", "Warn"), ("Strict", "Strict"), ("Ignore", "Ignore")]
)
def test_directives(given: str | None, directive: str) -> None:
    assert validation(given).directive == directive


@pytest.mark.parametrize("options", ["CreateOptions", "UpdateOptions", "PatchOptions"])
def test_unsupported_directive_is_invalid_like_upstream(options: str) -> None:
    with pytest.raises(errors.ApiError) as caught:
        parse_directive({"fieldValidation": "strict"}, options)
    err = caught.value
    assert (err.code, err.reason, err.kind, err.group) == (422, "Invalid", options, "meta.k8s.io")
    assert err.message == (
        f'{options}.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": '
        'supported values: "", "Ignore", "Strict", "Warn"'
    )


def test_strict_create_is_bad_request_listing_every_field() -> None:
    with pytest.raises(errors.ApiError) as caught:
        validation("Strict").check_object(with_unknown())
    assert (caught.value.code, caught.value.reason) == (400, "BadRequest")
    assert caught.value.message == (
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
        'unknown field "spec.template.spec.containers[0].imagee", unknown field "spec.foo"'
    )


def headers(check: FieldValidation) -> list[str]:
    """The Warning headers ``check`` adds to a request's response."""
    found = request_warnings.collect()
    check.respond(JSONResponse({}))
    return [value.decode() for value in warning_headers(found)]


def test_warn_collects_one_header_per_field() -> None:
    check = validation("Warn")
    check.check_object(with_unknown())
    assert headers(check) == [
        '299 - "unknown field \\"spec.template.spec.containers[0].imagee\\""',
        '299 - "unknown field \\"spec.foo\\""',
    ]


def test_ignore_and_known_fields_say_nothing() -> None:
    for check, obj in ((validation("Ignore"), with_unknown()), (validation("Strict"), STORED)):
        check.check_object(copy.deepcopy(obj))
        assert headers(check) == []


def test_strict_update_reports_only_fields_the_stored_object_lacks() -> None:
    stored = with_unknown()  # accepted earlier under Warn
    desired = copy.deepcopy(stored)
    assert validation("Strict", "UpdateOptions").check_update(desired)(copy.deepcopy(stored)) is desired
    desired["spec"]["bar"] = 2
    with pytest.raises(errors.ApiError) as caught:
        validation("Strict", "UpdateOptions").check_update(desired)(copy.deepcopy(stored))
    assert caught.value.code == 400 and caught.value.message.endswith(
        'strict decoding error: unknown field "spec.bar"'
    )


def test_strict_patch_is_invalid_on_the_patch_field() -> None:
    patch = b'{"spec":{"zzz":1}}'

    def mutate(current: dict[str, Any]) -> dict[str, Any]:
        current["spec"]["zzz"] = 1
        return current

    with pytest.raises(errors.ApiError) as caught:
        validation("Strict", "PatchOptions").check_patch(mutate, patch)(copy.deepcopy(STORED))
    err = caught.value
    assert (err.code, err.reason) == (422, "Invalid")
    assert err.message == (
        ' "" is invalid: patch: Invalid value: "{\\"spec\\":{\\"zzz\\":1}}": '
        'strict decoding error: unknown field "spec.zzz"'
    )
    assert err.causes[0].field == "patch"


def test_warn_patch_warnings_are_reset_when_the_update_retries() -> None:
    check = validation("Warn", "PatchOptions")
    mutate = check.check_patch(lambda current: {**current, "oops": True}, b"{}")
    mutate(copy.deepcopy(STORED))
    mutate(copy.deepcopy(STORED))
    assert check.warnings == ['unknown field "oops"']


def test_status_message_is_json_serializable() -> None:
    with pytest.raises(errors.ApiError) as caught:
        validation("Strict").check_object(with_unknown())
    assert json.loads(json.dumps(caught.value.status()))["code"] == 400
