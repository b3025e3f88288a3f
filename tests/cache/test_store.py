"""Indexer: keys, indexes kept up to date through every write, atomic replace, threads."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import pytest

from minikube_py.api.unstructured import Object
from minikube_py.cache import (
    NAMESPACE_INDEX,
    DeletedFinalStateUnknown,
    Indexer,
    deletion_handling_meta_namespace_key,
    final_state,
    meta_namespace_key,
    namespace_index_func,
    split_meta_namespace_key,
)
from minikube_py.cache.informer import EventHandlerFuncs
from tests.cache.helpers import pod

APP_INDEX = "app"


def app_index(obj: Object) -> list[str]:
    app = (obj["metadata"].get("labels") or {}).get("app")
    return [app] if app else []


def new_indexer() -> Indexer:
    return Indexer({NAMESPACE_INDEX: namespace_index_func, APP_INDEX: app_index})


@pytest.mark.parametrize(
    ("obj", "key", "split"),
    [
        (pod("a", "ns1"), "ns1/a", ("ns1", "a")),
        ({"metadata": {"name": "node-1"}}, "node-1", ("", "node-1")),
        ({"metadata": {"name": "n", "namespace": ""}}, "n", ("", "n")),
    ],
)
def test_keys(obj: Object, key: str, split: tuple[str, str]) -> None:
    assert meta_namespace_key(obj) == key
    assert split_meta_namespace_key(key) == split
    assert deletion_handling_meta_namespace_key(DeletedFinalStateUnknown(key, obj)) == key


def test_split_rejects_bad_key() -> None:
    with pytest.raises(ValueError):
        split_meta_namespace_key("a/b/c")


@dataclass
class Case:
    name: str
    ops: list[tuple[str, Object | list[Object]]]
    keys: list[str]
    by_app: dict[str, list[str]] = field(default_factory=dict)
    by_ns: dict[str, list[str]] = field(default_factory=dict)


CASES = [
    Case(
        "add",
        [("add", pod("a", app="web"))],
        ["default/a"],
        {"web": ["default/a"]},
        {"default": ["default/a"]},
    ),
    Case(
        "update moves between label buckets",
        [("add", pod("a", app="web")), ("update", pod("a", app="db"))],
        ["default/a"],
        {"web": [], "db": ["default/a"]},
    ),
    Case(
        "update removing the label drops it from the index",
        [("add", pod("a", app="web")), ("update", pod("a"))],
        ["default/a"],
        {"web": []},
    ),
    Case(
        "delete",
        [("add", pod("a", app="web")), ("add", pod("b", app="web")), ("delete", pod("a"))],
        ["default/b"],
        {"web": ["default/b"]},
    ),
    Case("delete of unknown key is a no-op", [("delete", pod("zz"))], []),
    Case(
        "replace swaps contents and indexes",
        [
            ("add", pod("a", app="web")),
            ("add", pod("b", "other", app="web")),
            ("replace", [pod("c", app="db"), pod("b", "other", app="db")]),
        ],
        ["default/c", "other/b"],
        {"web": [], "db": ["default/c", "other/b"]},
        {"default": ["default/c"], "other": ["other/b"]},
    ),
    Case("replace with nothing empties", [("add", pod("a", app="web")), ("replace", [])], [], {"web": []}),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_indexer_table(case: Case) -> None:
    indexer = new_indexer()
    for op, arg in case.ops:
        if op == "replace":
            assert isinstance(arg, list)
            indexer.replace(arg, "1")
        else:
            assert isinstance(arg, dict)
            getattr(indexer, op)(arg)
    assert sorted(indexer.list_keys()) == case.keys
    assert sorted(meta_namespace_key(o) for o in indexer.list()) == case.keys
    for app, keys in case.by_app.items():
        assert indexer.index_keys(APP_INDEX, app) == keys
        assert [meta_namespace_key(o) for o in indexer.by_index(APP_INDEX, app)] == keys
    for ns, keys in case.by_ns.items():
        assert indexer.index_keys(NAMESPACE_INDEX, ns) == keys


def test_get_returns_the_stored_object() -> None:
    indexer = new_indexer()
    stored = pod("a")
    indexer.add(stored)
    assert indexer.get(pod("a")) is stored
    assert indexer.get_by_key("default/a") is stored
    assert indexer.get_by_key("default/missing") is None
    assert len(indexer) == 1


def test_unknown_index_raises() -> None:
    with pytest.raises(KeyError):
        new_indexer().by_index("nope", "x")


def test_add_indexers_indexes_existing_objects_and_rejects_clash() -> None:
    indexer = Indexer({NAMESPACE_INDEX: namespace_index_func})
    indexer.add(pod("a", app="web"))
    indexer.add_indexers({APP_INDEX: app_index})
    assert indexer.index_keys(APP_INDEX, "web") == ["default/a"]
    indexer.add(pod("b", app="web"))
    assert indexer.index_keys(APP_INDEX, "web") == ["default/a", "default/b"]
    with pytest.raises(ValueError):
        indexer.add_indexers({APP_INDEX: app_index})


def test_failing_index_func_leaves_store_unchanged() -> None:
    def broken(obj: Object) -> list[str]:
        if obj["metadata"]["name"] == "bad":
            raise RuntimeError("boom")
        return ["x"]

    indexer = Indexer({"broken": broken})
    indexer.add(pod("good"))
    with pytest.raises(RuntimeError):
        indexer.add(pod("bad"))
    assert indexer.list_keys() == ["default/good"]
    assert indexer.index_keys("broken", "x") == ["default/good"]


def test_thread_safety_smoke() -> None:
    indexer = new_indexer()
    errors: list[BaseException] = []

    def writer(worker: int) -> None:
        try:
            for i in range(300):
                name = f"w{worker}-{i % 20}"
                indexer.add(pod(name, app="web"))
                indexer.update(pod(name, app="db" if i % 2 else "web"))
                if i % 3 == 0:
                    indexer.delete(pod(name))
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    def reader() -> None:
        try:
            for _ in range(300):
                for obj in indexer.by_index(APP_INDEX, "web"):
                    assert obj["metadata"]["labels"]["app"] == "web"
                indexer.list()
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    threads += [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    # the indexes agree exactly with the items
    labels = {o["metadata"]["name"]: o["metadata"]["labels"]["app"] for o in indexer.list()}
    for app in ("web", "db"):
        expected = sorted(f"default/{name}" for name, value in labels.items() if value == app)
        assert indexer.index_keys(APP_INDEX, app) == expected


def test_final_state_and_enqueueing_handlers_accept_a_tombstone() -> None:
    """A delete seen only at a relist comes as ``DeletedFinalStateUnknown``: ``final_state``
    gives its last known object, and ``EventHandlerFuncs.enqueueing`` its key."""
    live = {"metadata": {"namespace": "ns", "name": "p"}}
    tombstone = DeletedFinalStateUnknown("ns/gone", {"metadata": {"namespace": "ns", "name": "old"}})
    assert final_state(live) is live
    assert final_state(tombstone) is tombstone.obj
    keys: list[str] = []
    handlers = EventHandlerFuncs.enqueueing(keys.append)
    handlers.on_add(live, False)
    handlers.on_update({"metadata": {"namespace": "ns", "name": "before"}}, live)
    handlers.on_delete(tombstone)
    assert keys == ["ns/p", "ns/p", "ns/gone"]
