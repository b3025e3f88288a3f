"""An out-of-tree plugin written outside the repository (the README's worked example: one file
plus config lines) runs in ``up``'s scheduler: the Score plugin's preferred node gets the pod,
and a pod only a refused node would take stays Pending with the Filter plugin's reason in its
``FailedScheduling`` event."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.cluster import Cluster, free_port, start_up
from tests.controllers.e2e.test_controllers_kubectl import eventually, get, namespace
from tests.scheduler.e2e.test_scheduler_kubectl import make_node, run_pod
from tests.scheduler.framework.test_outoftree import write_example

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    tmp = tmp_path_factory.mktemp("outoftree")
    plugins = tmp / "plugins"  # the plugin file sits next to the config, outside the repository
    plugins.mkdir()
    config = write_example(plugins)
    flags = ["--node-monitor-grace-period=10m", f"--scheduler-config={config}"]
    running = start_up(tmp, free_port(), flags=flags)
    running.wait_ready()
    with running.admin_client() as admin:
        make_node(admin, "refused", labels={"example.com/refuse": "yes"})
        make_node(admin, "preferred", labels={"example.com/preferred": "yes"})
        make_node(admin, "plain")
    yield running
    if running.process.poll() is None:
        running.stop()


def node_of(cluster: Cluster, ns: str, name: str) -> str:
    pod: dict[str, Any] = get(cluster, "-n", ns, "pod", name)
    return str(pod["spec"].get("nodeName") or "")


def test_the_score_plugin_picks_the_node_and_the_filter_plugin_refuses_one(cluster: Cluster) -> None:
    ns = namespace(cluster, "outoftree")
    for i in range(3):
        run_pod(cluster, ns, f"web-{i}")
    for i in range(3):
        eventually(
            lambda i=i: node_of(cluster, ns, f"web-{i}") == "preferred", f"web-{i} on the preferred node"
        )


def test_a_pod_only_the_refused_node_would_take_stays_pending_with_the_plugins_reason(
    cluster: Cluster,
) -> None:
    ns = namespace(cluster, "refused")
    run_pod(cluster, ns, "pinned", nodeSelector={"kubernetes.io/hostname": "refused"})

    def failed() -> str | None:
        events = get(cluster, "-n", ns, "events")["items"]
        found = [e["message"] for e in events if e["reason"] == "FailedScheduling"]
        return found[0] if found else None

    message = eventually(failed, "a FailedScheduling event")
    assert message.startswith("0/3 nodes are available: 1 node(s) had the label example.com/refuse, ")
    assert "2 node(s) didn't match Pod's node affinity/selector" in message
    assert node_of(cluster, ns, "pinned") == ""
    assert "Traceback" not in cluster.stderr.read_text()
