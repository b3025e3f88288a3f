"""robfig/cron v3's ParseStandard and Next: the grammar upstream accepts (and what it refuses,
which croniter and cronsim accept), the day-of-month/day-of-week rule, descriptors, ``@every``,
time zones and DST, and the five-year search that makes ``0 0 31 2 *`` never fire."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from minikube_py.cron import (
    CronParseError,
    EverySchedule,
    UnknownTimeZone,
    load_location,
    parse_standard,
    zones,
)

START = datetime(2026, 1, 1, tzinfo=UTC)  # a Thursday


def at(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


@pytest.mark.parametrize(
    ("spec", "after", "expected"),
    [
        ("*/1 * * * *", START, at(2026, 1, 1, 0, 1)),
        ("*/15 * * * *", at(2026, 1, 1, 0, 14, 59), at(2026, 1, 1, 0, 15)),
        ("5/20 * * * *", at(2026, 1, 1, 0, 26), at(2026, 1, 1, 0, 45)),  # N/step is N-max/step
        ("30 6-16/4 * * 1-5", START, at(2026, 1, 1, 6, 30)),
        ("0 0 * JAN-mar *", START, at(2026, 1, 2)),
        ("0 0 ? * MON", START, at(2026, 1, 5)),  # ? is *
        ("0 9 * * sun,sat", START, at(2026, 1, 3, 9)),
        ("0 0 13 * 5", START, at(2026, 1, 2)),  # both days restricted: either matches (Friday 2nd)
        ("0 0 */2 * 1", START, at(2026, 1, 3)),  # */2 is no star: still either (3rd is odd)
        ("0 0 * * 1", START, at(2026, 1, 5)),  # dom * : both must match, so Monday only
        ("0 0 */1 * 1", START, at(2026, 1, 5)),  # */1 keeps the star
        ("0 0 29 2 *", START, at(2028, 2, 29)),
        ("1,,2 * * * *", START, at(2026, 1, 1, 0, 1)),  # empty list entries are skipped
        ("@yearly", START, at(2027, 1, 1)),
        ("@annually", START, at(2027, 1, 1)),
        ("@monthly", START, at(2026, 2, 1)),
        ("@weekly", START, at(2026, 1, 4)),
        ("@daily", START, at(2026, 1, 2)),
        ("@midnight", START, at(2026, 1, 2)),
        ("@hourly", START, at(2026, 1, 1, 1)),
        ("@every 90s", at(2026, 1, 1, 0, 0, 10).replace(microsecond=500), at(2026, 1, 1, 0, 1, 40)),
        ("@every 1m30.9s", START, at(2026, 1, 1, 0, 1, 30)),
        ("@every 10ms", START, at(2026, 1, 1, 0, 0, 1)),  # at least a second
        ("TZ=Europe/Paris 0 9 * * *", START, at(2026, 1, 1, 8)),
        ("CRON_TZ=America/New_York 0 9 * * *", START, at(2026, 1, 1, 14)),
    ],
)
def test_next(spec: str, after: datetime, expected: datetime) -> None:
    assert parse_standard(spec, UTC).next(after) == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty spec string"),
        ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
        ("0 * * * * *", "expected exactly 5 fields, found 6: [0 * * * * *]"),
        ("0 0 * * 7", "end of range (7) above maximum (6): 7"),
        ("0 24 * * *", "end of range (24) above maximum (23): 24"),
        ("0 0 * 0 *", "beginning of range (0) below minimum (1): 0"),
        ("10-5 * * * *", "beginning of range (10) beyond end of range (5): 10-5"),
        ("*/0 * * * *", "step of range should be a positive number: */0"),
        ("*/-2 * * * *", "negative number (-2) not allowed: -2"),
        ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
        ("1/2/3 * * * *", "too many slashes: 1/2/3"),
        ("-5 * * * *", 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'),
        ("0 0 L * *", 'failed to parse int from L: strconv.Atoi: parsing "L": invalid syntax'),
        ("0 0 15W * *", 'failed to parse int from 15W: strconv.Atoi: parsing "15W": invalid syntax'),
        ("0 0 * * 5#3", 'failed to parse int from 5#3: strconv.Atoi: parsing "5#3": invalid syntax'),
        ("H * * * *", 'failed to parse int from H: strconv.Atoi: parsing "H": invalid syntax'),
        ("1_0 * * * *", 'failed to parse int from 1_0: strconv.Atoi: parsing "1_0": invalid syntax'),
        (
            "99999999999999999999 * * * *",
            "failed to parse int from 99999999999999999999: strconv.Atoi: parsing "
            '"99999999999999999999": value out of range',
        ),
        ("@reboot", "unrecognized descriptor: @reboot"),
        ("@every", "unrecognized descriptor: @every"),
        ("@every 5", 'failed to parse duration @every 5: time: missing unit in duration "5"'),
        ("TZ=Nowhere/Land * * * * *", "provided bad location Nowhere/Land: unknown time zone Nowhere/Land"),
    ],
)
def test_refused_with_robfigs_message(spec: str, message: str) -> None:
    with pytest.raises(CronParseError) as refused:
        parse_standard(spec, UTC)
    assert str(refused.value) == message


def test_a_day_that_never_comes_is_no_time_at_all() -> None:
    assert parse_standard("59 23 31 2 *", UTC).next(START) is None
    assert parse_standard("0 0 30 2 *", UTC).next(START) is None


def test_every_is_a_constant_delay() -> None:
    assert parse_standard("@every 2h", UTC) == EverySchedule(7200)
    assert parse_standard("@every -5s", UTC) == EverySchedule(1)


def test_the_default_zone_reads_the_fields() -> None:
    tokyo = ZoneInfo("Asia/Tokyo")
    assert parse_standard("0 9 * * *", tokyo).next(START) == at(2026, 1, 2, 0)
    assert parse_standard("TZ=UTC 0 9 * * *", tokyo).next(START) == at(2026, 1, 1, 9)


def test_a_time_in_a_dst_gap_is_skipped_and_a_repeated_one_runs_twice() -> None:
    paris = ZoneInfo("Europe/Paris")  # 2026-03-29 02:00 -> 03:00, 2026-10-25 03:00 -> 02:00
    schedule = parse_standard("30 2 * * *", paris)
    assert schedule.next(at(2026, 3, 28, 12)) == at(2026, 3, 30, 0, 30)  # no 02:30 on the 29th
    assert schedule.next(at(2026, 10, 24, 12)) == at(2026, 10, 25, 0, 30)  # 02:30 CEST
    assert schedule.next(at(2026, 10, 25, 0, 30)) == at(2026, 10, 25, 1, 30)  # 02:30 CET
    hourly = parse_standard("0 * * * *", paris)
    assert hourly.next(at(2026, 3, 29, 0, 30)) == at(2026, 3, 29, 1)  # 03:00 CEST, an hour later


def test_load_location_as_go() -> None:
    assert load_location("") is load_location("UTC") is zones.UTC
    assert str(load_location("Europe/Paris")) == "Europe/Paris"
    for name in ("Mars/Base", "../etc/passwd", "utc "):
        with pytest.raises(UnknownTimeZone) as refused:
            load_location(name)
        assert str(refused.value) == f"unknown time zone {name}"
