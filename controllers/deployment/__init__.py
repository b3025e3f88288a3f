"""The Deployment controller: rolls ReplicaSets out (RollingUpdate, Recreate), scales them,
keeps revisions and reports progress in the Deployment's status."""

from controllers.deployment.controller import DeploymentController

__all__ = ["DeploymentController"]
