"""Kubeconfig files: write one for a client identity, and merge a context into the user's.

A ``minikube-py`` entry is a cluster, a user and a context of the same name. Certificate data
is embedded (``*-data`` fields, like kubeadm's ``admin.conf`` and kind), so an entry never
points into a data directory that may move or vanish.

``merge_kubeconfig`` follows kubectl and kind:

* The target is the file ``kubectl config set-context`` writes a new entry and the current
  context to (client-go's ``PathOptions.GetDefaultFilename``, kind's ``pathForMerge``):
  ``~/.kube/config`` when ``$KUBECONFIG`` is unset or empty; its only path; else its first
  existing file, or its last path if none exists (empty entries and duplicates dropped). Every
  file before the target is missing, so kubectl's merged view sees our entries and context.
  A symlinked target is written through the link.
* Entries of the same name are replaced as a whole (a new ``--port`` replaces the server),
  current-context is switched to the entry, and every other entry and unknown key is kept.
* It holds client-go's lock (``<file>.lock``, created exclusively) while it reads and writes,
  and writes atomically (a temp file in the same directory, fsync, rename), keeping the
  file's mode; a new file is 0600 in a directory created 0700.
* A file that cannot be read or is not a kubeconfig raises ``KubeconfigError`` and is left
  untouched.
"""

from __future__ import annotations

import base64
import contextlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from minikube_py.pki import CertKeyPair, write_file

CLUSTER_NAME = "minikube-py"
CONTEXT_NAME = "minikube-py"
ADMIN_KUBECONFIG = "admin.kubeconfig"
SECTIONS = ("clusters", "users", "contexts")


class KubeconfigError(Exception):
    """A kubeconfig cannot be read, parsed or written. The message is one line."""


def render_kubeconfig(
    *,
    server: str,
    ca_pem: bytes,
    user: str,
    cert_pem: bytes,
    key_pem: bytes,
    cluster: str = CLUSTER_NAME,
    context: str = CONTEXT_NAME,
) -> str:
    """A ``kind: Config`` document whose current context reaches ``server`` as ``user``."""
    named_cluster, named_user, named_context = entries(
        server=server,
        ca_pem=ca_pem,
        cert_pem=cert_pem,
        key_pem=key_pem,
        cluster=cluster,
        user=user,
        context=context,
    )
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [named_cluster],
        "users": [named_user],
        "contexts": [named_context],
        "current-context": context,
        "preferences": {},
    }
    return _dump(config)


def entries(
    *, server: str, ca_pem: bytes, cert_pem: bytes, key_pem: bytes, cluster: str, user: str, context: str
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The named cluster, user and context entries, with the PEM data embedded."""
    return (
        {"name": cluster, "cluster": {"server": server, "certificate-authority-data": _b64(ca_pem)}},
        {"name": user, "user": {"client-certificate-data": _b64(cert_pem), "client-key-data": _b64(key_pem)}},
        {"name": context, "context": {"cluster": cluster, "user": user}},
    )


def write_client_kubeconfig(
    path: Path, *, server: str, ca_cert: Path, client: CertKeyPair, user: str
) -> None:
    """Write (0600, atomically) a kubeconfig embedding the CA and the client pair's PEM data.

    ``user`` names the kubeconfig user entry; the identity itself is the certificate's.
    """
    content = render_kubeconfig(
        server=server,
        ca_pem=ca_cert.read_bytes(),
        user=user,
        cert_pem=client.cert.read_bytes(),
        key_pem=client.key.read_bytes(),
    )
    write_file(path, content.encode())


def default_kubeconfig_path(environ: Mapping[str, str] = os.environ) -> Path:
    """The file kubectl writes new entries and the current context to (see the module doc)."""
    paths = [Path(p) for p in dict.fromkeys(environ.get("KUBECONFIG", "").split(os.pathsep)) if p]
    if not paths:
        return Path(environ.get("HOME") or Path.home()) / ".kube" / "config"
    if len(paths) == 1:
        return paths[0]
    return next((p for p in paths if p.exists()), paths[-1])


def merge_kubeconfig(
    path: Path, *, server: str, ca_cert: Path, client: CertKeyPair, name: str = CONTEXT_NAME
) -> bool:
    """Add or replace the cluster, user and context ``name`` in ``path`` and make the context
    current. Returns False when the file already said exactly that (it is then not rewritten).

    Raises ``KubeconfigError``; the file is then unchanged.
    """
    try:
        new_entries = entries(
            server=server,
            ca_pem=ca_cert.read_bytes(),
            cert_pem=client.cert.read_bytes(),
            key_pem=client.key.read_bytes(),
            cluster=name,
            user=name,
            context=name,
        )
        path = Path(os.path.realpath(path))
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with _locked(path):
            old = path.read_bytes() if path.exists() else None
            config = _parse(old)
            for section, entry in zip(SECTIONS, new_entries, strict=True):
                config[section] = _upsert(config[section], entry)
            config["current-context"] = name
            new = _dump(config).encode()
            if new == old:
                return False
            _replace(path, new)
    except OSError as err:
        raise KubeconfigError(f"{err.filename or path}: {_reason(err)}") from err
    except KubeconfigError as err:
        raise KubeconfigError(f"{path}: {err}") from err
    return True


def _parse(data: bytes | None) -> dict[str, Any]:
    """The document as a dict with list sections; ``None`` or an empty file is a new config."""
    try:
        loaded = yaml.safe_load(data) if data else None
    except yaml.MarkedYAMLError as err:
        where = f" at line {err.problem_mark.line + 1}" if err.problem_mark else ""
        raise KubeconfigError(f"invalid YAML{where}: {err.problem}") from err
    except yaml.YAMLError as err:
        raise KubeconfigError(f"invalid YAML: {' '.join(str(err).split())}") from err
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise KubeconfigError(f"not a kubeconfig: the document is a {type(loaded).__name__}, not a mapping")
    if loaded.get("kind", "Config") != "Config":
        raise KubeconfigError(f"not a kubeconfig: kind is {loaded['kind']!r}, not 'Config'")
    config = {"apiVersion": "v1", "kind": "Config", **loaded}
    for section in SECTIONS:
        items = config.get(section) or []
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            raise KubeconfigError(f"not a kubeconfig: {section} is not a list of named entries")
        config[section] = items
    return config


def _upsert(items: list[dict[str, Any]], entry: dict[str, Any]) -> list[dict[str, Any]]:
    """``items`` with ``entry`` in place of the first of its name (appended if none); later
    duplicates, which client-go refuses to load, are dropped."""
    named = [i for i, item in enumerate(items) if item.get("name") == entry["name"]]
    if not named:
        return [*items, entry]
    return [entry if i == named[0] else item for i, item in enumerate(items) if i not in named[1:]]


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """client-go's kubeconfig lock: ``<path>.lock``, created exclusively, removed after."""
    lock = path.with_name(f"{path.name}.lock")
    try:
        os.close(os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError as err:
        raise KubeconfigError(f"locked by {lock} (remove it if no kubectl is running)") from err
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)


def _replace(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically, keeping its mode (0600 for a new file)."""
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _dump(config: Mapping[str, Any]) -> str:
    return yaml.safe_dump(dict(config), sort_keys=False, default_flow_style=False)


def _reason(err: OSError) -> str:
    return (err.strerror or str(err)).lower()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
