"""The disruption controller: PodDisruptionBudget status (upstream's pkg/controller/disruption)."""

from controllers.disruption.controller import DisruptionController

__all__ = ["DisruptionController"]
