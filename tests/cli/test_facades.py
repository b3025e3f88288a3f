"""The command line sits on top of the components' façades: ``minikube-py --help`` and the
command line's own commands import no component, a component command imports its own
component alone, and each façade's flags are the ones the command exposed before the flags
moved into the components (issue 14)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import grimp
import pytest

from minikube_py.cli.main import build_parser

COMPONENTS = ("apiserver", "controllers", "scheduler", "nodeagent")

# Prints, as JSON, which components' modules are loaded after the command line has parsed
# ``argv`` (``--help`` exits from the parser, before anything runs).
PROBE = """
import json, sys
from minikube_py.cli.main import build_parser
try:
    build_parser().parse_args(sys.argv[1:])
except SystemExit:
    pass
components = ("apiserver", "controllers", "scheduler", "nodeagent")
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules if m.split(".")[0] in components})))
"""


def loaded_components(*argv: str) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True, timeout=60
    )
    loaded: list[str] = json.loads(result.stdout.splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    "argv", [["--help"], ["kubeconfig", "--help"], ["token", "create", "--help"]], ids=" ".join
)
@pytest.mark.e2e  # starts python processes
def test_the_command_lines_own_help_imports_no_component(argv: list[str]) -> None:
    assert loaded_components(*argv) == []


@pytest.mark.parametrize(
    ("command", "component"),
    [
        ("apiserver", "apiserver"),
        ("controller-manager", "controllers"),
        ("scheduler", "scheduler"),
        ("node-agent", "nodeagent"),
        ("dns", "nodeagent"),
        ("ingress-controller", "nodeagent"),
    ],
)
@pytest.mark.e2e  # starts python processes
def test_a_component_command_imports_its_component_alone(command: str, component: str) -> None:
    assert loaded_components(command, "--help") == [component]


@pytest.mark.e2e  # starts python processes
def test_help_needs_no_web_framework_nor_event_loop() -> None:
    probe = "import sys\nfrom minikube_py.cli.main import build_parser\nbuild_parser()\n"
    probe += "print(sorted(m for m in ('fastapi', 'uvloop', 'pydantic', 'httpx') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


# Every flag each subcommand took before its flags moved beside the component's code.
FLAGS = {
    "up": "--audit-policy-file --cluster-cidr --concurrent-deployment-syncs --concurrent-gc-syncs "
    "--concurrent-endpoint-syncs --concurrent-service-endpoint-syncs "
    "--mirroring-concurrent-service-endpoint-syncs "
    "--concurrent-job-syncs --concurrent-ttl-after-finished-syncs "
    "--max-endpoints-per-slice "
    "--concurrent-namespace-syncs --concurrent-replicaset-syncs --concurrent-serviceaccount-syncs "
    "--controllers --data-dir --fake-nodes --kube-api-burst --kube-api-qps --leader-elect "
    "--min-request-timeout --no-kubeconfig-merge --node-cidr-mask-size --node-monitor-grace-period "
    "--node-monitor-period --nodes --port --request-timeout --root-ca-file --scheduler-config "
    "--scheduler-secure-port --service-cluster-ip-range --service-node-port-range --store "
    "--ingress-port --ingress-tls-port "
    "--concurrent-statefulset-syncs "
    "--use-service-account-credentials "
    # the batch controllers (issue 16)
    "--concurrent-job-syncs --concurrent-ttl-after-finished-syncs --concurrent-cron-job-syncs",
    "apiserver": "--anonymous-auth --api-audiences --audit-log-compress --audit-log-maxage "
    "--audit-log-maxbackup --audit-log-maxsize --audit-log-path --audit-policy-file --authorization-mode "
    "--bind-address --client-ca-file --disable-admission-plugins --enable-admission-plugins "
    "--enable-bootstrap-token-auth --enable-priority-and-fairness --max-mutating-requests-inflight "
    "--max-requests-inflight --min-request-timeout --request-timeout --secure-port "
    "--service-account-issuer --service-account-key-file --service-account-signing-key-file "
    "--service-cluster-ip-range --service-node-port-range --store "
    "--tls-cert-file --tls-private-key-file --token-auth-file",
    "controller-manager": "--concurrent-deployment-syncs --concurrent-gc-syncs --concurrent-namespace-syncs "
    "--concurrent-endpoint-syncs --concurrent-service-endpoint-syncs "
    "--mirroring-concurrent-service-endpoint-syncs "
    "--concurrent-job-syncs --concurrent-ttl-after-finished-syncs "
    "--max-endpoints-per-slice "
    "--concurrent-replicaset-syncs --concurrent-serviceaccount-syncs --controllers --kube-api-burst "
    "--kube-api-qps --kubeconfig --leader-elect --node-monitor-grace-period --node-monitor-period "
    "--root-ca-file --secure-port --use-service-account-credentials "
    "--concurrent-job-syncs --concurrent-ttl-after-finished-syncs --concurrent-cron-job-syncs "
    "--concurrent-statefulset-syncs",
    "scheduler": "--config --kube-api-burst --kube-api-qps --kubeconfig --leader-elect --secure-port",
    "node-agent": "--address --client-ca-file --cluster-dns --cluster-domain --data-dir --eviction-hard "
    "--kubeconfig --node-ip --node-name --pod-cidr --port --resolv-conf --runtime --tls-cert-file "
    "--tls-private-key-file --volume-refresh-delay "
    # the node's service proxy (issue 15)
    "--no-proxy --proxy-backend-selection --proxy-healthz-bind-address --proxy-kubeconfig "
    "--proxy-metrics-bind-address --proxy-min-sync-period --proxy-sync-period --proxy-udp-timeout",
    "proxy": "--backend-selection --healthz-bind-address --kubeconfig --metrics-bind-address "
    "--min-sync-period --node-name --sync-period --udp-timeout",
    "dns": "--cluster-domain --cluster-ip --kubeconfig --listen --metrics-port --resolv-conf --upstream",
    "kubeconfig": "--data-dir --group --out --user",
    "ingress-controller": "--kubeconfig --port --tls-port",
}


@pytest.mark.parametrize("command", sorted(FLAGS))
def test_each_command_exposes_the_flags_it_had(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    shown = set(re.findall(r"--[a-z][a-z-]+", capsys.readouterr().out)) - {"--help"}
    assert shown == set(FLAGS[command].split())


def test_nothing_inside_a_component_imports_its_facade_or_options() -> None:
    """``<component>.app`` and ``<component>.options`` are the top of each component: only the
    command line imports the façade, and only the façade the options."""
    graph = grimp.build_graph("minikube_py", *COMPONENTS)
    for component in COMPONENTS:
        top = (f"{component}.app", f"{component}.options")
        for module in top:
            if module not in graph.modules:
                continue
            importers: set[str] = set()
            for imported in {module} | graph.find_descendants(module):
                importers |= graph.find_modules_that_directly_import(imported)
            inside = {m for m in importers if m.split(".")[0] == component}
            assert {m for m in inside if not m.startswith(top)} == set(), module
            outside = {m for m in importers if m.split(".")[0] != component}
            callers = {"minikube_py.cli.commands", "minikube_py.cli.up", "minikube_py.cli.components"}
            allowed = callers if module.endswith(".app") else set()
            assert outside <= allowed, module
