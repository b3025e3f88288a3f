"""No module of the project's packages (or benchmarks/) is over ``LIMIT`` lines: small modules
with one job each. A module that grows past it is split along its responsibilities."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["minikube_py", "apiserver", "controllers", "scheduler", "nodeagent", "benchmarks"]
LIMIT = 400


def line_counts() -> dict[str, int]:
    return {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def test_no_module_is_over_the_limit() -> None:
    counts = line_counts()
    offenders = {path: lines for path, lines in counts.items() if lines > LIMIT}
    assert offenders == {}
