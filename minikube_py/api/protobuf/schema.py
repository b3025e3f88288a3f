"""A declarative description of Kubernetes protobuf messages and of the JSON their Go types render.

Each API group's messages are written in a small text notation, one field a line, taken from the
facts in upstream's Go types (``k8s.io/api/<group>/<version>/types.go``: the ``protobuf:`` tag's field
number, the ``json:`` tag's name and options, and the Go type) and checked against ``generated.proto``::

    message ConfigMap
       1 metadata   ObjectMeta        omitempty
       4 immutable  *bool             omitempty
       2 data       map[string]string omitempty
    message EphemeralContainerCommon = Container

A field line is ``NUMBER JSON-NAME TYPE [omitempty] [omitzero] [inline]``, in the Go struct's order
(which is the JSON key order). TYPE is an element type with at most one prefix: ``*`` (a Go pointer:
absent means nil), ``[]`` (repeated), ``map[string]`` (a proto map), or ``map[string][]`` (a map whose
values are a named slice such as ``ExtraValue``, which protobuf wraps as ``message {repeated T items = 1}``).
Element types are the scalars in ``SCALARS`` (``bytes`` is Go's ``[]byte``: base64 in JSON), the
``SPECIALS`` with a hand-written JSON form, or another message's name. ``inline`` is an embedded Go
struct (``json:",inline"``) whose keys are merged into the parent object.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum

SCALARS = frozenset({"string", "bytes", "int32", "int64", "bool", "float64"})
# meta/v1 Time and MicroTime, resource.Quantity, intstr.IntOrString, meta/v1 Duration, and
# runtime.RawExtension / meta/v1 FieldsV1 (raw JSON bytes), each with its own MarshalJSON.
SPECIALS = frozenset({"Time", "MicroTime", "Quantity", "IntOrString", "Duration", "RawJSON"})
FLAGS = frozenset({"omitempty", "omitzero", "inline"})


class SchemaError(ValueError):
    """A mistake in a message description (a programming error, raised at import time)."""


class Shape(Enum):
    """How a field holds its element type."""

    SINGLE = "single"
    POINTER = "pointer"
    LIST = "list"
    MAP = "map"
    MAP_OF_LISTS = "map-of-lists"


_PREFIXES = (
    ("map[string][]", Shape.MAP_OF_LISTS),
    ("map[string]", Shape.MAP),
    ("[]", Shape.LIST),
    ("*", Shape.POINTER),
)


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


def parse_type(spec: str) -> tuple[Shape, str]:
    """Split ``*int32`` / ``[]Container`` / ``map[string]Quantity`` into shape and element type."""
    matches = [(shape, spec[len(prefix) :]) for prefix, shape in _PREFIXES if spec.startswith(prefix)]
    shape, element = matches[0] if matches else (Shape.SINGLE, spec)
    if not element.isidentifier():
        raise SchemaError(f"unsupported type {spec!r}")
    return shape, element


def parse_field(line: str) -> Field:
    """Parse one ``NUMBER NAME TYPE [FLAGS...]`` line."""
    parts = line.split()
    if len(parts) < 3 or not parts[0].isdigit():
        raise SchemaError(f"bad field line {line.strip()!r}")
    flags = set(parts[3:])
    if not flags <= FLAGS:
        raise SchemaError(f"unknown flags {sorted(flags - FLAGS)} in {line.strip()!r}")
    shape, element = parse_type(parts[2])
    return Field(
        number=int(parts[0]),
        name=parts[1],
        type=element,
        shape=shape,
        omitempty="omitempty" in flags,
        omitzero="omitzero" in flags,
        inline="inline" in flags,
    )


def _make_message(name: str, fields: list[Field]) -> Message:
    numbers = [f.number for f in fields]
    names = [f.name for f in fields if not f.inline]
    if len(set(numbers)) != len(numbers) or len(set(names)) != len(names):
        raise SchemaError(f"message {name} repeats a field number or name")
    if not fields:
        raise SchemaError(f"message {name} has no fields")
    return Message(name, tuple(fields))


def parse_schema(text: str) -> dict[str, Message]:
    """Parse the notation above into messages by name (aliases are resolved within ``text``)."""
    messages: dict[str, Message] = {}
    current: tuple[str, list[Field]] | None = None

    def close() -> None:
        if current is not None:
            _add(messages, _make_message(*current))

    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line:
            continue
        if line[0].isspace():
            if current is None:
                raise SchemaError(f"field outside a message: {line.strip()!r}")
            current[1].append(parse_field(line))
            continue
        close()
        current = None
        words = line.split()
        if words[0] != "message" or len(words) not in (2, 4) or (len(words) == 4 and words[2] != "="):
            raise SchemaError(f"bad message line {line!r}")
        if len(words) == 4:
            if words[3] not in messages:
                raise SchemaError(f"alias {words[1]} of unknown message {words[3]}")
            _add(messages, Message(words[1], messages[words[3]].fields))
        else:
            current = (words[1], [])
    close()
    return messages


def _add(messages: dict[str, Message], message: Message) -> None:
    if message.name in messages:
        raise SchemaError(f"message {message.name} is defined twice")
    messages[message.name] = message


def build_registry(texts: Iterable[str]) -> dict[str, Message]:
    """Parse several schema texts into one registry and check that every reference resolves."""
    registry: dict[str, Message] = {}
    for text in texts:
        for message in parse_schema(text).values():
            _add(registry, message)
    for message in registry.values():
        for f in message.fields:
            if f.is_message and f.type not in registry:
                raise SchemaError(f"{message.name}.{f.name} refers to unknown message {f.type}")
            if f.inline and (not f.is_message or f.shape is not Shape.SINGLE):
                raise SchemaError(f"{message.name}.{f.name}: only a plain message field can be inline")
    return registry
