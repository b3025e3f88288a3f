"""An unconditional PUT (no resourceVersion) that loses one compare-and-swap race must be
retried, as upstream's GuaranteedUpdate does, not answered 409."""

NS = "/api/v1/namespaces/default"
CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c1"}, "data": {"a": "1"}}


async def _race_once(kv, key_part):
    real = kv.update
    state = {"raced": False}

    async def update(key, value, expected_revision):
        if key_part in key and not state["raced"]:
            state["raced"] = True
            # another writer wins the race (e.g. a controller touching the object)
            cur = await kv.get(key)
            await real(key, cur.value, cur.mod_revision)
        return await real(key, value, expected_revision)

    kv.update = update
    return state


async def test_unconditional_put_retries_on_conflict(api_kv):
    api, kv = api_kv
    assert (await api.post(f"{NS}/configmaps", json=CM)).status_code == 201
    state = await _race_once(kv, "configmaps")
    r = await api.put(f"{NS}/configmaps/c1", json={**CM, "data": {"a": "2"}})
    assert state["raced"]
    assert r.status_code == 200, r.text
    assert r.json()["data"] == {"a": "2"}
