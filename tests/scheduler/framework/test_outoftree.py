"""Out-of-tree plugins named by a KubeSchedulerConfiguration: a file, an import path or an
entry point is loaded and runs (the README's worked example, taken from the README itself), and
every way of misdeclaring one is refused when the file is loaded, in one line."""

from __future__ import annotations

import logging
import re
import sys
import textwrap
from pathlib import Path

import pytest

from minikube_py.cli.main import main
from scheduler.framework.config import ConfigError, load_config
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.registry import Registry
from scheduler.framework.runtime import Framework
from scheduler.plugins.registry import in_tree_registry
from tests.scheduler.builders import make_handle, make_node, make_pod, node_info

README = Path(__file__).resolve().parents[3] / "scheduler" / "README.md"
HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def readme_example() -> tuple[str, str]:
    """The README's plugin file and configuration (its ```python and ```yaml blocks)."""
    text = README.read_text().split("## Writing a plugin outside the repository", 1)[1]
    [python] = re.findall(r"```python\n(.*?)```", text, re.S)
    [config] = re.findall(r"```yaml\n(.*?)```", text, re.S)
    return python, config


def write_example(tmp_path: Path) -> Path:
    python, config = readme_example()
    (tmp_path / "avoid_label.py").write_text(python)
    path = tmp_path / "sched.yaml"
    path.write_text(config)
    return path


def framework_of(path: Path) -> Framework:
    [profile], _ = load_config(path, known_plugins=in_tree_registry())
    nodes = [
        node_info(make_node("refused", labels={"example.com/refuse": ""})),
        node_info(make_node("preferred", labels={"example.com/preferred": ""})),
        node_info(make_node("plain")),
    ]
    return Framework(profile, Registry(in_tree_registry()), make_handle(nodes))


def test_the_readme_example_loads_from_a_file_next_to_the_config_and_decides(tmp_path: Path) -> None:
    fw = framework_of(write_example(tmp_path))
    assert fw.list_plugins()["filter"][-1] == "avoid_label.py:RefuseLabel"
    assert fw.score_weights["avoid_label.py:PreferLabel"] == 10
    state, pod = CycleState(), make_pod("p")
    verdicts = {n.name: fw.run_filter_plugins(state, pod, n) for n in fw.handle.snapshot.list()}
    assert verdicts["refused"].plugin == "avoid_label.py:RefuseLabel"
    assert verdicts["refused"].reasons == ("node(s) had the label example.com/refuse",)
    assert verdicts["preferred"].is_success() and verdicts["plain"].is_success()
    feasible = [n for n in fw.handle.snapshot.list() if n.name != "refused"]
    fw.run_pre_score(state, pod, feasible)
    columns, status = fw.run_score_plugins_by_plugin(state, pod, feasible)
    assert status.is_success()
    assert columns["avoid_label.py:PreferLabel"] == [1000, 0]


def test_an_import_path_and_an_entry_point_name_load_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python, _ = readme_example()
    site = tmp_path / "site"
    site.mkdir()
    (site / "learner_plugins.py").write_text(python)
    dist = site / "learner_plugins-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: learner-plugins\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[minikube_py.scheduler.plugins]\nRefuseLabelEP = learner_plugins:RefuseLabel\n"
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "learner_plugins", raising=False)
    path = tmp_path / "c.yaml"
    path.write_text(
        HEADER + "profiles:\n- plugins:\n    filter:\n      enabled: [{name: 'learner_plugins:RefuseLabel'}, "
        "{name: RefuseLabelEP}]\n"
    )
    fw = framework_of(path)
    assert fw.list_plugins()["filter"][-2:] == ["learner_plugins:RefuseLabel", "RefuseLabelEP"]
    refused = fw.handle.snapshot.get("refused")
    assert refused is not None
    assert fw.run_filter_plugins(CycleState(), make_pod("p"), refused).plugin == "learner_plugins:RefuseLabel"


PLUGINS = """
from scheduler.framework.status import Status

class Misspelt:
    def __init__(self, args, handle):
        pass

    def filtre(self, state, pod, node_info):
        return Status()

class WrongShape:
    def __init__(self, args, handle):
        pass

    def filter(self, pod, node_info):
        return Status()

class AsyncFilter:
    def __init__(self, args, handle):
        pass

    async def filter(self, state, pod, node_info):
        return Status()

def returns_nothing(args, handle):
    return None

NOT_A_FACTORY = 3
"""


@pytest.mark.parametrize(
    ("point", "name", "message"),
    [
        (
            "filter",
            "p.py:Misspelt",
            r'plugin "p\.py:Misspelt" does not extend FilterPlugin plugin '
            r'\(did you mean: "filtre" \(filter\?\)\)',
        ),
        (
            "filter",
            "p.py:WrongShape",
            r'plugin "p\.py:WrongShape" does not extend FilterPlugin plugin: filter\(pod, node_info\) '
            r"does not take the arguments filter\(state, pod, node_info\)",
        ),
        ("filter", "p.py:AsyncFilter", "filter must be a plain function: the framework does not await it"),
        (
            "multiPoint",
            "p.py:returns_nothing",
            "its factory returned a NoneType, which implements no extension point",
        ),
        ("filter", "p.py:NOT_A_FACTORY", r"p\.py:NOT_A_FACTORY is a int, not a plugin factory"),
        ("filter", "p.py:Absent", "p.py has no attribute 'Absent'"),
        ("filter", "missing.py:Plugin", r"no such file missing\.py"),
        ("filter", "no_such_module_anywhere:Plugin", "cannot import no_such_module_anywhere"),
        ("filter", "NoSuchPlugin", 'plugin "NoSuchPlugin" does not exist'),
    ],
)
def test_a_misdeclared_plugin_is_refused_when_the_config_is_loaded(
    tmp_path: Path, point: str, name: str, message: str
) -> None:
    (tmp_path / "p.py").write_text(PLUGINS)
    path = tmp_path / "c.yaml"
    path.write_text(HEADER + f"profiles:\n- plugins:\n    {point}:\n      enabled: [{{name: '{name}'}}]\n")
    with pytest.raises(ConfigError, match=message) as caught:
        load_config(path, known_plugins=in_tree_registry())
    assert str(caught.value).startswith(f"{path}: ")
    assert "\n" not in str(caught.value)


def test_a_plugin_enabled_at_a_point_it_does_not_implement_stops_the_scheduler_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``minikube-py scheduler --config bad.yaml`` exits 2 with the one line, before it reads
    the kubeconfig (there is none) or connects."""
    config = write_example(tmp_path).read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        config.replace(
            'score:\n      enabled: [{name: "avoid_label.py:PreferLabel"',
            'score:\n      enabled: [{name: "avoid_label.py:RefuseLabel"',
        )
    )
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:  # main() installs its own logging: give pytest's back afterwards
        with pytest.raises(SystemExit) as exited:
            main(["scheduler", "--config", str(bad), "--kubeconfig", str(tmp_path / "absent")])
    finally:
        root.handlers[:], root.level = handlers, level
        logging.getLogger("httpx").setLevel(logging.NOTSET)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert 'profiles[0]: plugin "avoid_label.py:RefuseLabel" does not extend ScorePlugin plugin' in err
    assert err.count("\n") == 1, err


def test_an_out_of_tree_file_is_executed_once_however_often_the_config_is_read(tmp_path: Path) -> None:
    (tmp_path / "counted.py").write_text(
        textwrap.dedent(
            """
            import builtins
            builtins.__dict__.setdefault("_counted_loads", []).append(1)
            class F:
                def __init__(self, args, handle): ...
                def filter(self, state, pod, node_info):
                    from scheduler.framework.status import Status
                    return Status()
            """
        )
    )
    path = tmp_path / "c.yaml"
    path.write_text(HEADER + "profiles:\n- plugins:\n    filter:\n      enabled: [{name: 'counted.py:F'}]\n")
    import builtins

    before = len(builtins.__dict__.get("_counted_loads", []))
    load_config(path, known_plugins=in_tree_registry())
    load_config(path, known_plugins=in_tree_registry())
    assert len(builtins.__dict__["_counted_loads"]) - before == 1
