"""``SecurityConfig``: how the apiserver's gates are assembled (upstream's authentication,
authorization, admission, audit and flow-control options).

Each gate owns one field, filled by the CLI (``minikube_py.cli``) from flags and the data
dir. A field left at its default leaves that gate open (allow, no audit, no limits), which is
what in-process tests of unrelated features use; ``up`` configures every gate.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class SecurityConfig:
    """The configured gates (fields are added gate by gate; see the module docstring)."""
