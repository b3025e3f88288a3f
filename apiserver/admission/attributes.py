"""``Attributes``: everything an admission plugin may know about one write (upstream's
``admission.Attributes``), and ``forbidden``, upstream's ``admission.NewForbidden``."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from apiserver.request.context import current_user
from apiserver.request.user import UserInfo
from minikube_py.api import errors
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object


class Operation(StrEnum):
    CREATE = "CREATE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    CONNECT = "CONNECT"


@dataclass(slots=True)
class Attributes:
    """One admission request. ``object`` is the object being written (None for DELETE and
    CONNECT); mutating plugins change it in place. ``old_object`` is the stored object on UPDATE
    and DELETE. ``user`` is the requester as authentication established it (the request
    context). ``options`` are the operation's options (e.g. ``DeleteOptions``) when known."""

    operation: Operation
    resource: ResourceType
    subresource: str
    namespace: str
    name: str
    object: Object | None
    old_object: Object | None = None
    dry_run: bool = False
    options: Any = None
    user: UserInfo = field(default_factory=current_user.get)

    @property
    def kind(self) -> str:
        return self.resource.kind

    @property
    def group(self) -> str:
        return self.resource.group

    def is_main(self, group: str, resource: str) -> bool:
        """The request is for ``group``/``resource`` itself, not one of its subresources."""
        return (self.resource.group, self.resource.resource, self.subresource) == (group, resource, "")


def forbidden(attrs: Attributes, why: str) -> errors.ApiError:
    """403 ``<resource> "<name>" is forbidden: <why>``; the name falls back to the object's
    (a generated name is only known once the store filled it in)."""
    return errors.forbidden(attrs.resource.resource, object_name(attrs), attrs.resource.group, why)


def object_name(attrs: Attributes) -> str:
    """The request's name, or the object's (a generated name is only known once the store
    filled it in)."""
    if not attrs.name and attrs.object is not None:
        return str((attrs.object.get("metadata") or {}).get("name", ""))
    return attrs.name
