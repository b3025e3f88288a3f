"""``controllers.history`` (upstream's ``pkg/controller/history``) on the fake client: naming
and hashing, ordering, equality, and the list/create/update/adopt/release/delete verbs with
hash-collision handling."""

from __future__ import annotations

from typing import Any

import pytest

from controllers.history import (
    CONTROLLER_REVISION_HASH_LABEL,
    History,
    controller_revision_name,
    equal_revision,
    find_equal_revisions,
    hash_controller_revision,
    new_controller_revision,
    next_revision,
    sort_controller_revisions,
)
from controllers.history.revisions import encode_data
from minikube_py.api.errors import ApiError
from minikube_py.api.labels import parse_label_selector
from minikube_py.api.unstructured import Object
from minikube_py.cache.store import NAMESPACE_INDEX, Indexer, namespace_index_func
from minikube_py.client.resourcetypes import CONTROLLERREVISIONS
from minikube_py.testing.fakeclient import FakeClient

NS = "default"
LABELS = {"app": "web"}
PAST = "2020-01-01T00:00:00Z"


def parent(name: str = "web", uid: str = "uid-web") -> Object:
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name, "namespace": NS, "uid": uid},
    }


def data(image: str) -> dict[str, Any]:
    return {
        "spec": {"template": {"$patch": "replace", "spec": {"containers": [{"name": "c", "image": image}]}}}
    }


def revision_of(owner: Object, image: str, number: int, collision_count: int | None = None) -> Object:
    return new_controller_revision(
        owner, "apps/v1", "StatefulSet", LABELS, data(image), number, collision_count
    )


class Fixture:
    def __init__(self) -> None:
        self.fake = FakeClient()
        self.indexer = Indexer({NAMESPACE_INDEX: namespace_index_func})
        self.history = History(self.fake, self.indexer)

    def seed(self, *revisions: Object) -> list[Object]:
        stored = self.fake.seed(CONTROLLERREVISIONS, *revisions)
        for revision in stored:
            self.indexer.add(revision)
        return stored


def test_the_name_is_the_prefix_and_the_hash_and_fits_a_subdomain() -> None:
    assert controller_revision_name("web", "abc") == "web-abc"
    long_name = controller_revision_name("x" * 300, "h")
    assert long_name == "x" * 223 + "-h" and len(long_name) <= 253


def test_the_hash_is_upstreams_fnv1_of_the_data_json_then_the_collision_count() -> None:
    cr = {"data": {"b": 1, "a": "<x>"}}
    assert encode_data(cr["data"]) == b'{"a":"\\u003cx\\u003e","b":1}'  # Go's json.Marshal of a map
    # FNV-1 32 of those bytes, computed independently, as decimal digits through SafeEncodeString
    value = 0x811C9DC5
    for byte in encode_data(cr["data"]):
        value = ((value * 0x01000193) % 2**32) ^ byte
    expected = "".join("bcdfghjklmnpqrstvwxz2456789"[ord(ch) % 27] for ch in str(value))
    assert hash_controller_revision(cr, None) == expected
    assert hash_controller_revision(cr, 0) != expected  # the probe is hashed too, even 0
    assert hash_controller_revision(cr, 1) != hash_controller_revision(cr, 0)
    assert hash_controller_revision({"data": {"a": "<x>", "b": 1}}, None) == expected  # key order


def test_a_new_revision_is_owned_named_and_labelled_by_its_hash() -> None:
    owner = parent()
    cr = revision_of(owner, "nginx:1", 3, collision_count=2)
    hash_ = hash_controller_revision(cr, 2)
    assert cr["metadata"]["name"] == f"web-{hash_}" and cr["metadata"]["namespace"] == NS
    assert cr["metadata"]["labels"] == {**LABELS, CONTROLLER_REVISION_HASH_LABEL: hash_}
    assert cr["metadata"]["ownerReferences"] == [
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": "uid-web", "controller": True,
         "blockOwnerDeletion": True},
    ]  # fmt: skip
    assert (cr["revision"], cr["data"]) == (3, data("nginx:1"))


@pytest.mark.parametrize(
    ("revisions", "expected"),
    [
        ([("a", 3, PAST), ("b", 1, PAST), ("c", 2, PAST)], ["b", "c", "a"]),
        ([("a", 1, "2020-01-02T00:00:00Z"), ("b", 1, "2020-01-01T00:00:00Z")], ["b", "a"]),
        ([("b", 1, PAST), ("a", 1, PAST)], ["a", "b"]),
        ([], []),
    ],
)
def test_revisions_sort_by_number_then_creation_then_name(
    revisions: list[tuple[str, int, str]], expected: list[str]
) -> None:
    objs = [{"metadata": {"name": n, "creationTimestamp": t}, "revision": r} for n, r, t in revisions]
    assert [o["metadata"]["name"] for o in sort_controller_revisions(objs)] == expected


def test_equal_revisions_have_the_same_data() -> None:
    owner = parent()
    one, same, other = revision_of(owner, "a", 1), revision_of(owner, "a", 5), revision_of(owner, "b", 1)
    assert equal_revision(one, same) and not equal_revision(one, other)
    assert equal_revision(None, None) and not equal_revision(one, None)
    numeric = [
        {**one, "metadata": {"name": n, "labels": {CONTROLLER_REVISION_HASH_LABEL: h}}}
        for n, h in (("x", "1"), ("y", "2"))
    ]
    assert not equal_revision(*numeric)  # hashes that parse as int32 and differ decide
    assert find_equal_revisions([one, other, same], revision_of(owner, "a", 9)) == [one, same]


@pytest.mark.parametrize(("numbers", "expected"), [([], 1), ([1], 2), ([1, 2, 7], 8), ([4, 2], 5)])
def test_next_revision_follows_the_highest(numbers: list[int], expected: int) -> None:
    assert next_revision([{"revision": n} for n in numbers]) == expected


def test_list_finds_owned_and_orphan_revisions_matching_the_selector() -> None:
    f = Fixture()
    owner, other = parent(), parent("db", "uid-db")
    mine = revision_of(owner, "a", 1)
    theirs = revision_of(other, "a", 1)
    orphan = {
        **revision_of(owner, "o", 2),
        "metadata": {**revision_of(owner, "o", 2)["metadata"], "ownerReferences": []},
    }
    unlabelled = revision_of(owner, "u", 3)
    unlabelled["metadata"]["labels"] = {"app": "other"}
    f.seed(mine, theirs, orphan, unlabelled)
    found = f.history.list_controller_revisions(owner, parse_label_selector("app=web"))
    assert sorted(r["metadata"]["name"] for r in found) == sorted(
        [mine["metadata"]["name"], orphan["metadata"]["name"]]
    )


async def test_create_stores_the_revision_under_its_hash_name() -> None:
    f = Fixture()
    owner = parent()
    created = await f.history.create_controller_revision(owner, revision_of(owner, "a", 1), 0)
    assert created.collision_count == 0
    name = controller_revision_name("web", hash_controller_revision(revision_of(owner, "a", 1), 0))
    assert created.revision["metadata"]["name"] == name
    assert f.fake.stored(CONTROLLERREVISIONS, NS, name) is not None


async def test_create_returns_an_existing_revision_with_the_same_data() -> None:
    f = Fixture()
    owner = parent()
    [existing] = f.seed(revision_of(owner, "a", 1, 0))
    created = await f.history.create_controller_revision(owner, revision_of(owner, "a", 2), 0)
    assert created.revision["metadata"]["uid"] == existing["metadata"]["uid"] and created.collision_count == 0
    assert len(f.fake.filter_actions("create", "controllerrevisions")) == 1


async def test_a_hash_collision_bumps_the_collision_count_and_tries_the_next_name() -> None:
    f = Fixture()
    owner = parent()
    wanted = revision_of(owner, "a", 2)
    squatter = revision_of(owner, "zzz", 1)
    squatter["metadata"]["name"] = controller_revision_name("web", hash_controller_revision(wanted, 0))
    f.seed(squatter)
    created = await f.history.create_controller_revision(owner, wanted, 0)
    assert created.collision_count == 1
    assert created.revision["metadata"]["name"] == controller_revision_name(
        "web", hash_controller_revision(wanted, 1)
    )
    assert created.revision["data"] == data("a")


async def test_create_passes_other_errors_on() -> None:
    f = Fixture()
    f.fake.fail("create", "controllerrevisions", ApiError(403, "Forbidden", "no"))
    with pytest.raises(ApiError) as raised:
        await f.history.create_controller_revision(parent(), revision_of(parent(), "a", 1), 0)
    assert raised.value.code == 403


async def test_update_sets_the_revision_number_and_retries_a_conflict() -> None:
    f = Fixture()
    [stored] = f.seed(revision_of(parent(), "a", 1))
    f.fake.fail("update", "controllerrevisions", ApiError(409, "Conflict", "stale"))
    updated = await f.history.update_controller_revision(stored, 4)
    assert updated["revision"] == 4
    assert f.fake.stored(CONTROLLERREVISIONS, NS, stored["metadata"]["name"])["revision"] == 4  # type: ignore[index]
    f.fake.clear_actions()
    assert (await f.history.update_controller_revision(updated, 4))["revision"] == 4
    assert f.fake.filter_actions("update", "controllerrevisions") == []  # already at that number


async def test_adopt_and_release_patch_the_owner_reference() -> None:
    f = Fixture()
    owner = parent()
    orphan = revision_of(owner, "a", 1)
    orphan["metadata"]["ownerReferences"] = []
    [stored] = f.seed(orphan)
    adopted = await f.history.adopt_controller_revision(owner, "apps/v1", "StatefulSet", stored)
    assert [r["uid"] for r in adopted["metadata"]["ownerReferences"]] == ["uid-web"]
    with pytest.raises(ValueError, match="attempt to adopt revision owned by"):
        await f.history.adopt_controller_revision(parent("db", "uid-db"), "apps/v1", "StatefulSet", adopted)
    released = await f.history.release_controller_revision(owner, adopted)
    assert released is not None and not released["metadata"].get("ownerReferences")


async def test_release_of_a_revision_that_is_gone_is_none() -> None:
    f = Fixture()
    owner = parent()
    assert await f.history.release_controller_revision(owner, {**revision_of(owner, "a", 1), "metadata": {
        **revision_of(owner, "a", 1)["metadata"], "uid": "gone"}}) is None  # fmt: skip


async def test_delete_removes_the_revision_and_ignores_one_already_gone() -> None:
    f = Fixture()
    [stored] = f.seed(revision_of(parent(), "a", 1))
    await f.history.delete_controller_revision(stored)
    assert f.fake.stored(CONTROLLERREVISIONS, NS, stored["metadata"]["name"]) is None
    await f.history.delete_controller_revision(stored)  # a 404 is no error
