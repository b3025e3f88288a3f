"""The audit gate's command line: upstream's ``--audit-policy-file`` and ``--audit-log-*`` flags
for ``minikube-py apiserver`` (auditing needs both a policy file and a log path, as upstream),
and what ``up`` audits with (the default policy into ``<data-dir>/audit.log``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from apiserver.audit.backend import STDOUT, ensure_log_file, log_backend
from apiserver.audit.config import AuditConfig
from apiserver.audit.defaultpolicy import default_policy
from apiserver.audit.policy import Policy
from apiserver.audit.policyfile import PolicyError, load_policy_file

AUDIT_LOG = "audit.log"
DEFAULT_MAX_SIZE_MB, DEFAULT_MAX_BACKUPS, DEFAULT_MAX_AGE_DAYS = 100, 100, 366


def up_audit(data_dir: Path, policy: Policy | None = None) -> AuditConfig:
    """``up``: ``policy`` (default: the default policy) into ``<data-dir>/audit.log``, rotated
    at 100 MB."""
    backend = log_backend(
        str(data_dir / AUDIT_LOG), DEFAULT_MAX_SIZE_MB, DEFAULT_MAX_BACKUPS, DEFAULT_MAX_AGE_DAYS
    )
    return AuditConfig.of(policy or default_policy(), backend)


def add_up_audit_flag(parser: argparse.ArgumentParser) -> None:
    """``up --audit-policy-file``: another policy for ``<data-dir>/audit.log`` (e.g. one at
    Request level, which also records what each admission plugin changed)."""
    parser.add_argument(
        "--audit-policy-file",
        type=_policy,
        metavar="FILE",
        help="audit.k8s.io/v1 Policy (YAML) for DIR/audit.log (default: Metadata for everything "
        "but health checks, node Lease renewals and Events)",
    )


def add_audit_flags(parser: argparse.ArgumentParser) -> None:
    audit = parser.add_argument_group("audit")
    audit.add_argument(
        "--audit-policy-file",
        type=_policy,
        metavar="FILE",
        help="audit.k8s.io/v1 Policy (YAML) deciding what is audited at which level",
    )
    audit.add_argument(
        "--audit-log-path",
        type=_log_path,
        metavar="FILE",
        help="write audit events to this file as JSON lines ('-' for standard output)",
    )
    for flag, default, text in (
        ("--audit-log-maxsize", DEFAULT_MAX_SIZE_MB, "megabytes before the log is rotated, 0 never"),
        ("--audit-log-maxbackup", DEFAULT_MAX_BACKUPS, "rotated files kept, 0 all"),
        ("--audit-log-maxage", DEFAULT_MAX_AGE_DAYS, "days rotated files are kept, 0 forever"),
    ):
        audit.add_argument(
            flag, type=_non_negative(flag), default=default, metavar="N", help=f"{text} (default %(default)s)"
        )
    audit.add_argument("--audit-log-compress", action="store_true", help="gzip rotated files")


def audit_from_args(args: argparse.Namespace) -> AuditConfig | None:
    """None unless both a policy file and a log path were given."""
    if args.audit_policy_file is None or not args.audit_log_path:
        return None
    backend = log_backend(
        args.audit_log_path,
        args.audit_log_maxsize,
        args.audit_log_maxbackup,
        args.audit_log_maxage,
        args.audit_log_compress,
    )
    return AuditConfig.of(args.audit_policy_file, backend)


def _policy(text: str) -> Policy:
    try:
        return load_policy_file(Path(text))
    except PolicyError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _log_path(text: str) -> str:
    if text and text != STDOUT:
        try:
            ensure_log_file(Path(text))
        except OSError as err:
            raise argparse.ArgumentTypeError(
                f"cannot open audit log {text}: {(err.strerror or str(err)).lower()}"
            ) from None
    return text


def _non_negative(flag: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"{flag} {value} can't be a negative number")
        return value

    return parse
