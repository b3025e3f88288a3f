"""The EndpointSlice controller (upstream's ``pkg/controller/endpointslice``)."""

from controllers.endpointslice.controller import EndpointSliceController

__all__ = ["EndpointSliceController"]
