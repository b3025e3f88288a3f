"""What the Endpoints, EndpointSlice and EndpointSlice mirroring controllers share (upstream's
``pkg/controller/util/endpoint`` and ``endpointslice/util``): which pods back a Service, their
ports, the trigger-time tracker, and the labels and annotations they write."""
