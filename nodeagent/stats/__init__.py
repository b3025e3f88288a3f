"""Resource usage of a node and its pods (upstream kubelet ``pkg/kubelet/server/stats``): the
Summary API behind ``/stats/summary``, read by the apiserver's ``metrics.k8s.io`` and by the
eviction manager."""
