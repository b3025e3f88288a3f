"""Validation of a pod spec's DNS fields with upstream's messages (``validatePodDNSConfig``,
``ValidatePodSpec``'s hostname, subdomain and hostAliases checks), as 422 causes:

- ``dnsPolicy: None`` needs a ``dnsConfig`` with at least one nameserver;
- ``dnsConfig``: at most 3 nameservers, each an IP address; at most 32 search domains and
  2048 characters (spaces included), each a DNS-1123 subdomain (a trailing dot allowed);
  every option named;
- ``hostname`` and ``subdomain``: DNS-1123 labels; ``hostAliases``: an IP each, hostnames
  DNS-1123 subdomains.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from minikube_py.api.field_errors import FieldError, invalid, required
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import is_dns1123_label, is_dns1123_subdomain

MAX_NAMESERVERS = 3
MAX_SEARCH_PATHS = 32
MAX_SEARCH_CHARS = 2048
IP_DETAIL = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"


def validate_pod_dns(spec: Object, path: str) -> list[FieldError]:
    errs = validate_dns_config(spec.get("dnsConfig"), spec.get("dnsPolicy"), f"{path}.dnsConfig")
    for key in ("hostname", "subdomain"):
        value = spec.get(key)
        if isinstance(value, str) and value:
            errs += [invalid(f"{path}.{key}", value, msg) for msg in is_dns1123_label(value)]
    return errs + _host_aliases(spec.get("hostAliases"), f"{path}.hostAliases")


def validate_dns_config(config: Any, policy: Any, path: str) -> list[FieldError]:
    if policy == "None":
        if not isinstance(config, dict):
            return [required(path, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if not config.get("nameservers"):
            return [
                required(
                    f"{path}.nameservers", "must provide at least one DNS nameserver when `dnsPolicy` is None"
                )
            ]
    if not isinstance(config, dict):
        return []
    errs: list[FieldError] = []
    nameservers = [str(n) for n in config.get("nameservers") or []]
    if len(nameservers) > MAX_NAMESERVERS:
        detail = f"must not have more than {MAX_NAMESERVERS} nameservers"
        errs.append(invalid(f"{path}.nameservers", nameservers, detail))
    errs += [
        invalid(f"{path}.nameservers[{i}]", ns, IP_DETAIL)
        for i, ns in enumerate(nameservers)
        if not _is_ip(ns)
    ]
    searches = [str(s) for s in config.get("searches") or []]
    if len(searches) > MAX_SEARCH_PATHS:
        detail = f"must not have more than {MAX_SEARCH_PATHS} search paths"
        errs.append(invalid(f"{path}.searches", searches, detail))
    if len(" ".join(searches)) > MAX_SEARCH_CHARS:
        detail = (
            f"must not have more than {MAX_SEARCH_CHARS} characters (including spaces) in the search list"
        )
        errs.append(invalid(f"{path}.searches", searches, detail))
    for i, search in enumerate(searches):
        trimmed = search.removesuffix(".")  # a trailing dot is fine
        errs += [invalid(f"{path}.searches[{i}]", trimmed, msg) for msg in is_dns1123_subdomain(trimmed)]
    for i, option in enumerate(config.get("options") or []):
        if not isinstance(option, dict) or not option.get("name"):
            errs.append(required(f"{path}.options[{i}]", "must not be empty"))
    return errs


def _host_aliases(aliases: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, alias in enumerate(aliases if isinstance(aliases, list) else []):
        if not isinstance(alias, dict):
            continue
        ip = str(alias.get("ip") or "")
        if not _is_ip(ip):
            errs.append(invalid(f"{path}[{i}].ip", ip, IP_DETAIL))
        for j, hostname in enumerate(alias.get("hostnames") or []):
            errs += [
                invalid(f"{path}[{i}].hostnames[{j}]", hostname, msg)
                for msg in is_dns1123_subdomain(str(hostname))
            ]
    return errs


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
