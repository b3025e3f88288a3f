"""Tests of the shared API machinery: selectors, validation, quantities."""
