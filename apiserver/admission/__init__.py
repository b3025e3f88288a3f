"""Admission: mutating then validating plugins run by the handlers on decoded objects."""
