"""The Job controller (upstream's pkg/controller/job)."""

from controllers.job.controller import JobController

__all__ = ["JobController"]
