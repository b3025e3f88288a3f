"""``/healthz`` as upstream's proxier health (fake clock): 200 with lastUpdated/currentTime
while syncs keep up, 503 once a change waited longer than the timeout; ``/metrics`` text."""

from __future__ import annotations

import httpx

from minikube_py.clock import FakeClock
from nodeagent.proxy.healthz import ProxierHealth, healthz_app, metrics_app
from nodeagent.proxy.metrics import ProxyMetrics


async def get(app: object, path: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://proxy") as client:
        return await client.get(path)


async def test_healthz_is_503_when_a_change_waits_longer_than_the_timeout() -> None:
    clock = FakeClock()
    health = ProxierHealth(clock, timeout=60)
    app = healthz_app(health)
    assert (await get(app, "/healthz")).status_code == 200  # starting: the first sync is pending
    await clock.step(61)
    assert (await get(app, "/healthz")).status_code == 503  # it never came
    health.updated()
    response = await get(app, "/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["lastUpdated"] == body["currentTime"] == "2027-01-15T08:01:01.000000Z"
    health.queued_update()
    await clock.step(30)
    health.queued_update()  # a later change does not reset the oldest pending one
    await clock.step(31)
    assert (await get(app, "/livez")).status_code == 503
    health.updated()
    assert (await get(app, "/healthz")).status_code == 200


async def test_metrics_app_serves_the_proxy_registry_and_the_mode() -> None:
    metrics = ProxyMetrics()
    metrics.sync_duration.observe(0.003)
    metrics.traffic.connections = 7
    app = metrics_app(metrics.registry)
    text = (await get(app, "/metrics")).text
    assert 'kubeproxy_sync_proxy_rules_duration_seconds_bucket{le="0.004"} 1' in text
    assert 'kubeproxy_sync_proxy_rules_duration_seconds_bucket{le="0.002"} 0' in text
    assert "# TYPE kubeproxy_sync_proxy_rules_duration_seconds histogram" in text
    assert "minikube_py_proxy_connections_total 7" in text
    assert (await get(app, "/proxyMode")).text == "userspace"
