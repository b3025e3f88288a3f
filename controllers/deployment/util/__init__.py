"""Deployment helpers (upstream's pkg/controller/deployment/util)."""
