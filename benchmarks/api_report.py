"""The rows of ``benchmarks/api.py``'s table: wrk figures against their baselines, goals met,
and the machine and versions they were measured on."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from api_clients import WrkResult, run_wrk, wrk_path  # noqa: E402 - benchmarks/ is not a package
from api_servers import Row, Settings  # noqa: E402

RowMaker = Callable[[str, WrkResult, WrkResult], Row]


def wrk_row(
    scenario: str, ours_url: str, base_url: str, s: Settings, make: RowMaker, script: Path | None = None
) -> list[Row]:
    label = f"{scenario} (wrk -t2 -c{s.connections})"
    if wrk_path() is None:
        return [Row(label, "skipped: wrk not found")]
    ours, base = (
        run_wrk(url, threads=2, connections=s.connections, seconds=s.seconds, script=script)
        for url in (ours_url, base_url)
    )
    return [make(label, ours, base)]


def rate_row(goal: float) -> RowMaker:
    """Requests/s; the ratio is ours/baseline and must be at least ``goal``."""

    def make(label: str, ours: WrkResult, base: WrkResult) -> Row:
        ratio = ours.requests_per_s / base.requests_per_s
        return Row(
            label,
            f"{ours.requests_per_s:,.0f} req/s{wrk_errors(ours)}",
            f"{base.requests_per_s:,.0f} req/s{wrk_errors(base)}",
            ratio,
            f">= {goal}x",
            yes_no(ratio >= goal),
        )

    return make


def list_row(goal: float | None) -> RowMaker:
    """Time per LIST (1/throughput: the server builds one at a time) and MB/s; the ratio is of
    times, so the goal reads "at most ``goal`` times the time of joining cached bytes"."""

    def make(label: str, ours: WrkResult, base: WrkResult) -> Row:
        if not (ours.requests_per_s and base.requests_per_s):
            raise RuntimeError(f"{label}: no request completed (ours {ours}, baseline {base})")
        ours_ms, base_ms = 1000 / ours.requests_per_s, 1000 / base.requests_per_s
        ratio = ours_ms / base_ms
        return Row(
            label,
            f"{ours_ms:,.1f} ms/LIST, {ours.bytes_per_s / 1e6:,.0f} MB/s{wrk_errors(ours)}",
            f"{base_ms:,.1f} ms/LIST, {base.bytes_per_s / 1e6:,.0f} MB/s{wrk_errors(base)}",
            ratio,
            f"<= {goal}x (time)" if goal else "(time)",
            yes_no(ratio <= goal) if goal else "",
        )

    return make


def wrk_errors(result: WrkResult) -> str:
    return f" ({result.errors})" if result.errors else ""


def yes_no(ok: bool) -> str:
    return "yes" if ok else "NO"


# output


def machine() -> str:
    versions = ", ".join(
        f"{name} {version(name)}"
        for name in ("uvicorn", "starlette", "fastapi", "pydantic", "h11", "aiohttp")
    )
    wrk = wrk_path()
    wrk_version = (
        subprocess.run([wrk, "-v"], capture_output=True, text=True).stdout.split("[")[0] if wrk else ""
    )
    return (
        f"machine: {os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), {platform.platform()}\n"
        f"python {platform.python_version()}; {versions}; {wrk_version.strip() or 'wrk missing'}\n"
    )


def version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "-"


def print_table(rows: list[Row]) -> None:
    header = ("scenario", "figure", "baseline", "ratio", "goal", "met?")
    cells = [header] + [
        (r.scenario, r.figure, r.baseline, "" if r.ratio is None else f"{r.ratio:.2f}x", r.goal, r.met)
        for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    print()
    for i, row in enumerate(cells):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))
