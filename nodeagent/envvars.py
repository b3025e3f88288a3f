"""A container's environment, as upstream's kubelet ``makeEnvironmentVariables`` builds it.

Order of evaluation (upstream's): ``envFrom`` sources first (configMapRef, secretRef, each key
with ``prefix``; keys that are not valid variable names are skipped and reported), then
``env`` in declaration order, each either a ``value`` with ``$(VAR)`` references expanded
against the variables so far and the service variables (``$$`` escapes, unknown references
stay as written) or a ``valueFrom`` (configMapKeyRef, secretKeyRef, fieldRef,
resourceFieldRef), then the service variables not already set (``service_env``).

Upstream returns the variables in map order; here the order is deterministic: first
definition position, later definitions of the same name replace the value.

Services are passed in (``services``: any iterable of Service objects, such as an informer's
cache; the pod's namespace and ``default`` are enough) so that thousands of pods do not list
them; when ``None`` they are listed through the client. ConfigMaps and Secrets are read with
``client`` (wrap it with a cache if needed).

Errors are ``CreateContainerConfigError`` with upstream's message: the container then waits
with that reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from nodeagent.fieldpath import (
    FieldPathError,
    container_resource_value,
    defaulted_limits,
    pod_field_value,
)
from nodeagent.runtime.interface import RuntimeError_
from nodeagent.serviceenv import list_services, service_env
from nodeagent.sources import SourceNotFoundError, bytes_to_env, get_config_map, get_secret, secret_data

__all__ = [
    "CreateContainerConfigError",
    "SourceNotFoundError",
    "expand",
    "get_config_map",
    "get_secret",
    "make_environment_variables",
    "mapping_for",
    "service_env",
]

_ENV_VAR_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")


class CreateContainerConfigError(RuntimeError_):
    """The container's configuration cannot be generated (upstream's ``ErrCreateContainerConfig``)."""

    reason = "CreateContainerConfigError"


def is_env_var_name(name: str) -> bool:
    """Upstream's ``IsEnvVarName``."""
    return bool(_ENV_VAR_NAME.match(name))


def mapping_for(*contexts: Mapping[str, str]) -> Callable[[str], str]:
    """Upstream's ``MappingFuncFor``: the first context that has the name; else ``$(name)``."""

    def mapping(name: str) -> str:
        for context in contexts:
            if name in context:
                return context[name]
        return f"$({name})"

    return mapping


def expand(text: str, mapping: Callable[[str], str]) -> str:
    """Upstream's ``expansion.Expand``: ``$(VAR)`` is replaced by ``mapping(VAR)``, ``$$`` is
    ``$``, and anything else (``$x``, an unclosed ``$(``) is kept as written."""
    out: list[str] = []
    checkpoint, cursor = 0, 0
    while cursor < len(text):
        if text[cursor] == "$" and cursor + 1 < len(text):
            out.append(text[checkpoint:cursor])
            following = text[cursor + 1]
            if following == "$":
                out.append("$")
            elif following == "(" and (close := text.find(")", cursor + 2)) >= 0:
                out.append(mapping(text[cursor + 2 : close]))
                cursor = close - 1
            else:
                out.append("$" + following)
            cursor += 1
            checkpoint = cursor + 1
        cursor += 1
    return "".join(out) + text[checkpoint:]


class _Sources:
    """The ConfigMaps and Secrets of one call, each read once (upstream's per-call maps)."""

    def __init__(self, client: Client, namespace: str) -> None:
        self._client, self._namespace = client, namespace
        self._config_maps: dict[str, Object] = {}
        self._secrets: dict[str, dict[str, bytes]] = {}

    async def config_map(self, name: str, optional: bool) -> dict[str, str] | None:
        """The ConfigMap's data; None when it is missing and optional."""
        if name not in self._config_maps:
            try:
                self._config_maps[name] = await get_config_map(self._client, self._namespace, name)
            except SourceNotFoundError as err:
                if optional:
                    return None
                raise CreateContainerConfigError(str(err)) from err
            except ApiError as err:
                raise CreateContainerConfigError(str(err)) from err
        return dict(self._config_maps[name].get("data") or {})

    async def secret(self, name: str, optional: bool) -> dict[str, bytes] | None:
        """The Secret's decoded data; None when it is missing and optional."""
        if name not in self._secrets:
            try:
                self._secrets[name] = secret_data(await get_secret(self._client, self._namespace, name))
            except SourceNotFoundError as err:
                if optional:
                    return None
                raise CreateContainerConfigError(str(err)) from err
            except ApiError as err:
                raise CreateContainerConfigError(str(err)) from err
        return self._secrets[name]


async def _env_from(
    sources: _Sources, container: Mapping[str, Any], namespace: str, warnings: list[str] | None
) -> dict[str, str]:
    env: dict[str, str] = {}
    for env_from in container.get("envFrom") or []:
        prefix = str(env_from.get("prefix") or "")
        if ref := env_from.get("configMapRef"):
            kind, data = "configMap", await sources.config_map(ref["name"], bool(ref.get("optional")))
            values = data
        elif ref := env_from.get("secretRef"):
            kind, secret = "secret", await sources.secret(ref["name"], bool(ref.get("optional")))
            values = None if secret is None else {k: bytes_to_env(v) for k, v in secret.items()}
        else:
            continue
        invalid = []
        for key, value in (values or {}).items():
            if not is_env_var_name(prefix + key):
                invalid.append(prefix + key)
                continue
            env[prefix + key] = value
        if invalid and warnings is not None:
            warnings.append(
                f"Keys [{', '.join(sorted(invalid))}] from the EnvFrom {kind} {namespace}/{ref['name']} "
                "were skipped since they are considered invalid environment variable names."
            )
    return env


async def _value_from(
    sources: _Sources,
    value_from: Mapping[str, Any],
    pod: Mapping[str, Any],
    container: Mapping[str, Any],
    **ctx: Any,
) -> str | None:
    """One ``valueFrom``; None means "skip the variable" (an optional source that is missing)."""
    namespace = pod["metadata"].get("namespace", "default")
    try:
        if field_ref := value_from.get("fieldRef"):
            return pod_field_value(pod, field_ref, pod_ips=ctx["pod_ips"], host_ips=ctx["host_ips"])
        if resource_ref := value_from.get("resourceFieldRef"):
            return container_resource_value(resource_ref, defaulted_limits(container, ctx["allocatable"]))
    except FieldPathError as err:
        raise CreateContainerConfigError(str(err)) from err
    if ref := value_from.get("configMapKeyRef"):
        optional = bool(ref.get("optional"))
        data = await sources.config_map(ref["name"], optional)
        if data is not None and ref["key"] in data:
            return data[ref["key"]]
        if optional:
            return None
        raise CreateContainerConfigError(
            f"couldn't find key {ref['key']} in ConfigMap {namespace}/{ref['name']}"
        )
    if ref := value_from.get("secretKeyRef"):
        optional = bool(ref.get("optional"))
        secret = await sources.secret(ref["name"], optional)
        if secret is not None and ref["key"] in secret:
            return bytes_to_env(secret[ref["key"]])
        if optional:
            return None
        raise CreateContainerConfigError(
            f"couldn't find key {ref['key']} in Secret {namespace}/{ref['name']}"
        )
    return ""


async def make_environment_variables(
    client: Client,
    pod: Mapping[str, Any],
    container: Mapping[str, Any],
    *,
    pod_ip: str,
    host_ip: str,
    node_allocatable: Mapping[str, str],
    pod_ips: Sequence[str] = (),
    host_ips: Sequence[str] = (),
    services: Iterable[Mapping[str, Any]] | None = None,
    warnings: list[str] | None = None,
) -> list[tuple[str, str]]:
    """The container's environment (see the module docstring for the order and the rules).

    ``pod_ips``/``host_ips`` default to ``[pod_ip]``/``[host_ip]``; ``node_allocatable`` (e.g.
    ``{"cpu": "8", "memory": "32Gi"}``) stands in for unset limits in ``resourceFieldRef``;
    ``warnings`` collects the ``InvalidEnvironmentVariableNames`` event messages for skipped
    ``envFrom`` keys. Raises ``CreateContainerConfigError``.
    """
    namespace = pod["metadata"].get("namespace", "default")
    spec = pod.get("spec") or {}
    if services is None:
        try:
            services = await list_services(client, namespace)
        except ApiError as err:
            raise CreateContainerConfigError("failed to list services when setting up env vars") from err
    services_env = service_env(services, namespace, spec.get("enableServiceLinks") is not False)
    sources = _Sources(client, namespace)
    env = await _env_from(sources, container, namespace, warnings)
    mapping = mapping_for(env, services_env)  # env grows below: later values see earlier ones
    ctx = {
        "pod_ips": list(pod_ips) or ([pod_ip] if pod_ip else []),
        "host_ips": list(host_ips) or ([host_ip] if host_ip else []),
        "allocatable": node_allocatable,
    }
    for var in container.get("env") or []:
        value: str | None = str(var.get("value") or "")
        if value:
            value = expand(str(value), mapping)
        elif var.get("valueFrom"):
            value = await _value_from(sources, var["valueFrom"], pod, container, **ctx)
            if value is None:
                continue
        env[var["name"]] = str(value)
    return [*env.items(), *((k, v) for k, v in services_env.items() if k not in env)]
