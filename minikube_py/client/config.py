"""How to reach an apiserver: ``ClientConfig``, built by hand or read from a kubeconfig.

``load_kubeconfig`` reads the current (or a named) context the way client-go does: the
context's cluster gives ``server``, ``certificate-authority`` or ``certificate-authority-data``
and ``insecure-skip-tls-verify``; its user gives ``client-certificate(-data)``,
``client-key(-data)``, ``token`` or ``tokenFile``. Relative file paths are resolved against
the kubeconfig's directory. Bad input raises ``KubeconfigError`` with a one-line message.

``ClientConfig.ssl_context`` builds the TLS context; inline PEM data is never written to disk
where the platform allows (a memfd on Linux; elsewhere a private temp file removed as soon as
it is loaded).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import importlib.metadata
import os
import platform
import ssl
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from minikube_py.kubeconfig import KubeconfigError

__all__ = ["DEFAULT_BURST", "DEFAULT_QPS", "ClientConfig", "KubeconfigError", "load_kubeconfig"]

# Client-side rate limit. Upstream's defaults are 5 qps / burst 10 (client-go's rest.Config)
# and 20 / 30 for kube-controller-manager; one process here runs every controller over one
# client, so it gets more room.
DEFAULT_QPS = 50.0
DEFAULT_BURST = 100
DEFAULT_TIMEOUT = 30.0


def default_user_agent() -> str:
    """``minikube-py/<version> (<os>/<arch>)``, shaped like client-go's default."""
    try:
        version = importlib.metadata.version("minikube-py")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return f"minikube-py/{version} ({platform.system().lower()}/{platform.machine().lower()})"


@dataclass(frozen=True)
class ClientConfig:
    """Where the apiserver is and how to authenticate to it.

    The CA comes from ``ca_file`` or ``ca_data`` (PEM); without either the system trust store
    is used. A client certificate is ``cert_file``/``cert_data`` with ``key_file``/``key_data``
    (PEM). ``token`` is sent as ``Authorization: Bearer``. ``qps <= 0`` disables the client-side
    rate limiter. ``timeout`` (seconds) bounds connecting and every request except a watch's
    stream, which the server ends (``timeoutSeconds``).
    """

    server: str
    ca_file: Path | None = None
    ca_data: bytes | None = field(default=None, repr=False)
    cert_file: Path | None = None
    cert_data: bytes | None = field(default=None, repr=False)
    key_file: Path | None = None
    key_data: bytes | None = field(default=None, repr=False)
    token: str | None = field(default=None, repr=False)
    insecure_skip_tls_verify: bool = False
    qps: float = DEFAULT_QPS
    burst: int = DEFAULT_BURST
    user_agent: str = field(default_factory=default_user_agent)
    timeout: float = DEFAULT_TIMEOUT

    def ca_bundle(self) -> bytes | None:
        """The PEM bundle of the CA this config trusts (``ca_data``, else the contents of
        ``ca_file``, the order ``ssl_context`` uses); None when the system trust store is used.
        Raises ``KubeconfigError`` when ``ca_file`` cannot be read."""
        if self.ca_data is not None:
            return self.ca_data
        if self.ca_file is None:
            return None
        try:
            return self.ca_file.read_bytes()
        except OSError as err:
            raise KubeconfigError(f"cannot load the certificate authority: {_reason(err)}") from err

    def ssl_context(self) -> ssl.SSLContext:
        """The client TLS context (CA, client certificate). Raises ``KubeconfigError``."""
        context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
        if self.insecure_skip_tls_verify:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        try:
            if self.ca_data is not None:
                context.load_verify_locations(cadata=self.ca_data.decode("ascii"))
            elif self.ca_file is not None:
                context.load_verify_locations(cafile=self.ca_file)
        except (OSError, ssl.SSLError, UnicodeDecodeError) as err:
            raise KubeconfigError(f"cannot load the certificate authority: {_reason(err)}") from err
        has_cert = self.cert_file is not None or self.cert_data is not None
        has_key = self.key_file is not None or self.key_data is not None
        if has_cert != has_key:
            raise KubeconfigError("a client certificate needs both a certificate and a key")
        if has_cert:
            try:
                with (
                    _pem_path(self.cert_file, self.cert_data) as cert,
                    _pem_path(self.key_file, self.key_data) as key,
                ):
                    context.load_cert_chain(cert, key)
            except (OSError, ssl.SSLError) as err:
                raise KubeconfigError(f"cannot load the client certificate and key: {_reason(err)}") from err
        return context


def load_kubeconfig(path: Path | str, context: str | None = None) -> ClientConfig:
    """The ``ClientConfig`` of ``context`` (default: ``current-context``) in the kubeconfig at
    ``path``. Raises ``KubeconfigError`` naming the file and what is wrong."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise KubeconfigError(f"{path}: {_reason(err)}") from err
    try:
        return _config(_document(raw), context, path.resolve().parent)
    except KubeconfigError as err:
        raise KubeconfigError(f"{path}: {err}") from err


def _document(raw: bytes) -> Mapping[str, Any]:
    try:
        loaded = yaml.safe_load(raw)
    except yaml.MarkedYAMLError as err:
        where = f" at line {err.problem_mark.line + 1}" if err.problem_mark else ""
        raise KubeconfigError(f"invalid YAML{where}: {err.problem}") from err
    except yaml.YAMLError as err:
        raise KubeconfigError(f"invalid YAML: {' '.join(str(err).split())}") from err
    if not isinstance(loaded, dict):
        raise KubeconfigError("not a kubeconfig: the document is not a mapping")
    return loaded


def _config(doc: Mapping[str, Any], context: str | None, base: Path) -> ClientConfig:
    name = context or doc.get("current-context") or ""
    if not name:
        raise KubeconfigError("no context given and current-context is not set")
    ctx = _named(doc, "contexts", "context", name, f'context "{name}" not found')
    cluster_name = str(ctx.get("cluster") or "")
    cluster = _named(
        doc, "clusters", "cluster", cluster_name, f'cluster "{cluster_name}" of context "{name}" not found'
    )
    user_name = str(ctx.get("user") or "")
    user: Mapping[str, Any] = {}
    if user_name:
        user = _named(doc, "users", "user", user_name, f'user "{user_name}" of context "{name}" not found')
    server = cluster.get("server")
    if not isinstance(server, str) or not server:
        raise KubeconfigError(f'cluster "{cluster_name}" has no server')
    token = _str(user, "token")
    token_file = _path(user, "tokenFile", base)
    if not token and token_file is not None:
        try:
            token = token_file.read_text().strip()
        except OSError as err:
            raise KubeconfigError(f"tokenFile {token_file}: {_reason(err)}") from err
    return ClientConfig(
        server=server.rstrip("/"),
        ca_file=_path(cluster, "certificate-authority", base),
        ca_data=_data(cluster, "certificate-authority-data"),
        cert_file=_path(user, "client-certificate", base),
        cert_data=_data(user, "client-certificate-data"),
        key_file=_path(user, "client-key", base),
        key_data=_data(user, "client-key-data"),
        token=token or None,
        insecure_skip_tls_verify=bool(cluster.get("insecure-skip-tls-verify", False)),
    )


def _named(doc: Mapping[str, Any], section: str, key: str, name: str, missing: str) -> Mapping[str, Any]:
    """The ``key`` mapping of the entry ``name`` in the list ``section``."""
    entries = doc.get(section) or []
    if not isinstance(entries, list):
        raise KubeconfigError(f"not a kubeconfig: {section} is not a list")
    for entry in entries:
        if isinstance(entry, dict) and entry.get("name") == name:
            value = entry.get(key) or {}
            if not isinstance(value, dict):
                raise KubeconfigError(f'{key} "{name}" is not a mapping')
            return value
    raise KubeconfigError(missing)


def _str(entry: Mapping[str, Any], key: str) -> str:
    value = entry.get(key) or ""
    if not isinstance(value, str):
        raise KubeconfigError(f"{key} is not a string")
    return value


def _path(entry: Mapping[str, Any], key: str, base: Path) -> Path | None:
    value = _str(entry, key)
    return base / value if value else None  # an absolute value replaces base


def _data(entry: Mapping[str, Any], key: str) -> bytes | None:
    value = _str(entry, key)
    if not value:
        return None
    try:
        return base64.b64decode(value, validate=True)
    except binascii.Error as err:
        raise KubeconfigError(f"{key} is not valid base64: {err}") from err


@contextlib.contextmanager
def _pem_path(file: Path | None, data: bytes | None) -> Iterator[str]:
    """A path ``ssl`` can load: ``file``, or ``data`` in a memfd (Linux) or, failing that, in a
    private temp file that is removed on exit."""
    if data is None:
        assert file is not None
        yield str(file)
        return
    if hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd"):
        fd = os.memfd_create("kubeconfig-pem", os.MFD_CLOEXEC)
        try:
            _write_all(fd, data)
            yield f"/proc/self/fd/{fd}"
        finally:
            os.close(fd)
        return
    fd, name = tempfile.mkstemp(prefix="kubeconfig-", suffix=".pem")  # mode 0600
    try:
        _write_all(fd, data)
        os.close(fd)
        fd = -1
        yield name
    finally:
        if fd >= 0:
            os.close(fd)
        os.unlink(name)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _reason(err: BaseException) -> str:
    if isinstance(err, ssl.SSLError) and err.reason:
        return err.reason.lower().replace("_", " ")
    if isinstance(err, OSError) and err.strerror:
        return f"{err.strerror.lower()}" + (f" ({err.filename})" if err.filename else "")
    return str(err)
