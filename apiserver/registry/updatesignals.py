"""The signals ``GenericStore``'s update callbacks raise to leave a guaranteed update early.

A guaranteed update retries its callback until the write lands; these exceptions end it
without writing and carry the object the store answers with instead (upstream returns the same
answers through the callback's return values and sentinel errors)."""

from __future__ import annotations

from minikube_py.api.unstructured import Object


class DryRun(Exception):
    """Aborts a guaranteed update after the new object was computed (``dryRun=All``)."""

    def __init__(self, obj: Object) -> None:
        super().__init__("dry run")
        self.object = obj


class AlreadyDeleting(Exception):
    """A graceful deletion of ``object`` already runs; this DELETE changes nothing."""

    def __init__(self, obj: Object) -> None:
        super().__init__("already deleting")
        self.object = obj


class DeleteNow(Exception):
    """Nothing holds ``object`` (as the DELETE left it): remove it instead of marking it."""

    def __init__(self, obj: Object) -> None:
        super().__init__("delete now")
        self.object = obj


class EmptiedFinalizers(Exception):
    """An update left a marked object without finalizers (``object``, updated from ``current``)."""

    def __init__(self, obj: Object, current: Object) -> None:
        super().__init__("emptied finalizers")
        self.object = obj
        self.current = current
