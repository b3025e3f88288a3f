"""An out-of-tree controller, one file plus a ``--controllers`` word, run by ``up`` against a
real apiserver: the worked example of ``controllers/README.md`` (code and RBAC taken from the
README) labels a ConfigMap created with real kubectl and records an Event. Bad entries stop
``minikube-py controller-manager`` with one line before it reads its kubeconfig."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.cluster import Cluster, eventually, kubectl_json, kubectl_ok, run_cli, running_up
from tests.controllers.e2e.test_controller_manager_process import assert_one_line_error
from tests.controllers.test_out_of_tree import BUILTIN, README, readme_example

pytestmark = pytest.mark.e2e

LABEL = "example.com/seen-by"


def readme_rbac() -> str:
    return re.findall(r"```yaml\n(.*?)```", README.read_text(), re.S)[-1]


@pytest.fixture
def labeler(tmp_path: Path) -> Path:
    path = tmp_path / "controllers" / "labeler.py"
    path.parent.mkdir()
    path.write_text(readme_example())
    return path


@pytest.fixture
def cluster(tmp_path: Path, labeler: Path) -> Iterator[Cluster]:
    yield from running_up(tmp_path, flags=[f"--controllers=*,{labeler}:labeler"])


def test_the_readme_controller_labels_configmaps_and_records_events(cluster: Cluster) -> None:
    kubectl_ok(cluster, "apply", "-f", "-", stdin=readme_rbac())
    kubectl_ok(cluster, "create", "configmap", "demo", "--from-literal=greeting=hello")

    def labels() -> object:
        return kubectl_json(cluster, "configmap", "demo")["metadata"].get("labels", {}).get(LABEL)

    assert eventually(labels, "the out-of-tree controller to label the ConfigMap") == "configmap-labeler"

    def labeled_events() -> list[dict[str, object]]:
        events = kubectl_json(cluster, "events", "--field-selector", "reason=Labeled")["items"]
        return [e for e in events if e["involvedObject"]["name"] == "demo"]

    (event,) = eventually(labeled_events, "the Labeled event")
    assert event["source"]["component"] == "configmap-labeler"
    assert event["message"] == f"labeled {LABEL}=configmap-labeler"
    # it runs beside every built-in controller, after them
    started = re.search(r"starting controllers: (.*)$", cluster.stderr.read_text(), re.M)
    assert started is not None and started.group(1).split(", ") == [*BUILTIN, "configmap-labeler"]


def test_bad_out_of_tree_entries_are_one_line_errors_before_connecting(labeler: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.kubeconfig"  # never read: --controllers is checked first
    entries = ["*,no_such_package.controllers:spec", f"*,{labeler}:ConfigMapLabeler", "*,configmap-labeler"]
    with ThreadPoolExecutor(len(entries)) as pool:
        args = [["controller-manager", "--kubeconfig", str(missing), f"--controllers={e}"] for e in entries]
        module, not_spec, unknown = list(pool.map(lambda a: run_cli(*a), args))
    assert_one_line_error(
        module,
        'cannot load controller "no_such_package.controllers:spec": ',
        "no module named 'no_such_package'",
    )
    assert_one_line_error(
        not_spec,
        f'cannot load controller "{labeler}:ConfigMapLabeler": ConfigMapLabeler is not a controller',
        "got class ConfigMapLabeler",
    )
    assert_one_line_error(unknown, '"configmap-labeler" is not in the list of known controllers')
