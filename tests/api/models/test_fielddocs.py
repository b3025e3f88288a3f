"""Field docstrings reach the OpenAPI schemas (what ``kubectl explain`` prints) although the
models no longer collect them at import (``minikube_py.api.models.fielddocs``)."""

from __future__ import annotations

from pydantic import Field

from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.fielddocs import field_docstrings
from minikube_py.api.models.openapi import SchemaSet, schema_name
from minikube_py.api.models.registry import MODELS

OPENAPI_PACKAGE = "io.example.test.v1"


class Base(K8sModel):
    """A base model."""

    name: str | None = None
    """The name,
    on two lines."""
    untold: int | None = None


class Derived(Base):
    """A derived model."""

    replicas: int | None = None
    """How many."""
    label: str | None = Field(default=None, description="Given explicitly.")
    """Not this one: an explicit description wins."""


def test_docstrings_of_the_class_and_its_bases_by_attribute_name() -> None:
    assert field_docstrings(Derived) == {
        "name": "The name,\non two lines.",
        "replicas": "How many.",
        "label": "Not this one: an explicit description wins.",
    }


def test_the_schema_describes_each_documented_field() -> None:
    schemas = SchemaSet()
    properties = schemas.schemas[schemas.add(Derived)]["properties"]
    assert properties["replicas"]["description"] == "How many."
    assert properties["name"]["description"] == "The name, on two lines."
    assert properties["label"]["description"] == "Given explicitly."
    assert "description" not in properties["untold"]


def test_every_served_model_has_documented_fields() -> None:
    """The built-in kinds' fields are described, as they were when pydantic collected them."""
    schemas = SchemaSet()
    for model in {m for m in MODELS.values() if isinstance(m, type)}:
        schema = schemas.schemas[schemas.add(model)]
        described = [p for p in schema["properties"].values() if p.get("description")]
        assert described, schema_name(model)
