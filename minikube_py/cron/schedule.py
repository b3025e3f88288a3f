"""robfig/cron v3's schedules and their ``Next``: the first activation strictly after a time.

``SpecSchedule`` keeps one bit per allowed value of each field (``STAR_BIT`` marks a field
written as ``*``) and walks forward in its zone the way robfig does: month, then day, then hour,
minute and second, each step resetting the smaller units once, wrapping back to the month check
when a unit overflows, and giving up (``None``, robfig's zero time) after five years, e.g. for
``0 0 31 2 *``. Arithmetic on hours and smaller units is on absolute time (as Go's ``Add``),
day and month steps on the wall clock (``AddDate``), so DST gaps and repeats behave as upstream.
``EverySchedule`` is ``@every``: a fixed whole-second delay after the given time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Protocol

STAR_BIT = 1 << 63
YEARS_SEARCHED = 5


class Schedule(Protocol):
    def next(self, t: datetime) -> datetime | None:
        """The first activation strictly after ``t`` (aware), in UTC; None if there is none."""
        ...


@dataclass(frozen=True, slots=True)
class EverySchedule:
    """``@every``: ``delay_seconds`` after ``t``, rounded down to the second."""

    delay_seconds: int

    def next(self, t: datetime) -> datetime | None:
        return t.astimezone(UTC).replace(microsecond=0) + timedelta(seconds=self.delay_seconds)


@dataclass(frozen=True, slots=True)
class SpecSchedule:
    """Bits per field (bit N: value N allowed) and the zone the fields are read in."""

    second: int
    minute: int
    hour: int
    dom: int
    month: int
    dow: int
    zone: tzinfo

    def next(self, t: datetime) -> datetime | None:
        t = _add(t.astimezone(self.zone).replace(microsecond=0), 1)
        added = False
        year_limit = t.year + YEARS_SEARCHED
        while t.year <= year_limit:
            found, t, added = self._advance(t, added)
            if found:
                return t.astimezone(UTC)
        return None

    def _advance(self, t: datetime, added: bool) -> tuple[bool, datetime, bool]:
        """One pass of robfig's loop; False when a unit wrapped and the month check must rerun."""
        while not _has(self.month, t.month):
            if not added:
                added, t = True, self._date(t.year, t.month, 1)
            t = self._date(t.year, t.month + 1, t.day, t.hour, t.minute, t.second)
            if t.month == 1:
                return False, t, added
        while not day_matches(self, t):
            if not added:
                added, t = True, self._date(t.year, t.month, t.day)
            t = self._date(t.year, t.month, t.day + 1, t.hour, t.minute, t.second)
            # a day step across a DST change can land off midnight: pull it back (robfig)
            if t.hour != 0:
                t = _add(t, (24 - t.hour) * 3600 if t.hour > 12 else -t.hour * 3600)
            if t.day == 1:
                return False, t, added
        for bits, unit, seconds in (
            (self.hour, "hour", 3600),
            (self.minute, "minute", 60),
            (self.second, "second", 1),
        ):
            while not _has(bits, getattr(t, unit)):
                if not added:
                    added, t = True, _truncate(t, unit)
                t = _add(t, seconds)
                if getattr(t, unit) == 0:
                    return False, t, added
        return True, t, added

    def _date(
        self, year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0
    ) -> datetime:
        """Go's ``time.Date`` in this zone: out-of-range months and days roll over."""
        year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
        day_start = date(year, month, 1) + timedelta(days=day - 1)
        wall = datetime(
            day_start.year, day_start.month, day_start.day, hour, minute, second, tzinfo=self.zone
        )
        return wall.astimezone(UTC).astimezone(self.zone)  # a time in a DST gap moves past it, as Go's


def day_matches(s: SpecSchedule, t: datetime) -> bool:
    """Both day fields must match when either was written ``*``; otherwise either may."""
    dom_match = _has(s.dom, t.day)
    dow_match = _has(s.dow, (t.weekday() + 1) % 7)
    if s.dom & STAR_BIT or s.dow & STAR_BIT:
        return dom_match and dow_match
    return dom_match or dow_match


def _has(bits: int, value: int) -> bool:
    return bool(bits >> value & 1)


def _add(t: datetime, seconds: int) -> datetime:
    """``t`` plus ``seconds`` of absolute time (Python's aware arithmetic is wall-clock)."""
    zone = t.tzinfo
    return (t.astimezone(UTC) + timedelta(seconds=seconds)).astimezone(zone)


def _truncate(t: datetime, unit: str) -> datetime:
    if unit == "hour":
        return t.replace(minute=0, second=0)
    if unit == "minute":
        return t.replace(second=0)
    return t
