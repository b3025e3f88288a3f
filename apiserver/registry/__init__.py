"""The registry: resource semantics (one generic store, one small strategy per resource)."""
