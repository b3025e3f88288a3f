"""Field tags: the facts upstream writes in a Go struct field's tag, on the model field itself.

Upstream declares a field once, and its tag carries the JSON name, the protobuf field number and
the strategic-merge-patch strategy::

    Replicas   *int32      `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
    Containers []Container `json:"containers" patchStrategy:"merge" patchMergeKey:"name" protobuf:...`

A model field carries the same facts as the default value ``tag(...)`` returns (the JSON name is
the field's alias, see ``base.json_name``)::

    replicas: Int32 | None = tag(1, "*", "omitempty")
    containers: list[Container] | None = tag(2, merge_key="name")

- ``number``: the protobuf field number, or ``None`` for a field that is not on the wire (TypeMeta's
  ``apiVersion``/``kind``, which the protobuf envelope carries; a field added upstream after the
  messages were transcribed; or a field of a kind that has no protobuf message yet, tagged only
  for its patch strategy).
- flags, Go's shape facts the protobuf decoder needs to render JSON as ``encoding/json`` would:
  ``"*"`` (a Go pointer: absent is nil, not the zero value), ``"omitempty"``, ``"omitzero"``.
- ``proto``: the protobuf element type (a name, or a model), only where the annotation cannot tell
  it. It is derived
  (``protobuf/from_models.py``): ``str`` -> string, ``Int32``/``Int64`` -> int32/int64, ``bool``,
  ``Double`` -> float64, ``Bytes`` -> bytes, ``Time``, ``MicroTime``, ``Quantity``, ``IntOrString``,
  ``FieldsV1`` and free-form objects -> RawJSON, a model -> its message; ``list[...]`` is repeated,
  ``dict[str, ...]`` a map. Overrides name ``Duration`` (a Go duration held as ``str``), or give the
  model of a field whose JSON is deliberately free-form (``RawObject``) or looser than upstream's.
- ``patch`` and ``merge_key``: upstream's ``patchStrategy`` (``"merge"``, ``"retainKeys"``,
  ``"merge,retainKeys"``, ``"replace"``) and ``patchMergeKey``; a merge key alone means ``"merge"``.

A model that embeds another struct (Go's ``json:",inline"``) subclasses it with the embedding's
field number as a class keyword: ``class ConfigMapEnvSource(LocalObjectReference, inline=1)``.
Plain subclassing (no keyword) only reuses fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from pydantic import Field
from pydantic.fields import FieldInfo

FLAGS = frozenset({"*", "omitempty", "omitzero"})
PATCH_STRATEGIES = frozenset({"merge", "retainKeys", "merge,retainKeys", "replace"})


class TagError(ValueError):
    """A malformed tag (a programming error, raised when the model is defined)."""


@dataclass(frozen=True, slots=True)
class Tag:
    """One field's tag; see the module docstring."""

    number: int | None
    pointer: bool = False
    omitempty: bool = False
    omitzero: bool = False
    proto: str | type[Any] | None = None
    patch: str | None = None
    merge_key: str | None = None

    @property
    def merges(self) -> bool:
        """Whether a strategic merge patch merges this list (rather than replacing it)."""
        return self.merge_key is not None or self.patch in ("merge", "merge,retainKeys")

    @property
    def retain_keys(self) -> bool:
        """Whether the field has upstream's ``retainKeys`` strategy."""
        return self.patch in ("retainKeys", "merge,retainKeys")


def tag(
    number: int | None = None,
    *flags: str,
    proto: str | type[Any] | None = None,
    patch: str | None = None,
    merge_key: str | None = None,
    alias: str | None = None,
) -> Any:
    """A field's default (``None``) carrying its ``Tag``; ``alias`` overrides the JSON name."""
    unknown = set(flags) - FLAGS
    if unknown:
        raise TagError(f"unknown tag flags {sorted(unknown)}")
    if patch is not None and patch not in PATCH_STRATEGIES:
        raise TagError(f"unknown patch strategy {patch!r}")
    if number is not None and number <= 0:
        raise TagError(f"protobuf field numbers are positive, not {number}")
    info = cast(FieldInfo, Field(default=None, alias=alias))
    info.metadata.append(
        Tag(
            number=number,
            pointer="*" in flags,
            omitempty="omitempty" in flags,
            omitzero="omitzero" in flags,
            proto=proto,
            patch=patch,
            merge_key=merge_key,
        )
    )
    return info


def tag_of(info: FieldInfo) -> Tag | None:
    """The ``Tag`` of a model field, or None for an untagged field."""
    for mark in info.metadata:
        if isinstance(mark, Tag):
            return mark
    return None
