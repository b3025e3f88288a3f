"""Patch formats the apiserver accepts: JSON patch, JSON merge patch and strategic merge patch."""
