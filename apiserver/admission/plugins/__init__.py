"""The built-in admission plugins, one per file (upstream's names and messages)."""
