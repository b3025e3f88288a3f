"""robfig/cron v3's ``ParseStandard``, the parser upstream's apiserver and CronJob controller use.

The grammar: an optional ``TZ=zone `` or ``CRON_TZ=zone `` prefix, then either a descriptor
(``@yearly``/``@annually``, ``@monthly``, ``@weekly``, ``@daily``/``@midnight``, ``@hourly``,
``@every <Go duration>``) or exactly five whitespace-separated fields: minute 0-59, hour 0-23,
day of month 1-31, month 1-12 or ``jan``-``dec``, day of week 0-6 or ``sun``-``sat`` (names in
any case; 7 is not Sunday). A field is a comma list of ``*``, ``?`` (same as ``*``), ``N``,
``N-M``, each optionally ``/step`` (``N/step`` means ``N-max/step``). Nothing else: no ``L``,
``W``, ``#`` or seconds field. Errors are robfig's messages, word for word, because upstream's
422 for a bad ``spec.schedule`` quotes them.

A field written with ``*`` or ``?`` (and no step above 1) carries ``STAR_BIT``: when either day
field has it, a day must match both day fields, otherwise either (``schedule.day_matches``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import tzinfo

from minikube_py.cron.schedule import STAR_BIT, EverySchedule, Schedule, SpecSchedule
from minikube_py.cron.zones import UnknownTimeZone, load_location, local_zone
from minikube_py.goduration import parse_go_duration

_INT = re.compile(r"[+-]?[0-9]+")
_INT64_MAX = 2**63 - 1
_EVERY = "@every "


class CronParseError(ValueError):
    """A schedule robfig/cron refuses; ``str`` is its error text."""


@dataclass(frozen=True, slots=True)
class Bounds:
    low: int
    high: int
    names: dict[str, int] | None = None


MINUTES = Bounds(0, 59)
HOURS = Bounds(0, 23)
DOM = Bounds(1, 31)
_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
MONTHS = Bounds(1, 12, {m: i + 1 for i, m in enumerate(_MONTH_NAMES)})
DOW = Bounds(0, 6, {d: i for i, d in enumerate(_DAY_NAMES)})
_FIELDS = (MINUTES, HOURS, DOM, MONTHS, DOW)


def parse_standard(spec: str, default_zone: tzinfo | None = None) -> Schedule:
    """The schedule ``spec`` means; ``default_zone`` (the process's zone if None) applies unless
    ``spec`` names one with ``TZ=``. Raises ``CronParseError`` with robfig's message."""
    if not spec:
        raise CronParseError("empty spec string")
    zone = default_zone
    if spec.startswith(("TZ=", "CRON_TZ=")):
        zone, spec = _zone_prefix(spec)
    if zone is None:
        zone = local_zone()
    if spec.startswith("@"):
        return _descriptor(spec, zone)
    fields = spec.split()
    if len(fields) != len(_FIELDS):
        raise CronParseError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    minute, hour, dom, month, dow = (get_field(f, b) for f, b in zip(fields, _FIELDS, strict=True))
    return SpecSchedule(1, minute, hour, dom, month, dow, zone)


def _zone_prefix(spec: str) -> tuple[tzinfo, str]:
    space = spec.find(" ")
    name = spec[spec.index("=") + 1 : space if space >= 0 else len(spec)]
    try:
        zone = load_location(name)
    except UnknownTimeZone as exc:
        raise CronParseError(f"provided bad location {name}: {exc}") from None
    return zone, spec[space:].strip() if space >= 0 else ""


def _descriptor(spec: str, zone: tzinfo) -> Schedule:
    minute, hour, day, month = (1 << b.low for b in (MINUTES, HOURS, DOM, MONTHS))
    sunday = 1 << DOW.low
    hours, days, months, weekdays = (all_bits(b) for b in (HOURS, DOM, MONTHS, DOW))
    match spec:
        case "@yearly" | "@annually":
            return SpecSchedule(1, minute, hour, day, month, weekdays, zone)
        case "@monthly":
            return SpecSchedule(1, minute, hour, day, months, weekdays, zone)
        case "@weekly":
            return SpecSchedule(1, minute, hour, days, months, sunday, zone)
        case "@daily" | "@midnight":
            return SpecSchedule(1, minute, hour, days, months, weekdays, zone)
        case "@hourly":
            return SpecSchedule(1, minute, hours, days, months, weekdays, zone)
    if spec.startswith(_EVERY):
        try:
            seconds = parse_go_duration(spec[len(_EVERY) :])
        except ValueError as exc:
            raise CronParseError(f"failed to parse duration {spec}: {exc}") from None
        # robfig: at least a second, whole seconds only
        return EverySchedule(max(1, int(seconds)))
    raise CronParseError(f"unrecognized descriptor: {spec}")


def get_field(field: str, bounds: Bounds) -> int:
    """The bits of one field: the union of its comma-separated ranges (empty ones skipped)."""
    bits = 0
    for expr in (part for part in field.split(",") if part):
        bits |= get_range(expr, bounds)
    return bits


def get_range(expr: str, bounds: Bounds) -> int:
    """The bits of ``*``, ``?``, ``N`` or ``N-M``, optionally ``/step``."""
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    extra = 0
    if low_and_high[0] in ("*", "?"):
        start, end, extra = bounds.low, bounds.high, STAR_BIT
    else:
        start = _int_or_name(low_and_high[0], bounds.names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], bounds.names)
        else:
            raise CronParseError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _must_parse_int(range_and_step[1])
        if len(low_and_high) == 1:  # "N/step" means "N-max/step"
            end = bounds.high
        if step > 1:
            extra = 0
    else:
        raise CronParseError(f"too many slashes: {expr}")
    if start < bounds.low:
        raise CronParseError(f"beginning of range ({start}) below minimum ({bounds.low}): {expr}")
    if end > bounds.high:
        raise CronParseError(f"end of range ({end}) above maximum ({bounds.high}): {expr}")
    if start > end:
        raise CronParseError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronParseError(f"step of range should be a positive number: {expr}")
    return _bits(start, end, step) | extra


def _int_or_name(expr: str, names: dict[str, int] | None) -> int:
    if names is not None and expr.lower() in names:
        return names[expr.lower()]
    return _must_parse_int(expr)


def _must_parse_int(expr: str) -> int:
    """Go's ``strconv.Atoi`` (ASCII digits with an optional sign), then non-negative."""
    quoted = '"' + expr.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if not _INT.fullmatch(expr):
        raise CronParseError(
            f"failed to parse int from {expr}: strconv.Atoi: parsing {quoted}: invalid syntax"
        )
    num = int(expr)
    if abs(num) > _INT64_MAX + (num < 0):
        raise CronParseError(
            f"failed to parse int from {expr}: strconv.Atoi: parsing {quoted}: value out of range"
        )
    if num < 0:
        raise CronParseError(f"negative number ({num}) not allowed: {expr}")
    return num


def _bits(start: int, end: int, step: int) -> int:
    return sum(1 << i for i in range(start, end + 1, step))


def all_bits(bounds: Bounds) -> int:
    """Every value of a field, written as ``*``."""
    return _bits(bounds.low, bounds.high, 1) | STAR_BIT
