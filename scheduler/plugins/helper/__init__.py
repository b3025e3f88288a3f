"""Helpers shared by several plugins (upstream ``plugins/helper`` and component-helpers):
score normalization, node selector matching, taint toleration, pod label lookups."""
