"""Server-side field validation: upstream's ``fieldValidation`` query parameter.

``Strict`` (what kubectl sends) rejects objects with fields their kind's model does not know;
``Warn`` (the default, as upstream) accepts them and adds one ``Warning: 299 - "unknown field
\\"spec.foo\\""`` response header per field; ``Ignore`` says nothing. Any other value is a 422,
as upstream's option validation answers.

Create checks the body, update (PUT) the new object and patches (JSON, merge, strategic) the
patched object, which covers every field the patch adds, as upstream does. A strict failure is
upstream's 400 BadRequest for create and update (``<Kind> in version "<v>" cannot be handled as
a <Kind>: strict decoding error: unknown field "spec.foo"``) and 422 Invalid on the ``patch``
field for patches.

Unlike upstream, unknown fields accepted under ``Warn`` or ``Ignore`` are kept, not dropped: a
model that lags behind upstream must never cost a client its data. So that such fields do not
make later writes fail, updates and patches report only the unknown fields that the stored object
does not have yet (upstream never stores unknown fields, so there the two rules agree).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from starlette.responses import Response

from minikube_py.api import errors
from minikube_py.api.field_errors import go_quote, not_supported
from minikube_py.api.field_errors import invalid as invalid_field
from minikube_py.api.models.fieldvalidation import unknown_fields
from minikube_py.api.scheme import ResourceType

STRICT, WARN, IGNORE = "Strict", "Warn", "Ignore"
SUPPORTED = ("", IGNORE, STRICT, WARN)
Object = dict[str, Any]
Mutation = Callable[[Object], Object]


def parse_directive(query: Mapping[str, str], options_kind: str) -> str:
    """The request's directive (``Warn`` when absent); 422 for unsupported values, like
    upstream's ``CreateOptions``/``UpdateOptions``/``PatchOptions`` validation."""
    value = query.get("fieldValidation", "")
    if value in SUPPORTED:
        return value or WARN
    error = not_supported("fieldValidation", value, SUPPORTED)
    message = f'{options_kind}.meta.k8s.io "" is invalid: {error}'
    cause = errors.Cause(error.reason, error.body(), error.field)
    raise errors.ApiError(422, "Invalid", message, "", "meta.k8s.io", options_kind, [cause])


def strict_message(paths: list[str]) -> str:
    """Upstream's strict decoding error for unknown fields at ``paths``."""
    return "strict decoding error: " + ", ".join(f"unknown field {go_quote(p)}" for p in paths)


def warning_header(text: str) -> str:
    """An RFC 7234 ``Warning`` header value as upstream's apiserver writes it."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'299 - "{escaped}"'


class FieldValidation:
    """Field validation of one write request; ``respond`` adds the warnings it collected."""

    def __init__(self, rt: ResourceType, query: Mapping[str, str], options_kind: str) -> None:
        self.rt = rt
        self.directive = parse_directive(query, options_kind)
        self.warnings: list[str] = []

    def _unknown(self, obj: Object) -> list[str]:
        if self.directive == IGNORE:
            return []
        return unknown_fields(self.rt.api_version, self.rt.kind, obj)

    def check_object(self, obj: Object) -> None:
        """Check a create body (400 BadRequest in ``Strict`` mode)."""
        self._report(self._unknown(obj), self._decode_error)

    def check_update(self, desired: Object) -> Mutation:
        """The mutation of an update (PUT) to ``desired``, checking the fields it adds to the
        stored object (400 BadRequest in ``Strict`` mode)."""
        return self._checked(lambda current: desired, self._decode_error)

    def check_patch(self, mutate: Mutation, patch: bytes) -> Mutation:
        """``mutate`` (current -> patched), checking the fields the patch adds (422 Invalid on
        ``patch`` in ``Strict`` mode)."""

        def patch_error(paths: list[str]) -> errors.ApiError:
            error = invalid_field("patch", patch.decode("utf-8", "replace"), strict_message(paths))
            return errors.invalid("", "", "", [errors.Cause(error.reason, error.body(), error.field)])

        return self._checked(mutate, patch_error)

    def _checked(self, mutate: Mutation, fail: Callable[[list[str]], errors.ApiError]) -> Mutation:
        def checked(current: Object) -> Object:
            before = set(self._unknown(current))
            changed = mutate(current)
            self.warnings = []  # a retried update starts over
            self._report([p for p in self._unknown(changed) if p not in before], fail)
            return changed

        return checked

    def _decode_error(self, paths: list[str]) -> errors.ApiError:
        kind, version = self.rt.kind, self.rt.version
        return errors.bad_request(
            f'{kind} in version "{version}" cannot be handled as a {kind}: {strict_message(paths)}'
        )

    def _report(self, paths: list[str], fail: Callable[[list[str]], errors.ApiError]) -> None:
        if paths and self.directive == STRICT:
            raise fail(paths)
        if self.directive == WARN:
            self.warnings.extend(f"unknown field {go_quote(p)}" for p in paths)

    def respond(self, response: Response) -> Response:
        """``response`` with one ``Warning`` header per collected warning."""
        for text in dict.fromkeys(self.warnings):
            response.headers.append("Warning", warning_header(text))
        return response
