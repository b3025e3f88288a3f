#!/usr/bin/env bash
# The whole test suite, from a fresh machine with Python >= 3.11:
#   1. a virtualenv in .venv with the project and its test extras,
#   2. etcd from Debian's packages (etcd-server) when it is not on PATH (the etcd backend's
#      conformance tests run against a real etcd and never skip),
#   3. lint (ruff), types (mypy --strict), then pytest on both cores.
# Extra arguments go to pytest, e.g. `bash tests/run.sh -k sqlite`.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'

if ! command -v etcd >/dev/null 2>&1; then
    echo "tests/run.sh: installing etcd (apt package etcd-server)"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq etcd-server etcd-client >/dev/null
    # On a systemd host the package also starts a default etcd; the tests use their own ports.
fi

# The process runtime runs containers through util-linux (nsenter, setpriv, setsid, unshare);
# the isolation tests look at a container's processes with procps' ps.
missing=""
for tool in nsenter:util-linux setpriv:util-linux setsid:util-linux ps:procps; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing="$missing ${tool#*:}"
done
if [ -n "$missing" ]; then
    echo "tests/run.sh: installing$missing"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi

.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/pytest -n "${TEST_WORKERS:-2}" "$@"
