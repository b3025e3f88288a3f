"""Typed storage errors, shared by the KV backends, ObjectStorage and the cacher.

The REST layer maps each of these to a Kubernetes ``Status`` in one place; storage code never
builds HTTP responses. The codes and reasons here are upstream's
(``k8s.io/apiserver/pkg/storage/errors.go`` and its ``interpretStorageError``).
"""

from __future__ import annotations

# Upstream's etcd request budget (``--max-request-bytes`` default 1.5 MiB, apiserver limit 3 MiB).
MAX_VALUE_BYTES = 3 * 1024 * 1024


class StorageError(Exception):
    """Base of every storage failure. ``code`` and ``reason`` are the Status it becomes."""

    code = 500
    reason = "InternalError"

    def __init__(self, message: str, *, key: str = "") -> None:
        super().__init__(message)
        self.key = key


class KeyExistsError(StorageError):
    """A create found the key already present."""

    code = 409
    reason = "AlreadyExists"


class KeyNotFoundError(StorageError):
    """The key does not exist (or was deleted before a conditional write)."""

    code = 404
    reason = "NotFound"


class ConflictError(StorageError):
    """A compare-and-swap lost: the key's mod revision is no longer the expected one.

    ``current_revision`` is the key's mod revision now (0 if it is gone), so the caller can
    re-read and retry without guessing.
    """

    code = 409
    reason = "Conflict"

    def __init__(self, message: str, *, key: str = "", current_revision: int = 0) -> None:
        super().__init__(message, key=key)
        self.current_revision = current_revision


class PreconditionError(ConflictError):
    """A uid or resourceVersion precondition did not hold (409 Conflict, like upstream)."""


class CompactedError(StorageError):
    """The requested revision is older than the compaction point: 410 Gone / Expired."""

    code = 410
    reason = "Expired"

    def __init__(self, message: str, *, compact_revision: int, requested: int = 0) -> None:
        super().__init__(message)
        self.compact_revision = compact_revision
        self.requested = requested


class TooLargeResourceVersionError(StorageError):
    """A read asked for a revision the store (or cache) has not reached in time."""

    code = 504
    reason = "Timeout"

    def __init__(self, requested: int, current: int) -> None:
        super().__init__(f"Too large resource version: {requested}, current: {current}")
        self.requested = requested
        self.current = current


class RequestTooLargeError(StorageError):
    """The value exceeds the store's request budget (``MAX_VALUE_BYTES``)."""

    code = 413
    reason = "RequestEntityTooLarge"


class InvalidObjectError(StorageError):
    """Stored bytes or a continue token could not be decoded."""

    code = 400
    reason = "BadRequest"


class UnavailableError(StorageError):
    """The backend cannot be reached (etcd down, database unusable)."""

    code = 503
    reason = "ServiceUnavailable"


class StoreConfigError(StorageError):
    """The store URL or its files are unusable at start: the CLI prints it and exits 2."""
