"""Container init: the first process of every ``process``-runtime container (like ``runc init``).

Run as ``python -I namespaces.py <spec-fd> <status-fd>`` (standard library only). It reads a
JSON spec from ``spec-fd``, builds the container's namespaces and root, and ``execve``s the
container's argv with exactly its env, as the container's user. ``status-fd`` is
close-on-exec: a successful exec closes it with nothing written but, when the container has
its own PID namespace, a first line ``pid <N>`` (the host pid of the container's PID 1,
whose ``/proc/<N>/ns/*`` are the container's namespaces, for ``nsexec``). Otherwise the
reason (``exec: "nosuch": executable file not found in $PATH``) is written to it and the init
exits 128, which the runtime reports as a ``StartError``.

The work is done by its sibling modules (standard library only, like this one):
``containerinit`` (namespaces, the command's exec as its user, PID 1 and the pod's pause),
``rootfs`` (``RootBuilder``: the container's root) and ``syscalls`` (the Linux calls Python does
not wrap, and mount helpers).
"""

from __future__ import annotations

import json
import os
import sys

if __name__ == "__main__" and not __package__:
    # Run by path with -I: neither the script's directory nor the checkout is on sys.path, so
    # the checkout holding this file (wherever it lives, /tmp included) is put first, for the
    # siblings below to be this checkout's.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from nodeagent.runtime.containerinit import probe, report, run_container, run_pause


def main() -> None:
    if sys.argv[1] == "--probe":
        print(json.dumps(probe(sys.argv[2] == "1")))
        return
    spec_fd, status_fd = int(sys.argv[1]), int(sys.argv[2])
    os.set_inheritable(status_fd, False)
    with os.fdopen(spec_fd, "rb") as f:
        spec = json.loads(f.read())
    try:
        if spec.get("pause"):
            run_pause(spec, status_fd)
        run_container(spec, status_fd)
    except (OSError, ValueError) as err:
        report(status_fd, err)
        os._exit(128)


if __name__ == "__main__":
    main()
