"""Cron schedules as upstream's CronJobs read them: robfig/cron v3's ``ParseStandard`` grammar
and error messages (``parser.py``), its ``Next`` (``schedule.py``) and Go's ``time.LoadLocation``
over the IANA database (``zones.py``). The apiserver validates with it, the CronJob controller
schedules with it, so the two always agree on what a schedule means."""

from minikube_py.cron.parser import CronParseError, parse_standard
from minikube_py.cron.schedule import EverySchedule, Schedule, SpecSchedule
from minikube_py.cron.zones import UnknownTimeZone, load_location

__all__ = [
    "CronParseError",
    "EverySchedule",
    "Schedule",
    "SpecSchedule",
    "UnknownTimeZone",
    "load_location",
    "parse_standard",
]
