"""No circle of imports inside a component (issue 14): between the modules of each package of
the house, no module may reach itself through imports, type-only ones (``if TYPE_CHECKING:``)
included, since a type-only circle is still two modules that cannot be understood apart.

grimp (import-linter's graph library) reads every import statement of the source, including
those under ``TYPE_CHECKING`` (``exclude_type_checking_imports`` is off by default);
``test_type_only_imports_count`` proves it on a package made for the purpose. Circles are the
strongly connected components of the module graph (Tarjan), each reported with one concrete
loop through it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from pathlib import Path

import grimp
import pytest

PACKAGES = ("minikube_py", "apiserver", "controllers", "scheduler", "nodeagent")


def strongly_connected(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for succ in edges:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
    return found


def module_graph(graph: grimp.ImportGraph, package: str) -> dict[str, set[str]]:
    """The direct imports between ``package``'s own modules."""
    modules = {m for m in graph.modules if m == package or m.startswith(package + ".")}
    return {m: graph.find_modules_directly_imported_by(m) & modules for m in modules}


def loop_through(component: frozenset[str], graph: dict[str, set[str]]) -> list[str]:
    """One shortest loop from the component's first module back to itself, for the message."""
    start = min(component)
    paths = {succ: [start, succ] for succ in graph[start] if succ in component}
    frontier = list(paths)
    while start not in paths and frontier:
        following = []
        for node in frontier:
            for succ in sorted(graph[node] & component):
                if succ not in paths:
                    paths[succ] = [*paths[node], succ]
                    following.append(succ)
        frontier = following
    return paths.get(start, sorted(component))


def cycles(package: str, graph: grimp.ImportGraph) -> dict[frozenset[str], list[str]]:
    modules = module_graph(graph, package)
    return {c: loop_through(c, modules) for c in strongly_connected(modules)}


def describe(found: Iterable[tuple[frozenset[str], list[str]]]) -> str:
    return "\n".join(f"  {len(c)} modules: " + " -> ".join(loop) for c, loop in found)


@pytest.fixture(scope="module")
def house() -> grimp.ImportGraph:
    # no cache: a cached graph keyed on file times can lag an edit made within the same second
    return grimp.build_graph(*PACKAGES, cache_dir=None)


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_inside(package: str, house: grimp.ImportGraph) -> None:
    found = cycles(package, house)
    assert not found, f"import cycles inside {package} (type-only imports count):\n" + describe(found.items())


def test_type_only_imports_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A circle closed only by an import under ``TYPE_CHECKING`` is found (grimp reads it)."""
    package = tmp_path / "circlepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from circlepkg import b\n")
    (package / "b.py").write_text(
        textwrap.dedent(
            """\
            from typing import TYPE_CHECKING

            if TYPE_CHECKING:
                from circlepkg.a import Thing
            """
        )
    )
    (package / "c.py").write_text("from circlepkg import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("circlepkg", cache_dir=None)
    found = cycles("circlepkg", graph)
    assert list(found) == [frozenset({"circlepkg.a", "circlepkg.b"})]
    assert found[frozenset({"circlepkg.a", "circlepkg.b"})] == ["circlepkg.a", "circlepkg.b", "circlepkg.a"]
