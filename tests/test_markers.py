"""A test that starts processes (minikube-py, kubectl, etcd, any subprocess) is marked ``e2e``,
so ``pytest -m "not e2e"`` is the fast loop that needs no binary besides Python.

The check is static: in each test module (and the conftest.py files above it) a function
"spawns" when it calls one of ``SPAWNERS`` or uses a function or fixture of that module (or
of a conftest) that spawns. Every test that spawns must carry the ``e2e`` mark, on itself or
as the module's ``pytestmark``. ``ALLOWED`` lists the modules whose processes are the
behaviour under test, each with its reason.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

SPAWNERS = {
    # the standard library's ways to start a process
    "subprocess",
    "Popen",
    "create_subprocess_exec",
    "create_subprocess_shell",
    "multiprocessing",
    "fork",
    # the project's: minikube-py processes, real kubectl, real etcd
    "start",
    "start_up",
    "running_up",
    "run_cli",
    "kubectl",
    "kubectl_ok",
    "kubectl_json",
    "EtcdServer",
    "EtcdCluster",
}
# names the project's spawners are imported from (``start`` is too common a name to trust
# elsewhere)
SPAWNER_HOMES = ("tests.cluster", "minikube_py.testing.cluster", "apiserver.storage.testing.etcdserver")

ALLOWED = {
    "tests/api/test_uid.py": "a forked child drawing its own UUIDs is the behaviour under test",
    "tests/cli/test_exit.py": "how soon a process exits after main returns is the behaviour under test",
    "tests/storage/test_sqlite_backend.py": "kill -9 of a writer child mid-storm is the durability "
    "under test; chattr makes a file immutable for the read-only store case",
    "tests/nodeagent/runtime/test_isolation.py": "the process runtime's containers are processes: "
    "its unit tests need only util-linux",
    "tests/nodeagent/runtime/test_process.py": "the process runtime's containers are processes: "
    "its unit tests need only util-linux",
    "tests/test_layers.py": "runs lint-imports, the layer check, over the source tree",
}


@cache
def _names(node: ast.AST) -> frozenset[str]:
    """Names a function's body (decorators and defaults aside) and parameters use."""
    used: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            used.add(child.id)
        elif isinstance(child, ast.Attribute):
            used.add(child.attr)
            if isinstance(child.value, ast.Name):
                used.add(child.value.id)
        elif isinstance(child, ast.arg):
            used.add(child.arg)  # fixtures are asked for by parameter name
    return frozenset(used)


def _is_e2e(decorators: list[ast.expr]) -> bool:
    return any("mark.e2e" in ast.unparse(d) for d in decorators)


class Module:
    """One test module's (or conftest's) functions and marks."""

    def __init__(self, path: Path) -> None:
        tree = ast.parse(path.read_text(), str(path))
        self.functions = {
            node.name: node
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        }
        self.module_e2e = any(
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)
            and "e2e" in ast.unparse(node.value)
            for node in tree.body
        )
        generic = {"start"}
        self.spawners = SPAWNERS - generic
        for node in tree.body:  # the project's spawners are imported at the top
            if isinstance(node, ast.ImportFrom) and node.module in SPAWNER_HOMES:
                self.spawners |= {a.asname or a.name for a in node.names if a.name in generic}


@cache
def conftest(path: Path) -> Module:
    return Module(path)


def spawning(modules: list[Module]) -> set[str]:
    """Names of the functions (fixtures included) in ``modules`` that start processes."""
    bodies = {name: (node, m) for m in modules for name, node in m.functions.items()}
    spawns = {
        name
        for name, (node, m) in bodies.items()
        if _names(node) & m.spawners and not name.startswith("test")
    }
    while True:
        more = {name for name, (node, _) in bodies.items() if name not in spawns and _names(node) & spawns}
        more = {n for n in more if not n.startswith("test")}
        if not more:
            return spawns
        spawns |= more


def unmarked_spawning_tests(path: Path) -> list[str]:
    """Tests in ``path`` that start processes without the ``e2e`` mark."""
    conftests = [
        conftest(directory / "conftest.py")
        for directory in [path.parent, *path.parent.parents]
        if (directory / "conftest.py").exists() and TESTS in [directory, *directory.parents]
    ]
    module = Module(path)
    if module.module_e2e:
        return []
    spawns = spawning([module, *conftests])
    found = []
    for name, node in module.functions.items():
        tests = (
            [(name, node, node.decorator_list)]
            if not isinstance(node, ast.ClassDef)
            else [
                (f"{name}.{f.name}", f, [*node.decorator_list, *f.decorator_list])
                for f in node.body
                if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
        )
        for test_name, function, decorators in tests:
            if not test_name.split(".")[-1].startswith("test"):
                continue
            if _names(function) & (spawns | module.spawners) and not _is_e2e(decorators):
                found.append(test_name)
    return found


def test_tests_that_start_processes_are_marked_e2e() -> None:
    offenders = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        relative = str(path.relative_to(ROOT))
        if relative in ALLOWED:
            continue
        if names := unmarked_spawning_tests(path):
            offenders[relative] = names
    assert offenders == {}


def test_the_check_sees_a_spawn_through_a_helper_and_a_fixture(tmp_path: Path) -> None:
    module = tmp_path / "test_x.py"
    module.write_text(
        "import subprocess\nimport pytest\n"
        "def helper():\n    subprocess.run(['true'])\n"
        "@pytest.fixture\ndef server():\n    helper()\n"
        "def test_direct():\n    subprocess.run(['true'])\n"
        "def test_via_fixture(server):\n    pass\n"
        "@pytest.mark.e2e\ndef test_marked(server):\n    pass\n"
        "def test_pure():\n    assert 1\n"
    )
    assert unmarked_spawning_tests(module) == ["test_direct", "test_via_fixture"]


def test_every_allowed_module_exists_and_still_spawns() -> None:
    for relative in ALLOWED:
        path = ROOT / relative
        assert path.exists(), relative
        assert unmarked_spawning_tests(path), f"{relative} no longer needs its place in ALLOWED"
