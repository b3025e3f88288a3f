"""Strategic merge patch schemas: which lists merge, and on which key.

Upstream reads this from the Go struct tags ``patchStrategy`` and ``patchMergeKey``. Here a
schema is a tree of two node types that mirrors the Go types, so one ``Fields`` value (say,
PodSpec) is shared by every kind that embeds it:

- ``Fields`` is a JSON object type (a Go struct). It names only the fields that carry patch
  metadata or lead to fields that do. Every other field is plain: objects merge key by key,
  lists are replaced whole, exactly like JSON merge patch.
- ``List`` is a list field with ``patchStrategy:"merge"``. With a ``merge_key`` its items are
  objects merged by that key and described by ``item``; without one it is a set of
  primitives (``finalizers``): union, no duplicates, order kept.

``retain_keys`` mirrors a ``retainKeys`` strategy. It is informational: upstream uses it to
*build* patches (a client-side job), and applying a patch honours a ``$retainKeys`` directive
wherever it appears.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeAlias


@dataclass(frozen=True)
class Fields:
    """The patch metadata of one object type; unnamed fields are plain (see module docstring)."""

    fields: Mapping[str, Schema] = field(default_factory=dict)
    retain_keys: bool = False

    def child(self, name: str) -> Schema:
        """The schema of field ``name``: its declared node, or the plain ``Fields()``."""
        return self.fields.get(name, PLAIN)


PLAIN = Fields()


@dataclass(frozen=True)
class List:
    """A merging list: objects merged by ``merge_key``, or a primitive set if it is None."""

    merge_key: str | None = None
    item: Fields = PLAIN
    retain_keys: bool = False


Schema: TypeAlias = Fields | List
PatchSchema: TypeAlias = Fields
"""The schema of a whole object (a kind); plain ``Fields()`` for kinds without metadata."""


def fields_of(schema: Schema) -> Fields:
    """``schema`` as an object schema: a ``List`` met where the data holds an object is plain."""
    return schema if isinstance(schema, Fields) else PLAIN
