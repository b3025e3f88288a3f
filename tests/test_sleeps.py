"""Tests wait on conditions, not fixed sleeps (``tests.waiting.eventually``,
``tests.cluster.eventually``).

A ``sleep`` of a constant outside a loop is flagged unless ``LEFT`` names its function with the
reason it is no wait: part of the behaviour under test (a slow fake, the "later" of a race),
an observation window for something that must NOT happen, or a wait with no observable
condition yet (marked "pending"). Sleeps inside loops are the poll intervals of waits, a
``sleep(0)`` is one turn of the event loop, and ``clock.sleep`` is a fake clock's.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BEHAVIOUR = "part of the behaviour under test"
ABSENCE = "an observation window: the test asserts something did not happen meanwhile"
REGISTER = (
    "pending: lets the just-started task register its watch before the write or close the "
    "regression is about; the storage layer exposes no registration to wait on"
)
LEFT = {
    "tests/admission/test_admission_api.py::make_default_later": BEHAVIOUR
    + ": the ServiceAccount appears while the pod's admission already waits for it",
    "tests/apiserver/test_server.py::current_revision": BEHAVIOUR + ": the slow store of a timeout test",
    "tests/storage/regressions/test_cacher_closed_store.py::"
    "test_a_closed_store_is_relisted_with_backoff_not_in_a_tight_loop": ABSENCE + " (no tight relist loop)",
    "tests/nodeagent/e2e/test_agent_kubectl.py::test_readiness_probes_gate_ready": ABSENCE
    + " (the unready pod stays unready)",
    "tests/nodeagent/e2e/test_agent_process.py::"
    "test_pods_keep_running_while_the_apiserver_is_down_and_the_agent_resyncs": ABSENCE
    + " (containers survive the apiserver's absence)",
    "tests/client/test_watch.py::test_cancelling_the_consumer_releases_the_stream": BEHAVIOUR
    + ": the stream is cancelled while idle in its read",
    "tests/client/test_watch.py::test_a_plain_break_releases_the_stream_once_the_generator_is_dropped": (
        "pending: the event loop's async-generator finalizer closes the stream on a later turn; "
        "nothing observable marks it"
    ),
    "tests/nodeagent/e2e/test_streams_kubectl.py::test_port_forward_to_a_closed_port_reports_the_error": (
        "pending: kubectl reports the refused connection on stderr, read only after it exits"
    ),
    "tests/storage/regressions/test_cacher_semantics.py::"
    "test_modified_out_of_predicate_deleted_carries_previous_object": REGISTER,
    "tests/storage/regressions/test_cacher_watcher_buffer.py::"
    "test_overflow_termination_drops_the_oldest_event_leaving_a_gap": REGISTER,
    "tests/storage/regressions/test_empty_prefix.py::"
    "test_sqlite_watch_on_empty_prefix_skips_history": REGISTER,
    "tests/storage/regressions/test_sqlite_races.py::test_watch_never_ends_after_store_close": REGISTER,
    "tests/storage/test_etcd_backend.py::test_close_ends_iteration_and_leaves_no_tasks": (
        "pending: needs a real etcd to rewrite and check, not available where this was written"
    ),
}


def fixed_sleeps(path: Path) -> list[str]:
    """``path::function`` of each constant sleep outside a loop in ``path``."""
    tree = ast.parse(path.read_text(), str(path))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _is_sleep(node.func) and node.args):
            continue
        argument = node.args[0]
        if not isinstance(argument, ast.Constant) or not argument.value:
            continue
        function, in_loop, at = "", False, node
        while at in parents:
            at = parents[at]
            if isinstance(at, ast.While | ast.For | ast.AsyncFor) and not function:
                in_loop = True
            if isinstance(at, ast.FunctionDef | ast.AsyncFunctionDef) and not function:
                function = at.name
        if not in_loop:
            found.append(f"{path.relative_to(ROOT)}::{function}")
    return found


def _is_sleep(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id == "sleep"
    if isinstance(func, ast.Attribute) and func.attr == "sleep":
        return "clock" not in ast.unparse(func.value)
    return False


def all_fixed_sleeps() -> list[str]:
    return [hit for path in sorted((ROOT / "tests").rglob("*.py")) for hit in fixed_sleeps(path)]


def test_no_fixed_sleep_outside_the_reasoned_list() -> None:
    assert [hit for hit in all_fixed_sleeps() if hit not in LEFT] == []


def test_every_left_sleep_is_still_there() -> None:
    assert set(LEFT) - set(all_fixed_sleeps()) == set()
