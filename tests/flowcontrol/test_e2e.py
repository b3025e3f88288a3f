"""``minikube-py up`` runs priority and fairness: responses name their classification,
``/metrics`` serves the flow-control series, kubectl works as ``system:masters`` (exempt)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from apiserver.flowcontrol.schema import object_uid
from tests.cluster import Cluster, kubectl, running_up

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("up"))


def admin_cert(cluster: Cluster) -> tuple[str, str]:
    admin = cluster.data_dir / "pki" / "admin"
    return f"{admin}.crt", f"{admin}.key"


def test_admin_requests_are_exempt_and_probes_too(cluster: Cluster) -> None:
    with cluster.client(cert=admin_cert(cluster)) as client:
        response = client.get("/api/v1/namespaces")
        assert response.status_code == 200
        assert response.headers["x-kubernetes-pf-flowschema-uid"] == object_uid("flowschemas", "exempt")
    with cluster.client() as client:
        probe = client.get("/readyz")
        assert probe.headers["x-kubernetes-pf-flowschema-uid"] == object_uid("flowschemas", "probes")


def test_metrics_serves_the_flow_control_series(cluster: Cluster) -> None:
    result = kubectl(cluster, "get", "--raw", "/metrics")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "# TYPE apiserver_flowcontrol_current_inqueue_requests gauge" in lines
    assert (
        'apiserver_flowcontrol_current_executing_requests{flow_schema="exempt",priority_level="exempt"} 1'
        in lines
    )
