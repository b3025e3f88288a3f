"""Kubernetes API machinery shared by every component: scheme, errors, selectors, quantities."""
