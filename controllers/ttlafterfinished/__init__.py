"""The TTL-after-finished controller (upstream's pkg/controller/ttlafterfinished)."""

from controllers.ttlafterfinished.controller import TTLAfterFinishedController

__all__ = ["TTLAfterFinishedController"]
