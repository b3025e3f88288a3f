"""``SecurityConfig``: how the apiserver's gates are assembled (upstream's authentication,
authorization, admission, audit and flow-control options).

Each gate owns its fields, filled by ``apiserver.options`` from flags and the data
dir. A field left at its default leaves that gate open (allow, no audit, no limits), which is
what in-process tests of unrelated features use; ``up`` configures every gate.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from apiserver.audit.config import AuditConfig


@dataclass
class SecurityConfig:
    """The configured gates, one group of fields per gate (see the module docstring)."""

    # Authentication (``apiserver.authn.config``): client certificates always; anonymous
    # requests allowed unless ``anonymous`` is off; static tokens from ``token_auth_file``;
    # service-account tokens signed with ``service_account_signing_key_file`` for the first of
    # ``service_account_issuers`` and verified with it and ``service_account_key_files``;
    # ``api_audiences`` (default: the issuers); bootstrap-token Secrets when enabled.
    anonymous: bool = True
    token_auth_file: Path | None = None
    service_account_signing_key_file: Path | None = None
    service_account_key_files: tuple[Path, ...] = ()
    service_account_issuers: tuple[str, ...] = ()
    api_audiences: tuple[str, ...] = ()
    bootstrap_tokens: bool = False
    # Seconds a successfully authenticated token is remembered (upstream's token success cache,
    # 10 s in kube-apiserver); 0 checks every request (tests of revocation use that).
    token_cache_ttl: float = 10.0

    # Admission: the enabled plugins in execution order (``apiserver.admission.registry``
    # ``enabled_plugins`` resolves upstream's enable/disable flags); empty admits everything.
    admission_plugins: tuple[str, ...] = ()
    # Flow control (``apiserver.filters.flowcontrol``): upstream's --max-requests-inflight,
    # --max-mutating-requests-inflight (0: unlimited) and --enable-priority-and-fairness
    # (their sum is then the server's concurrency limit, shared among priority levels).
    max_requests_inflight: int = 0
    max_mutating_requests_inflight: int = 0
    enable_priority_and_fairness: bool = False
    # Audit (``apiserver.audit``): upstream's --audit-policy-file and --audit-log-* as a policy
    # and a backend; None audits nothing (requests still get an Audit-Id).
    audit: AuditConfig | None = None
    # Authorization (``apiserver.authz``): upstream's --authorization-mode, the authorizers
    # asked in order (AlwaysAllow, AlwaysDeny, Node, RBAC); ``up`` runs Node,RBAC.
    authorization_modes: tuple[str, ...] = ("AlwaysAllow",)
