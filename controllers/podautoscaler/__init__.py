"""The horizontal pod autoscaler (upstream's pkg/controller/podautoscaler)."""

from controllers.podautoscaler.controller import HorizontalController

__all__ = ["HorizontalController"]
