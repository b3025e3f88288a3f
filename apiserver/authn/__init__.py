"""Authentication: who is asking (a union of authenticators; see the module docstrings)."""
