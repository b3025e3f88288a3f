"""minikube_py.testing.cluster: a process that never becomes ready is not left running (a
fixture whose wait failed once left an apiserver behind for the rest of the session)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from minikube_py.testing.cluster import Cluster, ClusterError, free_port, start_up


@pytest.mark.e2e  # starts a process
def test_a_cluster_never_ready_is_killed(tmp_path: Path) -> None:
    stderr = tmp_path / "stderr"
    stderr.write_text("still starting\n")
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    cluster = Cluster(tmp_path / "data", 1, process, tmp_path / "stdout", stderr)
    try:
        with pytest.raises(ClusterError, match=r"not ready after 0.2s \(killed\): still starting"):
            cluster.wait_ready(timeout=0.2)
        assert process.poll() is not None
    finally:
        process.kill()
        process.wait()


@pytest.mark.e2e  # starts up
@pytest.mark.parametrize("flags", [(), ("--controllers=",)])
def test_an_up_is_ready_with_its_default_service_account(tmp_path: Path, flags: tuple[str, ...]) -> None:
    """A pod created right after ``wait_ready`` is admitted: the default service account exists
    (a loaded CI machine created it after admission's retries gave up). Without the service
    account controller ``wait_ready`` returns at ``/readyz`` instead of waiting for nothing."""
    cluster = start_up(tmp_path, free_port(), flags=flags)
    try:
        cluster.wait_ready()
        with cluster.admin_client() as client:
            found = client.get("/api/v1/namespaces/default/serviceaccounts/default").status_code
        assert found == (404 if flags else 200)
    finally:
        cluster.stop()
