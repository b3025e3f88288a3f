"""Audit: ``audit.k8s.io/v1`` events for every request, by policy, to a log file."""
