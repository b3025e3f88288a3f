"""Framework: plugin lists per extension point and upstream's run rules, with stub plugins."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler.framework.config import ConfigError, PluginSet, Profile
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.interface import PostFilterResult, PreFilterResult
from scheduler.framework.registry import Registry
from scheduler.framework.runtime import WILDCARD_EVENT, Framework
from scheduler.framework.status import SUCCESS, Code, Status
from scheduler.framework.types import ActionType, ClusterEvent, NodeInfo, NodeScore
from tests.scheduler.framework.stubs import POD, Binder, build, make_handle, node, nodes, plugin


def filter_returning(status: Status, calls: list[str], name: str) -> Any:
    def run(state: CycleState, pod: Any, info: NodeInfo) -> Status:
        calls.append(f"{name} {info.name}")
        return status

    return plugin(filter=run)


def pre_filter_returning(
    status: Status, calls: list[str], name: str, result: PreFilterResult | None = None
) -> Any:
    def run(state: CycleState, pod: Any, all_nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        calls.append(name)
        return result, status

    return run


# -- construction ------------------------------------------------------------------------


def test_multi_point_expands_to_the_points_a_plugin_implements() -> None:
    both = plugin(filter=lambda s, p, n: SUCCESS, score=lambda s, p, n: (0, SUCCESS))
    only_filter = plugin(filter=lambda s, p, n: SUCCESS)
    fw = build({"Both": both, "OnlyFilter": only_filter})
    assert fw.list_plugins() == {
        "queueSort": ["Sort"],
        "filter": ["Both", "OnlyFilter"],
        "score": ["Both"],
        "bind": ["Binder"],
    }


def test_explicit_point_entries_override_multi_point_and_come_first() -> None:
    a = plugin(filter=lambda s, p, n: SUCCESS)
    b = plugin(filter=lambda s, p, n: SUCCESS)
    c = plugin(filter=lambda s, p, n: SUCCESS)
    extra = plugin(filter=lambda s, p, n: SUCCESS)
    fw = build(
        {"A": a, "B": b, "C": c, "Extra": extra},
        multi=["A", "B", "C"],
        points={"filter": PluginSet([("Extra", 0), ("C", 0)], ["A"])},
    )
    # C is re-configured explicitly (first), then multiPoint's B (A is disabled), then Extra
    assert fw.list_plugins()["filter"] == ["C", "B", "Extra"]


def test_star_disables_multi_point_at_that_point_only() -> None:
    a = plugin(filter=lambda s, p, n: SUCCESS, score=lambda s, p, n: (0, SUCCESS))
    b = plugin(score=lambda s, p, n: (0, SUCCESS))
    fw = build({"A": a, "B": b}, points={"score": PluginSet([("B", 4)], ["*"])})
    assert fw.list_plugins()["score"] == ["B"]
    assert fw.list_plugins()["filter"] == ["A"]
    assert fw.score_weights == {"B": 4}


def test_score_weight_from_score_point_wins_over_multi_point_and_zero_means_one() -> None:
    a = plugin(score=lambda s, p, n: (0, SUCCESS))
    b = plugin(score=lambda s, p, n: (0, SUCCESS))
    fw = build({"A": a, "B": b}, multi=[("A", 2), "B"], points={"score": PluginSet([("A", 7)])})
    assert fw.score_weights == {"A": 7, "B": 1}


def test_plugin_args_come_from_plugin_config_and_plugins_see_the_framework() -> None:
    seen: dict[str, Any] = {}

    def factory(args: dict[str, Any], handle: Any) -> Any:
        seen["args"], seen["handle"] = args, handle
        return plugin(filter=lambda s, p, n: SUCCESS)

    registry = Registry({"Sort": lambda a, h: build({}).plugins["Sort"], "Binder": lambda a, h: Binder()})
    registry.register("F", factory)
    profile = Profile(
        "x",
        {"multiPoint": PluginSet([("Sort", 0), ("Binder", 0), ("F", 0)])},
        {"F": {"mode": "strict"}},
    )
    fw = Framework(profile, registry, make_handle())
    assert seen["args"] == {"mode": "strict"}
    assert seen["handle"].framework is fw
    assert fw.profile_name == "x"


@pytest.mark.parametrize(
    ("plugins", "points", "message"),
    [
        ({}, {"filter": PluginSet([("Nope", 0)])}, 'plugin "Nope" does not exist'),
        (
            {"S": plugin()},
            {"filter": PluginSet([("S", 0)])},
            'plugin "S" does not extend FilterPlugin plugin',
        ),
        (
            {"F": plugin(filter=lambda s, p, n: SUCCESS)},
            {"filter": PluginSet([("F", 0), ("F", 0)])},
            'plugin "F" already registered as "FilterPlugin"',
        ),
        ({}, {"queueSort": PluginSet([("Sort2", 0)])}, "only one queue sort plugin required"),
    ],
)
def test_bad_profiles_are_config_errors(
    plugins: dict[str, Any], points: dict[str, PluginSet], message: str
) -> None:
    from tests.scheduler.framework.stubs import Sort

    plugins = {**plugins, "Sort2": Sort()}
    with pytest.raises(ConfigError, match=message):
        build(plugins, multi=[], points=points)


def test_a_profile_needs_a_binder() -> None:
    registry = Registry({"Sort": lambda a, h: build({}).plugins["Sort"]})
    with pytest.raises(ConfigError, match="at least one bind plugin is needed"):
        Framework(Profile("x", {"multiPoint": PluginSet([("Sort", 0)])}), registry, make_handle())


def test_a_failing_factory_is_a_config_error_naming_the_plugin() -> None:
    def factory(args: dict[str, Any], handle: Any) -> Any:
        raise ValueError('scoringStrategy.type: Unsupported value: "Weird"')

    registry = Registry({"Bad": factory})
    with pytest.raises(ConfigError, match='initializing plugin "Bad": scoringStrategy'):
        Framework(Profile("x", {"filter": PluginSet([("Bad", 0)])}), registry, make_handle())


def test_an_empty_profile_builds_an_empty_framework() -> None:
    fw = Framework(Profile("x"), Registry(), make_handle())
    assert fw.list_plugins() == {}
    assert fw.run_filter_plugins(CycleState(), POD, node("n")) is SUCCESS


# -- PreEnqueue, QueueSort, events -------------------------------------------------------


def test_pre_enqueue_returns_the_first_plugin_that_holds_the_pod() -> None:
    calls: list[str] = []

    def gate(name: str, status: Status) -> Any:
        def run(pod: Any) -> Status:
            calls.append(name)
            return status

        return plugin(pre_enqueue=run)

    fw = build(
        {
            "Open": gate("Open", SUCCESS),
            "Gates": gate("Gates", Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("waiting for gates",))),
            "Later": gate("Later", SUCCESS),
        }
    )
    status = fw.run_pre_enqueue(POD)
    assert (status.code, status.plugin, status.reasons) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "Gates",
        ("waiting for gates",),
    )
    assert calls == ["Open", "Gates"]


def test_queue_sort_less_is_the_plugins_method() -> None:
    fw = build({})
    assert fw.queue_sort_less() == fw.plugins["Sort"].less


def test_events_default_to_everything_and_only_for_enqueue_points() -> None:
    node_add = ClusterEvent("Node", ActionType.ADD, "NodeAdd")
    fw = build(
        {
            "Registers": plugin(filter=lambda s, p, n: SUCCESS, events_to_register=lambda: [node_add]),
            "Silent": plugin(pre_filter=lambda s, p, n: (None, SUCCESS)),
            "ScoreOnly": plugin(score=lambda s, p, n: (0, SUCCESS), events_to_register=lambda: [node_add]),
        }
    )
    assert fw.events_to_register() == {"Registers": [node_add], "Silent": [WILDCARD_EVENT]}


# -- PreFilter and Filter ----------------------------------------------------------------


def test_pre_filter_skip_skips_that_plugins_filter() -> None:
    calls: list[str] = []
    skipper = plugin(
        pre_filter=pre_filter_returning(Status.skip(), calls, "pre Skipper"),
        filter=lambda s, p, n: calls.append("filter Skipper") or Status.unschedulable("never"),
    )
    other = filter_returning(SUCCESS, calls, "Other")
    fw = build({"Skipper": skipper, "Other": other})
    state = CycleState()
    result, status = fw.run_pre_filter(state, POD)
    assert (result, status) == (None, SUCCESS)
    assert state.skip_filter_plugins == {"Skipper"}
    assert fw.run_filter_plugins(state, POD, node("n1")) is SUCCESS
    assert fw.filters_for(state) == [("Other", other.filter)]
    assert calls == ["pre Skipper", "Other n1"]


def test_pre_filter_unresolvable_stops_at_once_unschedulable_lets_the_rest_run() -> None:
    calls: list[str] = []
    fw = build(
        {
            "A": plugin(pre_filter=pre_filter_returning(Status.unschedulable("a says no"), calls, "A")),
            "B": plugin(pre_filter=pre_filter_returning(SUCCESS, calls, "B")),
        }
    )
    _result, status = fw.run_pre_filter(CycleState(), POD)
    assert (status.code, status.plugin, status.reasons) == (Code.UNSCHEDULABLE, "A", ("a says no",))
    assert calls == ["A", "B"]

    calls.clear()
    fw = build(
        {
            "A": plugin(pre_filter=pre_filter_returning(Status.unresolvable("a never"), calls, "A")),
            "B": plugin(pre_filter=pre_filter_returning(SUCCESS, calls, "B")),
        }
    )
    _result, status = fw.run_pre_filter(CycleState(), POD)
    assert (status.code, status.plugin) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "A")
    assert calls == ["A"]


def test_pre_filter_error_is_wrapped_with_the_plugin_name() -> None:
    boom = Status.as_error(RuntimeError("boom"))
    fw = build({"A": plugin(pre_filter=pre_filter_returning(boom, [], "A"))})
    _result, status = fw.run_pre_filter(CycleState(), POD)
    assert (status.code, status.plugin, status.message()) == (
        Code.ERROR,
        "A",
        'running PreFilter plugin "A": boom',
    )
    assert isinstance(status.error, RuntimeError)


def test_pre_filter_results_intersect() -> None:
    def narrowing(names: set[str]) -> Any:
        return plugin(pre_filter=pre_filter_returning(SUCCESS, [], "", PreFilterResult(frozenset(names))))

    fw = build(
        {
            "A": narrowing({"n1", "n2"}),
            "B": narrowing({"n2", "n3"}),
            "C": plugin(pre_filter=lambda *a: (None, SUCCESS)),
        }
    )
    result, status = fw.run_pre_filter(CycleState(), POD)
    assert status is SUCCESS and result == PreFilterResult(frozenset({"n2"}))


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        ([{"n1"}, {"n2"}], "node(s) didn't satisfy plugin(s) [A B] simultaneously"),
        ([set()], "node(s) didn't satisfy plugin A"),
    ],
)
def test_pre_filter_results_that_leave_no_node_are_unresolvable(sets: list[set[str]], message: str) -> None:
    plugins = {
        name: plugin(pre_filter=pre_filter_returning(SUCCESS, [], name, PreFilterResult(frozenset(names))))
        for name, names in zip("AB", sets, strict=False)
    }
    _result, status = build(plugins).run_pre_filter(CycleState(), POD)
    assert (status.code, status.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (message,))


def test_filter_stops_at_the_first_failure_and_names_the_plugin() -> None:
    calls: list[str] = []
    fw = build(
        {
            "A": filter_returning(SUCCESS, calls, "A"),
            "B": filter_returning(Status.unschedulable("Insufficient cpu"), calls, "B"),
            "C": filter_returning(SUCCESS, calls, "C"),
        }
    )
    status = fw.run_filter_plugins(CycleState(), POD, node("n1"))
    assert (status.code, status.plugin, status.reasons) == (Code.UNSCHEDULABLE, "B", ("Insufficient cpu",))
    assert calls == ["A n1", "B n1"]


@pytest.mark.parametrize("returned", [Status.skip(), Status.as_error(RuntimeError("broken"))])
def test_a_filter_status_other_than_a_rejection_is_an_error(returned: Status) -> None:
    fw = build({"A": filter_returning(returned, [], "A")})
    status = fw.run_filter_plugins(CycleState(), POD, node("n1"))
    assert (status.code, status.plugin) == (Code.ERROR, "A")
    assert status.message().startswith('running "A" filter plugin: ')


def test_pre_filter_extensions_add_and_remove_pod() -> None:
    calls: list[str] = []

    class Extensions:
        def add_pod(self, state: Any, pod: Any, info: Any, node_info: NodeInfo) -> Status:
            calls.append(f"add {node_info.name}")
            return SUCCESS

        def remove_pod(self, state: Any, pod: Any, info: Any, node_info: NodeInfo) -> Status:
            calls.append(f"remove {node_info.name}")
            return Status.as_error(RuntimeError("gone"))

    fw = build(
        {
            "A": plugin(pre_filter=lambda *a: (None, SUCCESS), pre_filter_extensions=lambda: Extensions()),
            "B": plugin(pre_filter=lambda *a: (None, SUCCESS), pre_filter_extensions=lambda: None),
        }
    )
    state = CycleState()
    assert fw.run_pre_filter_extension_add_pod(state, POD, None, node("n1")) is SUCCESS  # type: ignore[arg-type]
    status = fw.run_pre_filter_extension_remove_pod(state, POD, None, node("n1"))  # type: ignore[arg-type]
    assert status.message() == 'running RemovePod on PreFilter plugin "A": gone'
    state.skip_filter_plugins.add("A")
    assert fw.run_pre_filter_extension_remove_pod(state, POD, None, node("n2")) is SUCCESS  # type: ignore[arg-type]
    assert calls == ["add n1", "remove n1"]


# -- PostFilter --------------------------------------------------------------------------


def post_filter(result: PostFilterResult | None, status: Status, calls: list[str], name: str) -> Any:
    async def run(
        state: Any, pod: Any, statuses: dict[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        calls.append(name)
        return result, status

    return plugin(post_filter=run)


async def test_post_filter_stops_at_the_first_success() -> None:
    calls: list[str] = []
    fw = build(
        {
            "A": post_filter(None, Status.unschedulable("a: no victims"), calls, "A"),
            "B": post_filter(PostFilterResult("n2"), SUCCESS, calls, "B"),
            "C": post_filter(None, SUCCESS, calls, "C"),
        }
    )
    result, status = await fw.run_post_filter(CycleState(), POD, {})
    assert (result, status, calls) == (PostFilterResult("n2"), SUCCESS, ["A", "B"])


async def test_post_filter_rejections_are_joined_with_the_first_rejector() -> None:
    calls: list[str] = []
    fw = build(
        {
            "A": post_filter(None, Status.unschedulable("a: no"), calls, "A"),
            "B": post_filter(PostFilterResult("n3"), Status.unschedulable("b: no"), calls, "B"),
        }
    )
    result, status = await fw.run_post_filter(CycleState(), POD, {})
    assert result == PostFilterResult("n3")
    assert (status.code, status.plugin, status.message()) == (Code.UNSCHEDULABLE, "A", "a: no, b: no")


async def test_post_filter_unresolvable_or_error_stops() -> None:
    calls: list[str] = []
    fw = build(
        {
            "A": post_filter(None, Status.unresolvable("never"), calls, "A"),
            "B": post_filter(None, SUCCESS, calls, "B"),
        }
    )
    _result, status = await fw.run_post_filter(CycleState(), POD, {})
    assert (status.code, status.plugin, calls) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "A", ["A"])
    fw = build({"A": post_filter(PostFilterResult("x"), Status.as_error(RuntimeError("e")), [], "A")})
    result, status = await fw.run_post_filter(CycleState(), POD, {})
    assert (result, status.code, status.plugin) == (None, Code.ERROR, "A")


# -- PreScore and Score ------------------------------------------------------------------


def scorer(table: dict[str, int], normalize: Any = None, pre_score: Status | None = None) -> Any:
    methods: dict[str, Any] = {"score": lambda s, p, info: (table[info.name], SUCCESS)}
    if normalize is not None:
        methods["normalize_score"] = normalize
    if pre_score is not None:
        methods["pre_score"] = lambda s, p, ns: pre_score
    return plugin(**methods)


def normalize_to_max(state: Any, pod: Any, scores: list[NodeScore]) -> tuple[list[NodeScore], Status]:
    highest = max(s.score for s in scores) or 1
    return [NodeScore(s.name, s.score * 100 // highest) for s in scores], SUCCESS


def test_scores_are_normalized_then_weighted() -> None:
    fw = build(
        {
            "Raw": scorer({"n0": 10, "n1": 50, "n2": 0}, normalize=normalize_to_max),
            "Plain": scorer({"n0": 100, "n1": 0, "n2": 40}),
        },
        multi=[("Raw", 2), ("Plain", 3)],
    )
    state = CycleState()
    assert fw.run_pre_score(state, POD, nodes(3)) is SUCCESS
    scores, status = fw.run_score_plugins(state, POD, nodes(3))
    assert status is SUCCESS
    assert scores == [
        ("n0", {"Raw": 40, "Plain": 300}),
        ("n1", {"Raw": 200, "Plain": 0}),
        ("n2", {"Raw": 0, "Plain": 120}),
    ]


def test_batched_score_and_normalize_are_used_when_a_plugin_has_them() -> None:
    """``score_nodes``/``normalize_scores`` replace the per-node calls (one call per cycle)."""
    calls: list[str] = []

    def score_nodes(state: Any, pod: Any, infos: Any) -> tuple[list[int], Status]:
        calls.append("score_nodes")
        return [10, 50, 0], SUCCESS

    def normalize_scores(state: Any, pod: Any, raw: list[int]) -> tuple[list[int], Status]:
        calls.append("normalize_scores")
        return [value * 2 for value in raw], SUCCESS

    batched = plugin(
        score=lambda s, p, info: calls.append("score") or (0, SUCCESS),
        score_nodes=score_nodes,
        normalize_score=lambda s, p, scores: calls.append("normalize_score") or (scores, SUCCESS),
        normalize_scores=normalize_scores,
    )
    fw = build({"Batched": batched}, multi=[("Batched", 3)])
    columns, status = fw.run_score_plugins_by_plugin(CycleState(), POD, nodes(3))
    assert status is SUCCESS
    assert columns == {"Batched": [60, 300, 0]}
    assert calls == ["score_nodes", "normalize_scores"]


def test_a_failing_batched_normalize_is_an_error() -> None:
    failing = plugin(
        score=lambda s, p, info: (1, SUCCESS),
        normalize_scores=lambda s, p, raw: ([], Status.as_error(RuntimeError("broken"))),
    )
    _columns, status = build({"F": failing}).run_score_plugins_by_plugin(CycleState(), POD, nodes(2))
    assert status.message() == 'running Normalize on Score plugins: plugin "F" failed with: broken'


def test_pre_score_skip_skips_that_plugins_score() -> None:
    fw = build(
        {
            "Skipped": scorer({"n0": 100}, pre_score=Status.skip()),
            "Kept": scorer({"n0": 7}, pre_score=SUCCESS),
        }
    )
    state = CycleState()
    assert fw.run_pre_score(state, POD, nodes(1)) is SUCCESS
    assert state.skip_score_plugins == {"Skipped"}
    scores, _status = fw.run_score_plugins(state, POD, nodes(1))
    assert scores == [("n0", {"Kept": 7})]


def test_pre_score_failure_is_an_error() -> None:
    fw = build({"P": scorer({}, pre_score=Status.unschedulable("odd"))})
    status = fw.run_pre_score(CycleState(), POD, nodes(1))
    assert (status.code, status.message()) == (Code.ERROR, 'running PreScore plugin "P": odd')


def test_a_score_out_of_range_after_normalizing_is_an_error() -> None:
    fw = build({"Big": scorer({"n0": 101})})
    scores, status = fw.run_score_plugins(CycleState(), POD, nodes(1))
    assert scores == []
    assert status.code == Code.ERROR
    assert status.message() == (
        'applying score defaultWeights on Score plugins: plugin "Big" returns an invalid score 101, '
        "it should in the range of [0, 100] after normalizing"
    )


def test_a_failing_score_is_an_error() -> None:
    fw = build({"Bad": plugin(score=lambda s, p, n: (0, Status.as_error(RuntimeError("no data"))))})
    _scores, status = fw.run_score_plugins(CycleState(), POD, nodes(1))
    assert status.message() == 'running Score plugins: plugin "Bad" failed with: no data'


# -- Reserve, Permit, PreBind, Bind, PostBind --------------------------------------------


def test_reserve_stops_at_the_first_failure_and_unreserve_runs_in_reverse() -> None:
    calls: list[str] = []

    def reserver(name: str, status: Status) -> Any:
        return plugin(
            reserve=lambda s, p, n: calls.append(f"reserve {name}") or status,
            unreserve=lambda s, p, n: calls.append(f"unreserve {name}"),
        )

    fw = build(
        {
            "A": reserver("A", SUCCESS),
            "B": reserver("B", Status.unschedulable("taken")),
            "C": reserver("C", SUCCESS),
        }
    )
    status = fw.run_reserve(CycleState(), POD, "n1")
    assert (status.code, status.plugin) == (Code.UNSCHEDULABLE, "B")
    fw.run_unreserve(CycleState(), POD, "n1")
    assert calls == ["reserve A", "reserve B", "unreserve C", "unreserve B", "unreserve A"]


def test_permit_waits_for_the_shortest_time_unless_a_plugin_rejects() -> None:
    def permit(status: Status, timeout: float) -> Any:
        return plugin(permit=lambda s, p, n: (status, timeout))

    wait = Status(Code.WAIT)
    fw = build({"A": permit(wait, 30), "B": permit(SUCCESS, 0), "C": permit(wait, 5000)})
    status, timeout = fw.run_permit(CycleState(), POD, "n1")
    assert status.code == Code.WAIT and timeout == 30
    assert status.message() == 'one or more plugins asked to wait and no plugin rejected pod "p"'
    fw = build({"A": permit(wait, 30), "B": permit(Status.unschedulable("no"), 0)})
    status, _timeout = fw.run_permit(CycleState(), POD, "n1")
    assert (status.code, status.plugin) == (Code.UNSCHEDULABLE, "B")
    assert build({}).run_permit(CycleState(), POD, "n1") == (SUCCESS, 0.0)


async def test_bind_runs_binders_until_one_does_not_skip() -> None:
    calls: list[str] = []

    async def skipper(state: Any, pod: Any, node_name: str) -> Status:
        calls.append("skipper")
        return Status.skip()

    fw = build({"Skipper": plugin(bind=skipper)}, multi=[], points={"bind": PluginSet([("Skipper", 0)])})
    # explicit bind entries come after multiPoint's Binder; put Skipper first explicitly
    assert fw.list_plugins()["bind"] == ["Binder", "Skipper"]
    fw = build(
        {"Skipper": plugin(bind=skipper), "Binder": Binder(calls)},
        multi=[],
        points={"bind": PluginSet([("Skipper", 0), ("Binder", 0)], ["*"])},
    )
    assert await fw.run_bind(CycleState(), POD, "n1") is SUCCESS
    assert calls == ["skipper", "bind n1"]


async def test_bind_errors_and_pre_bind_errors_are_wrapped() -> None:
    async def failing(state: Any, pod: Any, node_name: str) -> Status:
        return Status.as_error(RuntimeError("conflict"))

    fw = build(
        {"Pre": plugin(pre_bind=failing), "B2": plugin(bind=failing)},
        multi=["Pre"],
        points={"bind": PluginSet([("B2", 0)], ["*"])},
    )
    status = await fw.run_pre_bind(CycleState(), POD, "n1")
    assert (status.code, status.plugin, status.message()) == (
        Code.ERROR,
        "Pre",
        'running PreBind plugin "Pre": conflict',
    )
    status = await fw.run_bind(CycleState(), POD, "n1")
    assert status.message() == 'running Bind plugin "B2": conflict'
    assert isinstance(status.error, RuntimeError)


async def test_post_bind_runs_every_plugin_coroutines_in_the_background() -> None:
    calls: list[str] = []

    async def later(state: Any, pod: Any, node_name: str) -> None:
        calls.append(f"async {node_name}")

    fw = build(
        {
            "Sync": plugin(post_bind=lambda s, p, n: calls.append(f"sync {n}")),
            "Async": plugin(post_bind=later),
        }
    )
    fw.run_post_bind(CycleState(), POD, "n1")
    assert calls == ["sync n1"]
    import asyncio

    await asyncio.sleep(0)
    assert calls == ["sync n1", "async n1"]
