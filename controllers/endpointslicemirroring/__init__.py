"""The EndpointSlice mirroring controller (upstream's ``pkg/controller/endpointslicemirroring``)."""

from controllers.endpointslicemirroring.controller import EndpointSliceMirroringController

__all__ = ["EndpointSliceMirroringController"]
