"""The audit gate end to end: ``up`` writes ``<data-dir>/audit.log`` while real kubectl works,
and the ``apiserver`` subcommand's upstream-named flags."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from apiserver.audit.config import AuditConfig
from apiserver.options.security import security_from_args
from minikube_py import jsonutil
from minikube_py.cli.main import build_parser
from tests.cluster import free_port, kubectl, run_cli, start_up

POLICY = "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n"


def read_events(path: Path, wanted: int, timeout: float = 5.0) -> list[dict[str, Any]]:
    """The log's events once at least ``wanted`` events about the configmap ``audited`` are
    there (lines are written by a background thread; the controllers' list and watch of
    configmaps are in the log too)."""
    deadline = time.monotonic() + timeout
    while True:
        events = [jsonutil.loads(line) for line in path.read_bytes().splitlines()] if path.exists() else []
        if (
            len([e for e in events if e.get("objectRef", {}).get("name") == "audited"]) >= wanted
            or time.monotonic() > deadline
        ):
            return events
        time.sleep(0.05)


@pytest.mark.e2e
def test_up_audits_kubectl_requests(tmp_path: Path) -> None:
    cluster = start_up(tmp_path, free_port())
    try:
        cluster.wait_ready()
        assert (
            kubectl(cluster, "create", "configmap", "audited", "--from-literal=key=hush-hush").returncode == 0
        )
        assert kubectl(cluster, "get", "configmap", "audited").returncode == 0
        assert kubectl(cluster, "delete", "configmap", "audited").returncode == 0
        assert kubectl(cluster, "get", "configmap", "audited").returncode != 0
        events = read_events(cluster.data_dir / "audit.log", 5)
    finally:
        cluster.stop()
    named = [e for e in events if e.get("objectRef", {}).get("name") == "audited"]
    assert [(e["verb"], e["responseStatus"]["code"]) for e in named] == [
        ("create", 201),
        ("get", 200),
        ("delete", 200),
        ("get", 404),  # kubectl delete waits for the object to be gone
        ("get", 404),
    ]
    for event in named:
        assert event["stage"] == "ResponseComplete" and event["level"] == "Metadata"
        assert event["user"]["username"] == "kubernetes-admin"
        assert "system:masters" in event["user"]["groups"]
        assert event["sourceIPs"] == ["127.0.0.1"]
        assert event["userAgent"].startswith("kubectl")
    assert named[-1]["responseStatus"]["reason"] == "NotFound"
    # wait_ready polled /readyz: health checks are not audited, nor is RequestReceived
    assert not [
        e for e in events if e["requestURI"].startswith(("/readyz", "/healthz", "/livez", "/version"))
    ]
    assert {e["stage"] for e in events} <= {"ResponseStarted", "ResponseComplete"}
    assert b"hush-hush" not in (cluster.data_dir / "audit.log").read_bytes()
    assert (cluster.data_dir / "audit.log").stat().st_mode & 0o777 == 0o600


@pytest.mark.e2e
def test_up_with_a_request_level_policy_records_what_admission_changed(tmp_path: Path) -> None:
    """``up --audit-policy-file``: at Request level each mutating admission plugin's change is
    in the event as a JSON patch (at ``up``'s default Metadata level it is not computed)."""
    policy = tmp_path / "policy.yaml"
    policy.write_text("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Request\n")
    cluster = start_up(tmp_path, free_port(), flags=["--audit-policy-file", str(policy)])
    try:
        cluster.wait_ready()
        made = kubectl(cluster, "run", "traced", "--image=nginx", "--restart=Never")
        assert made.returncode == 0, made.stderr
        deadline = time.monotonic() + 5
        while True:
            events = [
                jsonutil.loads(line) for line in (cluster.data_dir / "audit.log").read_bytes().splitlines()
            ]
            created = [
                e for e in events if e.get("objectRef", {}).get("name") == "traced" and e["verb"] == "create"
            ]
            if created or time.monotonic() > deadline:
                break
            time.sleep(0.05)
    finally:
        cluster.stop()
    (event,) = created
    assert event["level"] == "Request"
    patch = jsonutil.loads(event["annotations"]["mutation.minikube-py.io/DefaultTolerationSeconds"])
    added = [op for op in patch if op["op"] == "add"]
    assert added and "node.kubernetes.io/not-ready" in jsonutil.dumps(added).decode()


def test_apiserver_flags_build_the_audit_config(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    log = tmp_path / "logs" / "audit.log"
    base = ["apiserver", "--store", "memory://", "--tls-cert-file", "c", "--tls-private-key-file", "k"]
    base += ["--client-ca-file", "ca"]
    args = build_parser().parse_args(
        [*base, "--audit-policy-file", str(policy), "--audit-log-path", str(log), "--audit-log-maxsize", "7"]
    )
    assert (args.audit_log_maxsize, args.audit_log_maxbackup, args.audit_log_maxage) == (7, 100, 366)
    config = security_from_args(args).audit
    assert isinstance(config, AuditConfig)
    assert log.exists()  # created at startup, as upstream
    config.sink.close()
    # auditing needs both a policy and a log path
    only_policy = build_parser().parse_args([*base, "--audit-policy-file", str(policy)])
    assert security_from_args(only_policy).audit is None


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--audit-policy-file", "{dir}/nope.yaml"], 'failed to read file path "{dir}/nope.yaml"'),
        (["--audit-policy-file", "{dir}/empty.yaml"], "loaded illegal policy with 0 rules: from file"),
        (["--audit-log-maxbackup", "-1"], "--audit-log-maxbackup -1 can't be a negative number"),
        (["--audit-log-path", "{dir}/file/audit.log"], "cannot open audit log {dir}/file/audit.log"),
    ],
)
@pytest.mark.e2e
def test_bad_audit_flags_are_one_line_and_exit_2(tmp_path: Path, flags: list[str], message: str) -> None:
    (tmp_path / "empty.yaml").write_text("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n")
    (tmp_path / "file").write_text("not a directory")
    args = ["apiserver", "--store", "memory://", "--tls-cert-file", "c", "--tls-private-key-file", "k"]
    args += ["--client-ca-file", "ca", *(flag.format(dir=tmp_path) for flag in flags)]
    result = run_cli(*args)
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1
    assert message.format(dir=tmp_path) in result.stderr
