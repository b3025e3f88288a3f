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

Whatever the directive, accepted unknown fields are dropped before the object is stored: upstream
decodes built-in kinds into Go structs, which have nowhere to keep them (``metadata`` included;
maps such as labels, annotations or ConfigMap data, and free-form fields, have no unknown keys).
Updates and patches report only the unknown fields the stored object does not have (none, once
stored objects are pruned); the others are dropped silently, as upstream's read of the stored
object would.

Server-side apply is not decoded this way: upstream converts the configuration to a typed value,
which refuses undeclared fields under every directive. ``check_apply`` answers that refusal,
upstream's ``failed to create typed patch object (...): .spec.foo: field not declared in schema``
(a 400, as this server answers every other typed-conversion failure of an apply).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, cast

from starlette.responses import Response

from apiserver.admission import warnings as admission_warnings
from apiserver.patch.fieldpath import path_string
from apiserver.patch.fieldset import item_element
from apiserver.patch.schema import PLAIN, Fields, List, Schema, fields_of
from minikube_py import jsonutil
from minikube_py.api import errors
from minikube_py.api.field_errors import go_quote, not_supported
from minikube_py.api.field_errors import invalid as invalid_field
from minikube_py.api.models.fieldvalidation import Step, UnknownField, find_unknown, prune, unknown_fields
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object

STRICT, WARN, IGNORE = "Strict", "Warn", "Ignore"
SUPPORTED = ("", IGNORE, STRICT, WARN)
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


def check_apply(rt: ResourceType, schema: Fields, config: Object) -> None:
    """Refuse an apply configuration with fields ``rt``'s kind does not declare (400, every
    directive; see the module docstring). As upstream's typed conversion, each object reports
    its first such field, and paths name list items by key: ``.spec.containers[name="web"].x``.
    A configuration of another kind or with ``managedFields`` is left to the apply, which
    refuses it first."""
    if (config.get("apiVersion"), config.get("kind")) != (rt.api_version, rt.kind):
        return
    meta = config.get("metadata")
    if meta is not None and (not isinstance(meta, dict) or meta.get("managedFields") is not None):
        return
    found = find_unknown(rt.api_version, rt.kind, config)
    if not found:
        return
    first: dict[int, UnknownField] = {}  # each object's first undeclared field, in document order
    for field in found:
        first.setdefault(id(field.parent), field)
    undeclared = [
        _apply_path(config, f.steps, schema) + ": field not declared in schema" for f in first.values()
    ]
    detail = undeclared[0] if len(undeclared) == 1 else "\n  ".join(["errors:", *undeclared])
    group, _, version = rt.api_version.rpartition("/")
    named = f"{(meta or {}).get('namespace', '')}/{(meta or {}).get('name', '')}"
    raise errors.bad_request(
        f"failed to create typed patch object ({named}; {group}/{version}, Kind={rt.kind}): {detail}"
    )


def _apply_path(config: Object, steps: tuple[Step, ...], schema: Fields) -> str:
    """``steps`` into ``config`` as structured-merge-diff prints a path: list items of merging
    lists named by key or value, other list items by index."""
    out: list[str] = []
    value: Any = config
    node: Schema = schema
    for step in steps:
        value = value[step]
        if isinstance(step, str):
            out.append("." + step)
            node = fields_of(node).child(step)
            continue
        element = item_element(value, node) if isinstance(node, List) else None
        out.append(path_string((element,)) if element else f"[{step}]")
        node = node.item if isinstance(node, List) else PLAIN
    return "".join(out)


class FieldValidation:
    """Field validation of one write request; ``respond`` adds the warnings it collected."""

    def __init__(self, rt: ResourceType, query: Mapping[str, str], options_kind: str) -> None:
        self.rt = rt
        self.directive = parse_directive(query, options_kind)
        self.warnings: list[str] = []

    def _pruned(self, obj: Object) -> list[str]:
        """Drop ``obj``'s unknown fields; their paths (built only when some were found)."""
        found = find_unknown(self.rt.api_version, self.rt.kind, obj)
        if not found:
            return []
        prune(found)
        return [field.path for field in found]

    def check_object(self, obj: Object) -> None:
        """Check a create body (400 BadRequest in ``Strict`` mode) and drop its unknown fields."""
        self._report(self._pruned(obj), self._decode_error)

    def check_update(self, desired: Object) -> Mutation:
        """The mutation of an update (PUT) to ``desired``, without its unknown fields, checking
        those the stored object lacks (400 BadRequest in ``Strict`` mode)."""
        added = self._pruned(desired)  # once: every attempt starts from the pruned body
        pristine = _snapshot(desired)
        attempts = 0

        def update(current: Object) -> Object:
            nonlocal attempts
            self._report_added(added, current, self._decode_error)
            attempts += 1  # the store writes into what it gets: a retry starts from a copy
            return desired if attempts == 1 else pristine()

        return update

    def check_patch(self, mutate: Mutation, patch: bytes) -> Mutation:
        """``mutate`` (current -> patched, never changing current), then the patched object's
        unknown fields dropped, checking those the stored object lacks (422 Invalid on ``patch``
        in ``Strict`` mode)."""

        def patch_error(paths: list[str]) -> errors.ApiError:
            error = invalid_field("patch", patch.decode("utf-8", "replace"), strict_message(paths))
            return errors.invalid("", "", "", [errors.Cause(error.reason, error.body(), error.field)])

        def patched(current: Object) -> Object:
            changed = mutate(current)
            self._report_added(self._pruned(changed), current, patch_error)
            return changed

        return patched

    def _report_added(
        self, paths: list[str], current: Object, fail: Callable[[list[str]], errors.ApiError]
    ) -> None:
        self.warnings = []  # a retried update starts over
        if paths and self.directive != IGNORE:
            before = set(unknown_fields(self.rt.api_version, self.rt.kind, current))
            self._report([p for p in paths if p not in before], fail)

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
        """``response``, once the request's warnings have the collected ones (first, as upstream
        records them while decoding); the resource endpoints write them as headers."""
        admission_warnings.warn_first(self.warnings)
        return response


def _snapshot(obj: Object) -> Callable[[], Object]:
    """A function returning fresh copies of ``obj`` as it is now (JSON bytes when it is plain
    JSON data, the cheap case, else a deep copy)."""
    try:
        data = jsonutil.dumps(obj)
    except TypeError:
        kept = copy.deepcopy(obj)
        return lambda: copy.deepcopy(kept)
    return lambda: cast(Object, jsonutil.loads(data))
