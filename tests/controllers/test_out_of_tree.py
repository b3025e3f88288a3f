"""Out-of-tree controllers in ``--controllers``: a file, an import path or an entry point
resolves to a ``ControllerSpec`` when the list is selected; anything else is refused with one
line naming the entry. The README's worked example is taken from the README itself."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from controllers.manager.builtin import builtin_registry
from controllers.manager.registry import ControllerContext, ControllerLoadError, UnknownControllerError
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client.resourcetypes import CONFIGMAPS
from minikube_py.clock import FakeClock
from minikube_py.events import EventRecorder
from minikube_py.testing.fakeclient import FakeClient

README = Path(__file__).parents[2] / "controllers" / "README.md"
WANTED = "a ControllerSpec, or a function returning one"
BUILTIN = [spec.name for spec in builtin_registry().select(["*"])]

SPEC_FILE = """
from controllers.manager.registry import ControllerSpec

BUILT = []


class Hello:
    name = "hello"

    def __init__(self, context):
        BUILT.append(context)

    async def run(self, workers):
        pass


hello = ControllerSpec("hello-controller", Hello, "hello-controller", 2)


def describe():
    return ControllerSpec("described-controller", Hello, "described-controller", 1)


NOT_A_SPEC = 42


def broken():
    raise RuntimeError("no descriptor today")


bad_account = ControllerSpec("bad-account", Hello, "Not_A_Name", 1)
no_context = ControllerSpec("no-context", lambda: None, "no-context", 1)
no_workers = ControllerSpec("no-workers", Hello, "no-workers", 0)
clash = ControllerSpec("replicaset-controller", Hello, "mine", 1)
"""


def readme_example() -> str:
    """The worked example of ``controllers/README.md`` (its last Python block)."""
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)[-1]


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    path = tmp_path / "hello.py"
    path.write_text(textwrap.dedent(SPEC_FILE))
    return path


def test_a_file_reference_runs_after_the_builtin_controllers_and_only_when_named(plugin: Path) -> None:
    registry = builtin_registry()
    word = f"{plugin}:hello"
    assert [s.name for s in registry.select(["*", word])] == [*BUILTIN, "hello-controller"]
    assert [s.name for s in registry.select(["*"])] == BUILTIN  # * never includes it
    assert registry.select([word, f"-{word}"]) == []  # the last word wins, as for any name
    (spec,) = registry.select([word])
    assert (spec.service_account, spec.workers) == ("hello-controller", 2)
    assert registry.select([word]) == [spec]  # loaded once: both passes of the manager agree


def test_a_function_returning_a_spec_is_a_descriptor(plugin: Path) -> None:
    assert [s.name for s in builtin_registry().select([f"{plugin}:describe"])] == ["described-controller"]


def test_a_module_reference_imports_the_module(plugin: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(plugin.parent))
    (spec,) = builtin_registry().select(["replicaset-controller", "hello:hello"])[1:]
    assert spec.name == "hello-controller"


def test_an_entry_point_is_found_by_its_name(plugin: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dist = plugin.parent / "hello_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: hello-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[minikube_py.controllers]\nhello-controller = hello:hello\nmisnamed = hello:describe\n"
    )
    monkeypatch.syspath_prepend(str(plugin.parent))
    registry = builtin_registry()
    assert [s.name for s in registry.select(["hello-controller"])] == ["hello-controller"]
    assert registry.select(["*"]) == registry.select(["*", "-hello-controller"])
    with pytest.raises(ControllerLoadError, match='it describes "described-controller", not "misnamed"'):
        registry.select(["misnamed"])
    with pytest.raises(UnknownControllerError, match=r"known controllers: .*hello-controller, misnamed"):
        registry.select(["nosuch"])


@pytest.mark.parametrize(
    ("attribute", "says"),
    [
        ("nope", "hello.py has no attribute 'nope'"),
        ("NOT_A_SPEC", f"NOT_A_SPEC is not a controller ({WANTED}; got int)"),
        ("Hello", f"Hello is not a controller ({WANTED}; got class Hello)"),
        ("broken", "broken() raised RuntimeError: no descriptor today"),
        ("bad_account", "service account 'Not_A_Name': a lowercase RFC 1123 subdomain"),
        ("no_context", "new must take one argument, the ControllerContext"),
        ("no_workers", "workers must be at least 1, not 0"),
        ("clash", '"replicaset-controller" is a built-in controller'),
        ("1x", "expected MODULE:ATTRIBUTE or FILE.py:ATTRIBUTE"),
    ],
)
def test_a_reference_that_is_not_a_controller_is_refused_naming_it(
    plugin: Path, attribute: str, says: str
) -> None:
    word = f"{plugin}:{attribute}"
    with pytest.raises(ControllerLoadError) as err:
        builtin_registry().select(["*", word])
    assert str(err.value).startswith(f'cannot load controller "{word}": ')
    assert says in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_modules_files_and_failing_imports_are_refused(tmp_path: Path) -> None:
    failing = tmp_path / "failing.py"
    failing.write_text("import nosuch_dependency_here\n")
    cases = {
        "nosuch.module:spec": "no module named 'nosuch'",
        f"{tmp_path / 'absent.py'}:spec": f"no such file {tmp_path / 'absent.py'}",
        f"{failing}:spec": "raised ModuleNotFoundError: No module named 'nosuch_dependency_here'",
    }
    for word, says in cases.items():
        with pytest.raises(ControllerLoadError, match=re.escape(says)):
            builtin_registry().select([word])
    # a load error is an UnknownControllerError: the CLI reports either as one line
    assert issubclass(ControllerLoadError, UnknownControllerError)


async def test_the_readme_example_labels_a_configmap_and_records_an_event(tmp_path: Path) -> None:
    path = tmp_path / "labeler.py"
    path.write_text(readme_example())
    (spec,) = builtin_registry().select([f"{path}:labeler"])
    fake, clock = FakeClient(), FakeClock()
    factory = SharedInformerFactory(fake, clock=clock)
    recorder = EventRecorder(fake, spec.service_account, clock=clock)
    controller = spec.new(ControllerContext(fake, factory, recorder, clock))
    stored = fake.seed(CONFIGMAPS, {"metadata": {"name": "demo", "namespace": "default"}, "data": {}})[0]
    factory.informer(CONFIGMAPS).indexer.add(stored)

    await controller.sync("default/demo")  # type: ignore[attr-defined]

    labeled = fake.stored(CONFIGMAPS, "default", "demo")
    assert labeled is not None
    assert labeled["metadata"]["labels"] == {"example.com/seen-by": "configmap-labeler"}
    assert [a.verb for a in fake.actions if a.resource == "configmaps"] == ["patch"]
