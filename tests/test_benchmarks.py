"""``benchmarks/`` run after the README's install alone (``pip install -e .``, no test extra).

The static check walks each benchmark's imports, and those of every repository module they
reach, and refuses anything that is neither the standard library, the repository's own
packages, nor a distribution ``pip install -e .`` installs (the project's requirements and
theirs): pytest and ``tests.*`` above all. The e2e check runs each script's ``--help``.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from functools import cache
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
OWN = {"minikube_py", "apiserver", "controllers", "scheduler", "nodeagent", "benchmarks"}
SIBLINGS = {path.stem for path in BENCHMARKS.glob("*.py")}  # benchmarks/ is on sys.path when run


def _requirement_name(requirement: str) -> tuple[str, bool]:
    """The distribution a requirement names, and whether it applies without extras."""
    name = re.split(r"[\s;<>=!~\[(]", requirement, maxsplit=1)[0]
    return name.lower().replace("_", "-"), "extra ==" not in requirement.replace("extra==", "extra ==")


@cache
def installed_by_plain_install() -> frozenset[str]:
    """Distributions ``pip install -e .`` brings: the project's requirements, transitively."""
    seen: set[str] = set()
    todo = ["minikube-py"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [dist for dist, unconditional in map(_requirement_name, requires) if unconditional]
    return frozenset(seen - {"minikube-py"})


@cache
def allowed_third_party() -> frozenset[str]:
    """Top-level module names those distributions provide."""
    allowed = installed_by_plain_install()
    return frozenset(
        module
        for module, dists in metadata.packages_distributions().items()
        if any(d.lower().replace("_", "-") in allowed for d in dists)
    )


def _type_checking_only(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_of(path: Path, package: str) -> set[str]:
    """Absolute module names ``path`` imports when run (``if TYPE_CHECKING`` blocks aside)."""
    tree = ast.parse(path.read_text(), str(path))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if _type_checking_only(node, parents):
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}  # submodules, when they are
    return found


def module_file(name: str) -> tuple[Path, str] | None:
    """The repository file of module ``name`` and its package, None if it is not ours."""
    parts = name.split(".")
    if parts[0] in SIBLINGS and len(parts) == 1:
        return BENCHMARKS / f"{name}.py", ""
    if parts[0] not in OWN:
        return None
    base = ROOT.joinpath(*parts)
    if (base / "__init__.py").exists():
        return base / "__init__.py", name
    if base.with_suffix(".py").exists():
        return base.with_suffix(".py"), ".".join(parts[:-1])
    return None


def foreign_imports(script: Path) -> dict[str, str]:
    """Every module outside stdlib, the repository and the plain install that ``script``
    reaches, with the repository file that imports it."""
    foreign: dict[str, str] = {}
    seen: set[Path] = set()
    todo: list[tuple[Path, str]] = [(script, "")]
    while todo:
        path, package = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in imports_of(path, package):
            top = name.split(".")[0]
            local = module_file(name)
            if local is not None:
                todo.append(local)
            elif top in OWN or top in SIBLINGS:
                continue  # ``from package import name`` where name is no module
            elif top not in sys.stdlib_module_names and top not in allowed_third_party():
                foreign.setdefault(name, path.name)
    return foreign


SCRIPTS = sorted(BENCHMARKS.glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_a_benchmark_imports_only_what_the_plain_install_provides(script: Path) -> None:
    assert foreign_imports(script) == {}


def test_the_guard_sees_test_only_imports(tmp_path: Path) -> None:
    script = tmp_path / "bench.py"
    script.write_text("import pytest\nfrom tests.cluster import free_port\nimport httpx\n")
    assert set(foreign_imports(script)) == {"pytest", "tests.cluster", "tests.cluster.free_port"}


MAINS = [s for s in SCRIPTS if '__name__ == "__main__"' in s.read_text()]


@pytest.mark.e2e
@pytest.mark.parametrize("script", MAINS, ids=[s.name for s in MAINS])
def test_a_benchmark_answers_help(script: Path) -> None:
    """Each script parses its flags and exits 0 on ``--help`` (its imports all resolve)."""
    result = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    assert "usage:" in result.stdout
