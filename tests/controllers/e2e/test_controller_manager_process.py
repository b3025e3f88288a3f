"""``minikube-py controller-manager`` as its own process, next to ``up --controllers=`` (an
apiserver running no controllers) or ``minikube-py apiserver``: leader election across
processes with a clean hand-over, ``/healthz`` and ``/metrics``, configuration errors, and an
apiserver restart in the middle of a rollout.

Pods are reported Ready by ``standin.ReadyPods`` (no node agents yet; issue 7)."""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from minikube_py.identities import ensure_component_identities
from minikube_py.kubeconfig import ADMIN_KUBECONFIG, write_client_kubeconfig
from minikube_py.pki import ensure_cluster_pki
from tests.cluster import Cluster, free_port, run_cli, start, start_up
from tests.controllers.e2e.standin import ReadyPods
from tests.controllers.e2e.test_controllers_kubectl import eventually, get, live, namespace, ok, pods

pytestmark = pytest.mark.e2e

LEASE = ("-n", "kube-system", "lease", "kube-controller-manager")
BECAME_LEADER = re.compile(r"^leaderelection kube-system/kube-controller-manager: (\S+) became leader$", re.M)
RELEASED = re.compile(r"^leaderelection kube-system/kube-controller-manager: (\S+) released$", re.M)
SERVING = re.compile(r"^controller-manager serving /healthz and /metrics on http://127\.0\.0\.1:(\d+)$", re.M)
MASTER_STATUS = 'leader_election_master_status{name="kube-controller-manager"}'
# A candidate polls the Lease every 2-4.4 s (retry period 2 s, jitter 1.2). Unreleased, the
# Lease would count as held for 15 s after the standby last saw it renewed: >= 10.6 s after SIGTERM.
HANDOVER_TIMEOUT = 9.0


@dataclass
class Manager:
    """One ``minikube-py controller-manager`` process."""

    process: Cluster

    def log(self) -> str:
        return self.process.stderr.read_text()

    def identity(self) -> str | None:
        """Its identity once it logged that it became the leader."""
        found = BECAME_LEADER.findall(self.log())
        return found[-1] if found else None

    def health_url(self) -> str:
        port = eventually(lambda: SERVING.search(self.log()), "the health endpoint's port", timeout=10)
        return f"http://127.0.0.1:{port.group(1)}"

    def alive(self) -> None:
        assert self.process.process.poll() is None, self.log()


def start_manager(cluster: Cluster, logs: Path, kubeconfig: Path, *flags: str) -> Manager:
    args = ["--kubeconfig", str(kubeconfig), "--secure-port", "0", *flags]
    return Manager(start("controller-manager", *args, logs=logs, data_dir=cluster.data_dir, port=0))


def stop_all(*processes: Cluster) -> None:
    for running in processes:
        if running.process.poll() is None:
            running.stop()


@pytest.fixture
def apiserver_only(tmp_path: Path) -> Iterator[Cluster]:
    """``up --controllers=``: the apiserver (and identities), no controllers, no campaigning."""
    running = start_up(tmp_path, free_port(), flags=["--controllers="])
    running.wait_ready()
    eventually(lambda: (running.data_dir / "controller-manager.kubeconfig").exists(), "the kubeconfig")
    yield running
    stop_all(running)


def two_managers(cluster: Cluster, tmp: Path) -> tuple[Manager, Manager]:
    """Two candidates; returns (leader, standby) once exactly one leads and holds the Lease."""
    kubeconfig = cluster.data_dir / "controller-manager.kubeconfig"
    candidates = [start_manager(cluster, tmp / name, kubeconfig) for name in ("cm-a", "cm-b")]
    try:
        leaders = eventually(
            lambda: [m for m in candidates if m.identity()], "one controller-manager to become leader"
        )
        assert len(leaders) == 1, [m.log() for m in candidates]
        [leader] = leaders
        [standby] = [m for m in candidates if m is not leader]
        holder = eventually(lambda: get(cluster, *LEASE)["spec"].get("holderIdentity"), "a lease holder")
        assert holder == leader.identity()
        for m in candidates:
            m.alive()
    except BaseException:
        stop_all(*(m.process for m in candidates))
        raise
    return leader, standby


def test_leader_election_hands_over_cleanly_between_processes(
    apiserver_only: Cluster, tmp_path: Path
) -> None:
    cluster = apiserver_only
    ok(cluster, "create", "deployment", "web", "--image=nginx", "--replicas=3")
    # no controller runs yet: the Deployment stays without a ReplicaSet
    assert not get(cluster, "replicasets")["items"]
    leader, standby = two_managers(cluster, tmp_path)
    try:
        eventually(lambda: len(live(pods(cluster, "default"))) == 3, "three pods")
        eventually(
            lambda: (
                (d := get(cluster, "deployment", "web"))["status"].get("replicas") == 3
                and d["status"].get("observedGeneration") == d["metadata"]["generation"]
            ),
            "the Deployment's status to report three replicas",
        )
        assert len(pods(cluster, "default")) == 3  # one leader: one set of pods, no duplicates
        assert len(get(cluster, "replicasets")["items"]) == 1
        assert standby.identity() is None

        sent = time.monotonic()
        code, took = leader.process.stop(signal.SIGTERM)
        assert code == 0 and took < 5.0, leader.log()
        assert RELEASED.findall(leader.log()) == [leader.identity()]
        assert "Traceback" not in leader.log()

        new = eventually(standby.identity, "the standby to become leader", timeout=HANDOVER_TIMEOUT)
        handover = time.monotonic() - sent
        print(f"\nleader stopped in {took:.2f}s; standby led {handover:.2f}s after SIGTERM")
        assert handover < HANDOVER_TIMEOUT  # well under the 15 s lease: it was released
        assert new != leader.identity()
        lease = get(cluster, *LEASE)["spec"]
        assert lease["holderIdentity"] == new
        assert lease["leaseTransitions"] >= 1

        ok(cluster, "scale", "deployment/web", "--replicas=5")
        eventually(lambda: len(live(pods(cluster, "default"))) == 5, "five pods from the new leader")
        eventually(
            lambda: (
                (d := get(cluster, "deployment", "web"))["status"].get("replicas") == 5
                and d["status"].get("observedGeneration") == d["metadata"]["generation"]
            ),
            "the Deployment's status to report five replicas",
        )
        assert len(pods(cluster, "default")) == 5
        assert len(get(cluster, "replicasets")["items"]) == 1
        standby.alive()
    finally:
        stop_all(leader.process, standby.process)


def test_health_and_metrics_on_leader_and_standby(apiserver_only: Cluster, tmp_path: Path) -> None:
    leader, standby = two_managers(apiserver_only, tmp_path)
    try:
        with httpx.Client(timeout=5) as http:
            for manager in (leader, standby):
                for path in ("/healthz", "/livez", "/readyz"):
                    answer = http.get(manager.health_url() + path)
                    assert (answer.status_code, answer.text) == (200, "ok"), path

            # the controllers are built one after the other (each first gets its token)
            queues = ('workqueue_depth{name="replicaset"}', 'workqueue_depth{name="deployment"}')

            def leader_metrics() -> str | None:
                text = http.get(leader.health_url() + "/metrics").text
                return text if all(queue in text for queue in queues) else None

            metrics = eventually(leader_metrics, "the replicaset and deployment queues on the leader")
            assert f"{MASTER_STATUS} 1\n" in metrics
            assert "# TYPE leader_election_master_status gauge" in metrics

            # The standby has built no controller and, as client-go, never set the gauge:
            # the family is declared but has no sample.
            answer = http.get(standby.health_url() + "/metrics")
            assert answer.status_code == 200
            assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
            assert "# TYPE leader_election_master_status gauge" in answer.text
            assert "leader_election_master_status{" not in answer.text
            assert "workqueue_depth{" not in answer.text
    finally:
        stop_all(leader.process, standby.process)


def assert_one_line_error(result: Any, *says: str) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("minikube-py: error: "), result.stderr
    for text in says:
        assert text in lines[0]
    assert result.stdout == ""
    return str(lines[0])


def test_unknown_controller_and_missing_kubeconfig_are_one_line_errors(tmp_path: Path) -> None:
    pki = ensure_cluster_pki(tmp_path / "pki")
    kubeconfig = tmp_path / ADMIN_KUBECONFIG
    # nothing listens there: the controllers are checked before connecting
    write_client_kubeconfig(
        kubeconfig, server=f"https://127.0.0.1:{free_port()}", ca_cert=pki.ca.cert, client=pki.admin, user="a"
    )
    missing = tmp_path / "nowhere.kubeconfig"
    runs = [
        ["--kubeconfig", str(kubeconfig), "--controllers=nosuch"],
        ["--kubeconfig", str(kubeconfig), "--controllers=*,-nosuch"],
        ["--kubeconfig", str(missing)],
        # as upstream (options.Validate runs before the kubeconfig is read): the controllers first
        ["--kubeconfig", str(missing), "--controllers=nosuch"],
    ]
    with ThreadPoolExecutor(len(runs)) as pool:
        unknown, disabled, gone, both = pool.map(lambda args: run_cli("controller-manager", *args), runs)
    line = assert_one_line_error(unknown, '"nosuch" is not in the list of known controllers')
    assert "replicaset-controller" in line
    assert_one_line_error(disabled, '"nosuch" is not in the list of known controllers')
    assert_one_line_error(gone, str(missing), "no such file or directory")
    assert_one_line_error(both, '"nosuch" is not in the list of known controllers')


# an apiserver restart during a rollout


APISERVER_REPLICAS = 20


def apiserver_args(data_dir: Path, port: int) -> list[str]:
    pki = data_dir / "pki"
    return [
        "--store",
        f"sqlite:///{data_dir / 'store.db'}",
        "--secure-port",
        str(port),
        "--tls-cert-file",
        str(pki / "apiserver.crt"),
        "--tls-private-key-file",
        str(pki / "apiserver.key"),
        "--client-ca-file",
        str(pki / "ca.crt"),
        "--authorization-mode=Node,RBAC",
        "--service-account-signing-key-file",
        str(pki / "sa.key"),
        "--service-account-key-file",
        str(pki / "sa.pub"),
    ]


def start_apiserver(data_dir: Path, port: int, logs: Path) -> Cluster:
    return start("apiserver", *apiserver_args(data_dir, port), logs=logs, data_dir=data_dir, port=port)


def new_replicaset(cluster: Cluster, ns: str) -> dict[str, Any] | None:
    deployment = get(cluster, "-n", ns, "deployment", "web")
    revision = deployment["metadata"].get("annotations", {}).get("deployment.kubernetes.io/revision")
    for rs in get(cluster, "-n", ns, "replicasets")["items"]:
        if rs["metadata"].get("annotations", {}).get("deployment.kubernetes.io/revision") == revision:
            image = rs["spec"]["template"]["spec"]["containers"][0]["image"]
            return rs if image == "nginx:2.0" else None
    return None


def test_a_rollout_completes_across_an_apiserver_restart(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    pki = ensure_cluster_pki(data_dir / "pki")
    port = free_port()
    server = f"https://127.0.0.1:{port}"
    write_client_kubeconfig(
        data_dir / ADMIN_KUBECONFIG, server=server, ca_cert=pki.ca.cert, client=pki.admin, user="admin"
    )
    kubeconfig = ensure_component_identities(data_dir, pki, server)["controller-manager"]
    apiserver = start_apiserver(data_dir, port, tmp_path / "apiserver-1")
    manager = start_manager(apiserver, tmp_path / "cm", kubeconfig)
    restarted: Cluster | None = None
    try:
        apiserver.wait_ready()
        ns = namespace(apiserver, "rollout")
        with ReadyPods(apiserver, ns):
            replicas = f"--replicas={APISERVER_REPLICAS}"
            ok(apiserver, "-n", ns, "create", "deployment", "web", "--image=nginx:1.0", replicas)
            ok(apiserver, "-n", ns, "rollout", "status", "deployment/web", "--timeout=30s")
        # No pod of the new template becomes Ready, so the rollout stops part-way (maxSurge and
        # maxUnavailable are 5: at most 10 new pods and 15 old ones); the apiserver is killed
        # once the new ReplicaSet has pods.
        ok(apiserver, "-n", ns, "set", "image", "deployment/web", "nginx=nginx:2.0")
        half = eventually(
            lambda: (rs := new_replicaset(apiserver, ns)) and rs["status"].get("replicas", 0) >= 5 and rs,
            "pods of the new template",
        )
        assert half["spec"]["replicas"] < APISERVER_REPLICAS
        code, _ = apiserver.stop(signal.SIGKILL)
        assert code == -signal.SIGKILL

        restarted = start_apiserver(data_dir, port, tmp_path / "apiserver-2")
        restarted.wait_ready()
        with ReadyPods(restarted, ns):
            out = ok(restarted, "-n", ns, "rollout", "status", "deployment/web", "--timeout=60s")
            assert 'deployment "web" successfully rolled out' in out
        new = new_replicaset(restarted, ns)
        assert new is not None
        hash_label = new["metadata"]["labels"]["pod-template-hash"]
        replicasets = get(restarted, "-n", ns, "replicasets")["items"]
        assert sorted(rs["spec"]["replicas"] for rs in replicasets) == [0, APISERVER_REPLICAS]
        current = eventually(
            lambda: len(p := pods(restarted, ns)) == APISERVER_REPLICAS and p,
            f"exactly {APISERVER_REPLICAS} pods",
        )
        assert {p["metadata"]["labels"]["pod-template-hash"] for p in current} == {hash_label}
        assert len({p["metadata"]["name"] for p in current}) == APISERVER_REPLICAS
        status = get(restarted, "-n", ns, "deployment", "web")["status"]
        assert (status["replicas"], status["updatedReplicas"], status["availableReplicas"]) == (
            APISERVER_REPLICAS,
            APISERVER_REPLICAS,
            APISERVER_REPLICAS,
        )
        manager.alive()
        assert "Traceback" not in manager.log()
    finally:
        stop_all(manager.process, *(restarted,) if restarted else (), apiserver)
