"""The eviction manager (upstream ``pkg/kubelet/eviction``): hard thresholds on the node's
memory and disk, node pressure conditions, and evicting pods when a threshold is crossed."""
