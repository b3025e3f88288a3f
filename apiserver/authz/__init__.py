"""Authorization: may this user do this (a union of authorizers: Node, then RBAC)."""
