"""Storage errors as API errors with upstream's messages (upstream's ``registry/generic/registry``
``storeerr``): the one translation every ``GenericStore`` operation applies.
"""

from __future__ import annotations

from apiserver.storage.errors import (
    CompactedError,
    KeyExistsError,
    KeyNotFoundError,
    PreconditionError,
    StorageError,
    TooLargeResourceVersionError,
)
from minikube_py.api import errors
from minikube_py.api.scheme import ResourceType


def interpret(rt: ResourceType, err: StorageError, name: str) -> errors.ApiError:
    """The API error a storage error of ``rt``'s object ``name`` answers."""
    if isinstance(err, KeyNotFoundError):
        return errors.not_found(rt.resource, name, rt.group)
    if isinstance(err, KeyExistsError):
        return errors.already_exists(rt.resource, name, rt.group)
    if isinstance(err, PreconditionError):
        return errors.conflict(rt.resource, name, rt.group, str(err))
    if isinstance(err, CompactedError):
        return errors.expired(str(err))
    if isinstance(err, TooLargeResourceVersionError):
        return errors.timeout(str(err))
    return errors.ApiError(err.code, err.reason, str(err))
