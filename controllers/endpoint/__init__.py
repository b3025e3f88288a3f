"""The Endpoints controller (upstream's ``pkg/controller/endpoint``)."""

from controllers.endpoint.controller import EndpointsController

__all__ = ["EndpointsController"]
