"""Scheduling predicates shared by the scheduler and the controllers (upstream's
``k8s.io/component-helpers/scheduling/corev1``): required node affinity and node selectors,
taints and tolerations."""
