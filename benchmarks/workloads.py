"""The workload controllers of issue 16 at scale, each section a benchmark of its own:

    python benchmarks/workloads.py [--sections jobs,daemonset,statefulset]

- **jobs** (``job_completions.py``): 1,000 Job completions on 100 simulated nodes, bare pods
  as the baseline; goal <= 20 s end to end; pods/s and the Job controller's CPU per Job.
- **daemonset** (``daemonset_rollout.py``): a DaemonSet over 500 simulated nodes; goal
  <= 10 s until every pod is Ready; the controller's CPU per pod.
- **statefulset** (``statefulset_scale.py``): 100 OrderedReady replicas in order, Parallel as
  the baseline; seconds and the controller's CPU per pod.

Each section starts its own cluster and prints its figures as it goes; run one alone with
its own flags through its module (``python benchmarks/job_completions.py --help``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import daemonset_rollout
import job_completions
import statefulset_scale

SECTIONS: dict[str, Callable[[list[str]], object]] = {
    "jobs": job_completions.main,
    "daemonset": daemonset_rollout.main,
    "statefulset": statefulset_scale.main,
}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sections", default=",".join(SECTIONS), help="comma-separated, of: " + ", ".join(SECTIONS)
    )
    args = parser.parse_args(argv)
    names = [name for name in args.sections.split(",") if name]
    unknown = [name for name in names if name not in SECTIONS]
    if unknown:
        parser.error(f"unknown sections: {', '.join(unknown)}")
    for name in names:
        print(f"== {name}", flush=True)
        SECTIONS[name]([])  # each with its own defaults: the sizes


if __name__ == "__main__":
    main()
