"""The decoder's description of Kubernetes protobuf messages and of the JSON their Go types render.

A ``Message`` lists its ``Field``s in Go struct order (the JSON key order), each with its wire
number, JSON name, element type, ``Shape`` and ``encoding/json`` options (``omitempty``,
``omitzero``, ``inline`` for an embedded struct whose keys are merged into the parent object).
Element types are the scalars in ``SCALARS`` (``bytes`` is Go's ``[]byte``: base64 in JSON), the
``SPECIALS`` with a hand-written JSON form, or another message's name.

The messages are not written here: ``from_models.py`` builds them from the models' field tags
(``minikube_py/api/models/tags.py``), which carry the facts of upstream's Go struct tags.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

SCALARS = frozenset({"string", "bytes", "int32", "int64", "bool", "float64"})
# meta/v1 Time and MicroTime, resource.Quantity, intstr.IntOrString, meta/v1 Duration, and
# runtime.RawExtension / meta/v1 FieldsV1 (raw JSON bytes), each with its own MarshalJSON.
SPECIALS = frozenset({"Time", "MicroTime", "Quantity", "IntOrString", "Duration", "RawJSON"})


class SchemaError(ValueError):
    """A mistake in a message description (a programming error, raised at import time)."""


class Shape(Enum):
    """How a field holds its element type."""

    SINGLE = "single"
    POINTER = "pointer"
    LIST = "list"
    MAP = "map"
    MAP_OF_LISTS = "map-of-lists"


@dataclass(frozen=True, slots=True)
class Field:
    """One field: wire number, JSON name, element type and how Go's ``encoding/json`` renders it."""

    number: int
    name: str
    type: str
    shape: Shape = Shape.SINGLE
    omitempty: bool = False
    omitzero: bool = False
    inline: bool = False

    @property
    def is_message(self) -> bool:
        """Whether the element type is another message (not a scalar or a special type)."""
        return self.type not in SCALARS and self.type not in SPECIALS


@dataclass(frozen=True, slots=True)
class Message:
    """A message: its fields in Go struct order, and the same fields by wire number."""

    name: str
    fields: tuple[Field, ...]
    by_number: Mapping[int, Field] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_number", {f.number: f for f in self.fields})
