"""minikube_py.pyreference: the one loader behind out-of-tree scheduler plugins and controllers."""

from __future__ import annotations

from pathlib import Path

import pytest

from minikube_py import pyreference
from minikube_py.pyreference import ReferenceLoadError, load


def test_a_module_attribute_and_a_dotted_path() -> None:
    assert load("os.path:join", namespace="t") is __import__("os").path.join
    assert load("os:path.join", namespace="t") is __import__("os").path.join


def test_a_file_runs_once_relative_to_its_base(tmp_path: Path) -> None:
    (tmp_path / "ext.py").write_text("RUNS = []\nRUNS.append(1)\n")
    first = load("ext.py:RUNS", namespace="t", base_dir=tmp_path)
    second = load(f"{tmp_path / 'ext.py'}:RUNS", namespace="t")
    assert first is second and first == [1]


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("no_colon_here", "expected MODULE:ATTRIBUTE or FILE.py:ATTRIBUTE"),
        ("os:not-an-identifier", "expected MODULE:ATTRIBUTE"),
        ("os:nothing_here", "os has no attribute 'nothing_here'"),
        ("no_such_module_xyz:x", "cannot import no_such_module_xyz: no module named 'no_such_module_xyz'"),
        ("absent.py:x", "no such file absent.py"),
        ("broken.py:x", "running broken.py raised ZeroDivisionError: division by zero"),
    ],
)
def test_failures_say_what_was_wrong(reference: str, message: str, tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("1 / 0\n")
    with pytest.raises(ReferenceLoadError, match=message):
        load(reference, namespace="t", base_dir=tmp_path)


def test_a_failed_file_can_be_loaded_again_once_fixed(tmp_path: Path) -> None:
    (tmp_path / "later.py").write_text("raise RuntimeError('not yet')\n")
    with pytest.raises(ReferenceLoadError, match="RuntimeError: not yet"):
        load("later.py:X", namespace="t", base_dir=tmp_path)
    (tmp_path / "later.py").write_text("X = 1\n")
    assert load("later.py:X", namespace="t", base_dir=tmp_path) == 1
    assert pyreference.is_reference("later.py:X") and not pyreference.is_reference("NodeName")
