"""What every API model shares: the base class, upstream's JSON naming, and the special scalars.

Models use snake_case attributes; their JSON (alias) names are upstream's camelCase, built by
``json_name`` (``pod_ip`` -> ``podIP``, ``non_resource_urls`` -> ``nonResourceURLs``). A field
whose upstream name breaks the rule carries an explicit ``alias``. Every field is optional and
defaults to None: a model describes the shape of an object, never whether it is valid (that is
the registry's job), so partial objects such as patches and templates always load.

Field docstrings (the string literal under a field) become the field's ``description``, which the
OpenAPI schemas (``kubectl explain``) show. Special scalars are ``Annotated`` aliases whose markers
(``Format``, ``SchemaRef``, ``OneOf``) only shape the OpenAPI schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict

from minikube_py.api.quantity import QuantityError, parse_quantity
from minikube_py.api.scheme import Declaration

# Words upstream spells in capitals when they are not the first word of a JSON name.
_ACRONYMS = {
    "api": "API",
    "cidr": "CIDR",
    "cidrs": "CIDRs",
    "fqdn": "FQDN",
    "id": "ID",
    "ip": "IP",
    "ipc": "IPC",
    "ips": "IPs",
    "pid": "PID",
    "uid": "UID",
    "url": "URL",
    "urls": "URLs",
    "uuid": "UUID",
}


def json_name(name: str) -> str:
    """Upstream's JSON name of a snake_case attribute (a trailing ``_`` dodges keywords)."""
    head, *rest = name.rstrip("_").split("_")
    return head + "".join(_ACRONYMS.get(word, word[:1].upper() + word[1:]) for word in rest)


class K8sModel(BaseModel):
    """Base of every API model: JSON names as aliases, unknown keys kept (never dropped).

    ``required_fields`` lists the JSON names upstream marks required; it only feeds the OpenAPI
    ``required`` list (loading never insists on them). Fields carry upstream's struct tag facts
    (protobuf number, Go shape, patch strategy) through ``tags.tag``.

    ``kinds`` is the declaration of a top-level model (a kind): each ``Served`` entry is a REST
    resource of that kind, each ``Kind`` entry an (apiVersion, kind) with no resource of its own.
    The scheme and ``MODELS`` are built from these (``registry``); only the class that writes
    ``kinds`` itself declares, a subclass inherits no declaration.
    """

    model_config = ConfigDict(
        alias_generator=json_name,
        populate_by_name=True,
        extra="allow",
        defer_build=True,
        # field docstrings feed only OpenAPI: read from source when it is built (fielddocs.py)
    )

    required_fields: ClassVar[tuple[str, ...]] = ()
    kinds: ClassVar[tuple[Declaration, ...]] = ()
    embedded_at: ClassVar[int | None] = None
    """The protobuf number at which this model embeds its base model (Go's ``json:",inline"``
    embedded struct), from the class keyword ``inline=N``; None for plain subclasses."""
    embedded_name: ClassVar[str | None] = None
    """The embedding's protobuf field name when it is not the base's name in lowerCamel case
    (class keyword ``inline_name``)."""

    def __init_subclass__(
        cls, *, inline: int | None = None, inline_name: str | None = None, **kwargs: Any
    ) -> None:
        super().__init_subclass__(**kwargs)
        # Set on every class, so that a subclass of an embedding model does not inherit it.
        cls.embedded_at, cls.embedded_name = inline, inline_name

    def to_dict(self) -> dict[str, Any]:
        """The object as upstream JSON: aliases, and only the fields that were set."""
        return self.model_dump(by_alias=True, exclude_unset=True, mode="json")


@dataclass(frozen=True, slots=True)
class Format:
    """OpenAPI ``format`` of a scalar (``int32``, ``int64``, ``byte``, ``double``)."""

    name: str


@dataclass(frozen=True, slots=True)
class SchemaRef:
    """The scalar is a named upstream type with its own schema (``Quantity``, ``Time``)."""

    name: str


@dataclass(frozen=True, slots=True)
class OneOf:
    """The values upstream lists as the field's ``enum`` (documentation only, never enforced)."""

    values: tuple[str, ...]

    def __init__(self, *values: str) -> None:
        object.__setattr__(self, "values", values)


def _check_quantity(value: str | int | float) -> str | int | float:
    if isinstance(value, str):
        try:
            parse_quantity(value)
        except QuantityError as err:
            raise ValueError(str(err)) from None
    return value


META = "io.k8s.apimachinery.pkg.apis.meta.v1"

Int32 = Annotated[int, Format("int32")]
Int64 = Annotated[int, Format("int64")]
Double = Annotated[float, Format("double")]
Bytes = Annotated[str, Format("byte")]
"""Binary data: base64 text in JSON."""
Quantity = Annotated[
    str | int | float,
    AfterValidator(_check_quantity),
    SchemaRef("io.k8s.apimachinery.pkg.api.resource.Quantity"),
]
IntOrString = Annotated[int | str, SchemaRef("io.k8s.apimachinery.pkg.util.intstr.IntOrString")]
Time = Annotated[str, SchemaRef(f"{META}.Time")]
"""RFC 3339 timestamp with seconds (``2024-01-02T03:04:05Z``)."""
MicroTime = Annotated[str, SchemaRef(f"{META}.MicroTime")]
"""RFC 3339 timestamp with microseconds."""
FieldsV1 = Annotated[dict[str, Any], SchemaRef(f"{META}.FieldsV1")]
RawObject = dict[str, Any]
"""Free-form JSON object: its content is never checked (unknown keys included)."""
ResourceList = dict[str, Quantity]
StrMap = dict[str, str]
