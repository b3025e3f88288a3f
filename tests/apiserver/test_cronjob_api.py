"""batch/v1 CronJobs over real HTTPS against a real apiserver: upstream's defaults, the 422s of
``pkg/apis/batch/validation`` (robfig/cron's parse errors word for word, ``TZ=`` refused, unknown
time zones, the 52-character name limit, negative history limits, the job template checked as a
Job's spec), the status subresource, discovery and the Table."""

from __future__ import annotations

import copy
import ssl
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.client.apiserver import RunningApiserver

CRONJOBS = "/apis/batch/v1/namespaces/default/cronjobs"
TABLE = {"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
MERGE = {"content-type": "application/merge-patch+json"}


def cronjob(name: str = "hello", schedule: str = "*/1 * * * *", **spec: Any) -> dict[str, Any]:
    pod = {"restartPolicy": "OnFailure", "containers": [{"name": name, "image": "busybox", "args": ["date"]}]}
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name},
        "spec": {"schedule": schedule, "jobTemplate": {"spec": {"template": {"spec": pod}}}, **spec},
    }


@pytest.fixture
async def client(https_api: RunningApiserver) -> AsyncIterator[httpx.AsyncClient]:
    context = ssl.create_default_context(cafile=str(https_api.pki.ca.cert))
    context.load_cert_chain(str(https_api.pki.admin.cert), str(https_api.pki.admin.key))
    async with httpx.AsyncClient(base_url=https_api.url, verify=context, timeout=10) as c:
        yield c


async def refused(client: httpx.AsyncClient, body: dict[str, Any]) -> str:
    answer = await client.post(CRONJOBS, json=body)
    assert answer.status_code == 422, answer.text
    status = answer.json()
    assert (status["kind"], status["reason"], status["code"]) == ("Status", "Invalid", 422)
    message: str = status["message"]
    return message


@pytest.mark.parametrize(
    ("schedule", "detail"),
    [
        ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
        ("* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"),
        ("61 * * * *", "end of range (61) above maximum (59): 61"),
        ("0 0 * * 7", "end of range (7) above maximum (6): 7"),
        ("0 0 0 * *", "beginning of range (0) below minimum (1): 0"),
        ("5-3 * * * *", "beginning of range (5) beyond end of range (3): 5-3"),
        ("*/0 * * * *", "step of range should be a positive number: */0"),
        ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
        ("*/2/3 * * * *", "too many slashes: */2/3"),
        ("0 0 L * *", 'failed to parse int from L: strconv.Atoi: parsing "L": invalid syntax'),
        ("0 0 * * 5#2", 'failed to parse int from 5#2: strconv.Atoi: parsing "5#2": invalid syntax'),
        ("@fortnightly", "unrecognized descriptor: @fortnightly"),
        ("@every soon", 'failed to parse duration @every soon: time: invalid duration "soon"'),
    ],
)
async def test_a_schedule_that_does_not_parse_is_422_with_robfigs_message(
    client: httpx.AsyncClient, schedule: str, detail: str
) -> None:
    message = await refused(client, cronjob(schedule=schedule))
    assert message == (
        f'CronJob.batch "hello" is invalid: spec.schedule: Invalid value: "{schedule}": {detail}'
    )


async def test_time_zones_belong_in_the_time_zone_field(client: httpx.AsyncClient) -> None:
    message = await refused(client, cronjob(schedule="CRON_TZ=UTC 0 * * * *"))
    assert message == (
        'CronJob.batch "hello" is invalid: spec.schedule: Invalid value: "CRON_TZ=UTC 0 * * * *": '
        "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
    )
    message = await refused(client, cronjob(timeZone="Mars/Olympus_Mons"))
    assert message == (
        'CronJob.batch "hello" is invalid: spec.timeZone: Invalid value: "Mars/Olympus_Mons": '
        "unknown time zone Mars/Olympus_Mons"
    )
    message = await refused(client, cronjob(timeZone="Local"))
    assert "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones" in message
    created = await client.post(CRONJOBS, json=cronjob(timeZone="Europe/Paris", schedule="@daily"))
    assert created.status_code == 201, created.text
    assert created.json()["spec"]["timeZone"] == "Europe/Paris"


async def test_names_limits_and_the_job_template_are_validated(client: httpx.AsyncClient) -> None:
    long_name = "a" * 53
    message = await refused(client, cronjob(long_name))
    assert message == (
        f'CronJob.batch "{long_name}" is invalid: metadata.name: Invalid value: "{long_name}": '
        "must be no more than 52 characters"
    )
    message = await refused(client, cronjob(successfulJobsHistoryLimit=-1, startingDeadlineSeconds=-5))
    assert message == (
        'CronJob.batch "hello" is invalid: [spec.startingDeadlineSeconds: Invalid value: -5: must be '
        "greater than or equal to 0, spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater "
        "than or equal to 0]"
    )
    bad = cronjob()
    bad["spec"]["jobTemplate"]["spec"]["template"]["spec"]["restartPolicy"] = "Always"
    bad["spec"]["jobTemplate"]["spec"]["selector"] = {"matchLabels": {"a": "b"}}
    message = await refused(client, bad)
    assert "spec.jobTemplate.spec.template.spec.restartPolicy: Required value" in message
    assert "spec.jobTemplate.spec.selector: Invalid value: " in message
    assert "`selector` will be auto-generated" in message
    message = await refused(client, cronjob(concurrencyPolicy="Sometimes"))
    assert message == (
        'CronJob.batch "hello" is invalid: spec.concurrencyPolicy: Unsupported value: "Sometimes": '
        'supported values: "Allow", "Forbid", "Replace"'
    )


async def test_defaults_status_and_table(client: httpx.AsyncClient) -> None:
    created = await client.post(CRONJOBS, json=cronjob(status={"active": []}))
    assert created.status_code == 201, created.text
    body = created.json()
    spec = body["spec"]
    assert (spec["concurrencyPolicy"], spec["suspend"]) == ("Allow", False)
    assert (spec["successfulJobsHistoryLimit"], spec["failedJobsHistoryLimit"]) == (3, 1)
    pod = spec["jobTemplate"]["spec"]["template"]["spec"]
    assert (pod["dnsPolicy"], pod["terminationGracePeriodSeconds"]) == ("ClusterFirst", 30)
    assert "backoffLimit" not in spec["jobTemplate"]["spec"]  # SetDefaults_Job is for Jobs only
    status = {"lastScheduleTime": "2026-01-01T00:00:00Z", "active": [{"kind": "Job", "name": "hello-1"}]}
    body["status"] = status
    updated = await client.put(f"{CRONJOBS}/hello/status", json=body)
    assert updated.status_code == 200, updated.text
    assert updated.json()["status"] == status
    suspended = await client.patch(f"{CRONJOBS}/hello", json={"spec": {"suspend": True}}, headers=MERGE)
    assert suspended.json()["status"] == status  # the main resource cannot change the status
    table = (await client.get(CRONJOBS, headers=TABLE)).json()
    names = [c["name"] for c in table["columnDefinitions"]]
    assert names == [
        "Name", "Schedule", "Timezone", "Suspend", "Active", "Last Schedule", "Age",
        "Containers", "Images", "Selector",
    ]  # fmt: skip
    wide = [c["name"] for c in table["columnDefinitions"] if c["priority"] == 1]
    assert wide == ["Containers", "Images", "Selector"]
    cells = table["rows"][0]["cells"]
    assert cells[:5] == ["hello", "*/1 * * * *", "<none>", "true", 1]
    assert cells[5].endswith(("d", "y")) and cells[7:] == ["hello", "busybox", "<none>"]


async def test_an_update_keeps_the_old_tz_schedule_but_refuses_a_new_one(client: httpx.AsyncClient) -> None:
    created = (await client.post(CRONJOBS, json=cronjob())).json()
    changed = copy.deepcopy(created)
    changed["spec"]["schedule"] = "TZ=UTC */5 * * * *"
    answer = await client.put(f"{CRONJOBS}/hello", json=changed)
    assert answer.status_code == 422
    assert "cannot use TZ or CRON_TZ in schedule, use timeZone field instead" in answer.json()["message"]


async def test_discovery_lists_cronjobs(client: httpx.AsyncClient) -> None:
    resources = (await client.get("/apis/batch/v1")).json()["resources"]
    by_name = {r["name"]: r for r in resources}
    assert by_name["cronjobs"]["shortNames"] == ["cj"]
    assert by_name["cronjobs"]["categories"] == ["all"]
    assert by_name["cronjobs"]["namespaced"] is True
    assert set(by_name["cronjobs/status"]["verbs"]) == {"get", "patch", "update"}
