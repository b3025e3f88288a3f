"""scheduling.k8s.io/v1 PriorityClass."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int32, OneOf
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import Served

OPENAPI_PACKAGE = "io.k8s.api.scheduling.v1"


class PriorityClass(TypeMeta):
    """Maps a priority class name to the integer priority pods of that class get."""

    kinds = (Served("scheduling.k8s.io", "v1", "priorityclasses", False, ("pc",)),)

    required_fields = ("value",)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    value: Int32 | None = tag(2)
    """The priority of pods of this class; up to one billion for user classes."""
    global_default: bool | None = tag(3, "omitempty")
    """Whether pods without a priority class get this one. Only one class may be the default."""
    description: str | None = tag(4, "omitempty")
    """When this priority class should be used."""
    preemption_policy: Annotated[str, OneOf("Never", "PreemptLowerPriority")] | None = tag(
        5, "*", "omitempty"
    )
    """Whether pods of this class may preempt lower-priority pods. Defaults to
    ``PreemptLowerPriority``."""
