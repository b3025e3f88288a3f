"""Ingress and IngressClass validation with upstream's messages
(``pkg/apis/networking/validation``): rules and their hosts (DNS names, ``*.`` wildcards, never
IP addresses), HTTP paths (``pathType`` required; ``Exact``/``Prefix`` paths absolute and
without ``//``, ``/./``, ``/../``, ``%2f``), backends (a Service with a port name or number, or
a resource, exactly one), TLS hosts and secret names, and an IngressClass's domain-prefixed
``spec.controller`` and parameters."""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from minikube_py.api.field_errors import FieldError, forbidden, invalid, not_supported, required, too_long
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import (
    DNS1123_SUBDOMAIN_MAX_LENGTH,
    is_dns1035_label,
    is_dns1123_subdomain,
    max_len_error,
    regex_error,
)

PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")
INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"
MAX_CONTROLLER_LENGTH = 250
PARAMETER_SCOPES = ("Cluster", "Namespace")

_INVALID_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")
_INVALID_SUFFIXES = ("/..", "/.")
_WILDCARD_FMT = "\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_WILDCARD_MSG = (
    "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which "
    "must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character"
)
_HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"
_PORT_NAME_CHARSET = re.compile("[-a-z0-9]+")


def is_wildcard_dns1123_subdomain(value: str) -> list[str]:
    """Upstream's ``IsWildcardDNS1123Subdomain`` (``*.example.com``)."""
    errs = []
    if len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if re.fullmatch(_WILDCARD_FMT, value) is None:
        errs.append(regex_error(_WILDCARD_MSG, _WILDCARD_FMT, "*.example.com"))
    return errs


def is_valid_port_name(port: str) -> list[str]:
    """Upstream's ``IsValidPortName`` (an IANA_SVC_NAME)."""
    errs = []
    if len(port) > 15:
        errs.append(max_len_error(15))
    if _PORT_NAME_CHARSET.fullmatch(port) is None:
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if re.search("[a-z]", port) is None:
        errs.append("must contain at least one letter (a-z)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _host_errors(host: str, at: str) -> list[FieldError]:
    messages = is_wildcard_dns1123_subdomain(host) if "*" in host else is_dns1123_subdomain(host)
    return [invalid(at, host, msg) for msg in messages]


def validate_backend(backend: Any, at: str) -> list[FieldError]:
    """``validateIngressBackend``: a Service (name, and a port name or number) or a resource."""
    backend = backend if isinstance(backend, dict) else {}
    service, resource = backend.get("service"), backend.get("resource")
    if service is not None and resource is not None:
        return [invalid(at, "", "cannot set both resource and service backends")]
    if resource is not None:
        return _validate_resource_ref(resource, f"{at}.resource")
    if service is None:
        return [invalid(at, "", "resource or service backend is required")]
    return _validate_service_backend(service, at)


def _validate_service_backend(service: Object, at: str) -> list[FieldError]:
    errs: list[FieldError] = []
    name = str(service.get("name") or "")
    if not name:
        errs.append(required(f"{at}.service.name"))
    else:
        errs += [invalid(f"{at}.service.name", name, msg) for msg in is_dns1035_label(name)]
    port = service.get("port") or {}
    port_name, number = str(port.get("name") or ""), port.get("number") or 0
    if port_name and number:
        errs.append(invalid(at, "", "cannot set both port name & port number"))
    elif port_name:
        errs += [invalid(f"{at}.service.port.name", port_name, m) for m in is_valid_port_name(port_name)]
    elif number:
        if not isinstance(number, int) or not 1 <= number <= 65535:
            errs.append(
                invalid(f"{at}.service.port.number", number, "must be between 1 and 65535, inclusive")
            )
    else:
        errs.append(required(at, "port name or number is required"))
    return errs


def _validate_resource_ref(ref: Object, at: str) -> list[FieldError]:
    errs: list[FieldError] = []
    group = ref.get("apiGroup")
    if group:
        errs += [invalid(f"{at}.apiGroup", group, msg) for msg in is_dns1123_subdomain(str(group))]
    if not ref.get("kind"):
        errs.append(required(f"{at}.kind"))
    if not ref.get("name"):
        errs.append(required(f"{at}.name"))
    return errs


def validate_path(path: Object, at: str) -> list[FieldError]:
    """``validateHTTPIngressPath``: the path type decides what an acceptable path is."""
    path_type, value = path.get("pathType"), str(path.get("path") or "")
    if path_type is None:
        return [required(f"{at}.pathType", "pathType must be specified")]
    errs: list[FieldError] = []
    if path_type in ("Exact", "Prefix"):
        if not value.startswith("/"):
            errs.append(invalid(f"{at}.path", value, "must be an absolute path"))
        errs += [
            invalid(f"{at}.path", value, f"must not contain '{s}'") for s in _INVALID_SEQUENCES if s in value
        ]
        errs += [
            invalid(f"{at}.path", value, f"cannot end with '{s}'")
            for s in _INVALID_SUFFIXES
            if value.endswith(s)
        ]
    elif path_type == "ImplementationSpecific":
        if value and not value.startswith("/"):
            errs.append(invalid(f"{at}.path", value, "must be an absolute path"))
    else:
        errs.append(not_supported(f"{at}.pathType", path_type, PATH_TYPES))
    return errs + validate_backend(path.get("backend"), f"{at}.backend")


def _validate_rule(rule: Object, at: str) -> list[FieldError]:
    errs: list[FieldError] = []
    host = str(rule.get("host") or "")
    if host:
        if _is_ip(host):
            errs.append(invalid(f"{at}.host", host, "must be a DNS name, not an IP address"))
        errs += _host_errors(host, f"{at}.host")
    http = rule.get("http")
    if http is not None:
        paths = http.get("paths") or []
        if not paths:
            errs.append(required(f"{at}.http.paths"))
        for i, path in enumerate(paths):
            errs += validate_path(path, f"{at}.http.paths[{i}]")
    return errs


def _validate_tls(tls: list[Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, entry in enumerate(tls):
        for j, host in enumerate(entry.get("hosts") or []):
            errs += _host_errors(str(host), f"spec.tls[{i}].hosts[{j}]")
        secret = str(entry.get("secretName") or "")
        if secret:
            errs += [invalid(f"spec.tls[{i}].secretName", secret, m) for m in is_dns1123_subdomain(secret)]
    return errs


def validate_ingress(obj: Object) -> list[FieldError]:
    """``ValidateIngressCreate`` (minus object meta, which the store validates)."""
    spec = obj.get("spec") or {}
    errs: list[FieldError] = []
    rules = spec.get("rules") or []
    if spec.get("defaultBackend") is not None:
        errs += validate_backend(spec["defaultBackend"], "spec.defaultBackend")
    elif not rules:
        errs.append(
            invalid("spec", spec.get("rules"), "either `defaultBackend` or `rules` must be specified")
        )
    for i, rule in enumerate(rules):
        errs += _validate_rule(rule, f"spec.rules[{i}]")
    errs += _validate_tls(spec.get("tls") or [])
    class_name = spec.get("ingressClassName")
    if class_name is not None:
        errs += [
            invalid("spec.ingressClassName", class_name, m) for m in is_dns1123_subdomain(str(class_name))
        ]
    annotation = ((obj.get("metadata") or {}).get("annotations") or {}).get(INGRESS_CLASS_ANNOTATION)
    if annotation is not None and class_name is not None and annotation != class_name:
        path = f"annotations.{INGRESS_CLASS_ANNOTATION}"
        errs.append(invalid(path, annotation, "must match `ingressClassName` when both are specified"))
    return errs


def is_domain_prefixed_path(value: str, at: str) -> list[FieldError]:
    """Upstream's ``IsDomainPrefixedPath`` (``acme.io/foo``)."""
    if not value:
        return [required(at)]
    host, sep, path = value.partition("/")
    if not sep or not host or not path:
        return [invalid(at, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    errs = [invalid(at, host, msg) for msg in is_dns1123_subdomain(host)]
    if re.fullmatch(_HTTP_PATH_FMT, path) is None:
        errs.append(invalid(at, path, regex_error("must be a valid path", _HTTP_PATH_FMT)))
    return errs


def _validate_parameters(params: Object) -> list[FieldError]:
    at = "spec.parameters"
    errs = _validate_resource_ref(params, at)
    scope, namespace = params.get("scope"), params.get("namespace")
    if scope is None:
        errs.append(required(f"{at}.scope"))
    elif scope not in PARAMETER_SCOPES:
        errs.append(not_supported(f"{at}.scope", scope, PARAMETER_SCOPES))
    elif scope == "Namespace" and not namespace:
        errs.append(required(f"{at}.namespace", "`parameters.scope` is set to 'Namespace'"))
    elif scope == "Cluster" and namespace is not None:
        errs.append(forbidden(f"{at}.namespace", "`parameters.scope` is set to 'Cluster'"))
    return errs


def validate_ingress_class(obj: Object) -> list[FieldError]:
    """``validateIngressClassSpec``: a domain-prefixed controller name, valid parameters."""
    spec = obj.get("spec") or {}
    controller = str(spec.get("controller") or "")
    errs: list[FieldError] = []
    if len(controller) > MAX_CONTROLLER_LENGTH:
        errs.append(too_long("spec.controller", MAX_CONTROLLER_LENGTH))
    errs += is_domain_prefixed_path(controller, "spec.controller")
    if spec.get("parameters") is not None:
        errs += _validate_parameters(spec["parameters"])
    return errs
