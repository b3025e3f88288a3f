"""Upstream's validation of webhook configurations (``pkg/apis/admissionregistration/validation``):
every webhook has a fully qualified unique name, valid rules and policies, ``sideEffects``
(``None``/``NoneOnDryRun`` on create, and on update while every old webhook had those),
``timeoutSeconds`` in 1-30, valid selectors, exactly one of ``url`` (https, no user, query or
fragment) and ``service``, and ``admissionReviewVersions`` naming ``v1`` or ``v1beta1``.
``matchConditions`` are checked for a name and an expression only (their CEL is never compiled
nor evaluated here)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from minikube_py.api.field_errors import FieldError, forbidden, invalid, not_supported, required
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import (
    is_dns1035_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    validate_labels,
)

ACCEPTED_REVIEW_VERSIONS = ("v1", "v1beta1")
NO_SIDE_EFFECTS = ("None", "NoneOnDryRun")
SIDE_EFFECTS = ("None", "NoneOnDryRun", "Some", "Unknown")
OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
SCOPES = ("*", "Cluster", "Namespaced")
URL_FORM = "; desired format: https://host[/path]"


def _wildcard_mixed(values: list[Any], path: str, what: str) -> list[FieldError]:
    if len(values) > 1 and "*" in values:
        return [invalid(path, values, f"if '*' is present, must not specify other {what}")]
    return []


def validate_resources(resources: list[Any], path: str) -> list[FieldError]:
    """``x``, ``x/y``, ``x/*``, ``*/y``, ``*`` and ``*/*`` without overlapping wildcards."""
    errs = [] if resources else [required(path)]
    wild_sub: set[str] = set()
    wild_res: set[str] = set()
    plain = single = False
    for i, res_sub in enumerate(resources):
        if not res_sub:
            errs.append(required(f"{path}[{i}]"))
            continue
        single = single or res_sub == "*"
        if "/" not in res_sub:
            plain = res_sub != "*"
            continue
        res, sub = res_sub.split("/", 1)
        if res in wild_sub:
            detail = f"if '{res}/*' is present, must not specify {res_sub}"
            errs.append(invalid(f"{path}[{i}]", res_sub, detail))
        if sub in wild_res:
            detail = f"if '*/{sub}' is present, must not specify {res_sub}"
            errs.append(invalid(f"{path}[{i}]", res_sub, detail))
        if sub == "*":
            wild_sub.add(res)
        if res == "*":
            wild_res.add(sub)
    if len(resources) > 1 and "*/*" in resources:
        errs.append(invalid(path, resources, "if '*/*' is present, must not specify other resources"))
    if single and plain:
        message = "if '*' is present, must not specify other resources without subresources"
        errs.append(invalid(path, resources, message))
    return errs


def validate_rule(rule: Object, path: str) -> list[FieldError]:
    operations = rule.get("operations") or []
    errs = [] if operations else [required(f"{path}.operations")]
    errs += _wildcard_mixed(operations, f"{path}.operations", "operations")
    errs += [
        not_supported(f"{path}.operations[{i}]", op, OPERATIONS)
        for i, op in enumerate(operations)
        if op not in OPERATIONS
    ]
    groups, versions = rule.get("apiGroups") or [], rule.get("apiVersions") or []
    errs += [] if groups else [required(f"{path}.apiGroups")]
    errs += _wildcard_mixed(groups, f"{path}.apiGroups", "API groups")
    errs += [] if versions else [required(f"{path}.apiVersions")]
    errs += _wildcard_mixed(versions, f"{path}.apiVersions", "API versions")
    errs += [required(f"{path}.apiVersions[{i}]") for i, v in enumerate(versions) if not v]
    errs += validate_resources(rule.get("resources") or [], f"{path}.resources")
    if rule.get("scope") is not None and rule["scope"] not in SCOPES:
        errs.append(not_supported(f"{path}.scope", rule["scope"], SCOPES))
    return errs


def validate_label_selector(selector: Any, path: str) -> list[FieldError]:
    """Upstream's ``ValidateLabelSelector``: label keys and values, operators and their values."""
    if not isinstance(selector, dict):
        return []
    errs = validate_labels(selector.get("matchLabels") or {}, f"{path}.matchLabels")
    for i, expr in enumerate(selector.get("matchExpressions") or []):
        at, op, values = f"{path}.matchExpressions[{i}]", expr.get("operator"), expr.get("values") or []
        if op in ("In", "NotIn") and not values:
            errs.append(required(f"{at}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist") and values:
            detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
            errs.append(forbidden(f"{at}.values", detail))
        elif op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            errs.append(invalid(f"{at}.operator", op, "not a valid selector operator"))
        errs += [invalid(f"{at}.key", expr.get("key", ""), m) for m in is_qualified_name(expr.get("key", ""))]
        for j, value in enumerate(values):
            errs += [invalid(f"{at}.values[{j}]", value, m) for m in is_valid_label_value(value)]
    return errs


def validate_url(url: str, path: str) -> list[FieldError]:
    try:
        parts = urlsplit(url)
    except ValueError as err:
        return [required(path, f"url must be a valid URL: {err}{URL_FORM}")]
    errs = []
    if parts.scheme != "https":
        errs.append(invalid(path, parts.scheme, "'https' is the only allowed URL scheme" + URL_FORM))
    host = parts.netloc.rpartition("@")[2]
    if not host:
        errs.append(invalid(path, host, "host must be provided" + URL_FORM))
    if "@" in parts.netloc:
        user = parts.netloc.rpartition("@")[0]
        errs.append(invalid(path, user, "user information is not permitted in the URL"))
    if parts.fragment:
        errs.append(invalid(path, parts.fragment, "fragments are not permitted in the URL"))
    if parts.query:
        errs.append(invalid(path, parts.query, "query parameters are not permitted in the URL"))
    return errs


def validate_service(service: Object, path: str) -> list[FieldError]:
    errs = [
        required(f"{path}.{key}", f"service {key} is required")
        for key in ("name", "namespace")
        if not service.get(key)
    ]
    port = service.get("port", 443)
    if not isinstance(port, int) or not 0 < port < 65536:
        detail = "port is not valid: must be between 1 and 65535, inclusive"
        errs.append(invalid(f"{path}.port", port, detail))
    url_path = service.get("path") or "/"
    if url_path == "/":
        return errs
    if url_path == "//":
        return [*errs, invalid(f"{path}.path", url_path, "segment[0] may not be empty")]
    if not url_path.startswith("/"):
        errs.append(invalid(f"{path}.path", url_path, "must start with a '/'"))
    steps = url_path[1:].removesuffix("/").split("/")
    for i, step in enumerate(steps):
        if not step:
            errs.append(invalid(f"{path}.path", url_path, f"segment[{i}] may not be empty"))
        for failure in is_dns1123_subdomain(step) if step else []:
            errs.append(invalid(f"{path}.path", url_path, f"segment[{i}]: {failure}"))
    return errs


def validate_client_config(config: Object, path: str) -> list[FieldError]:
    if ("url" in config) == ("service" in config):
        return [required(path, "exactly one of url or service is required")]
    if "url" in config:
        return validate_url(str(config["url"]), f"{path}.url")
    return validate_service(config["service"] or {}, f"{path}.service")


def validate_review_versions(versions: list[Any], path: str, recognized: bool = True) -> list[FieldError]:
    if not versions:
        return [required(path, "must specify one of " + ", ".join(ACCEPTED_REVIEW_VERSIONS))]
    errs: list[FieldError] = []
    for i, version in enumerate(versions):
        if version in versions[:i]:
            errs.append(invalid(f"{path}[{i}]", version, "duplicate version"))
            continue
        errs += [invalid(f"{path}[{i}]", version, m) for m in is_dns1035_label(str(version))]
    if recognized and not set(versions) & set(ACCEPTED_REVIEW_VERSIONS):
        detail = "must include at least one of " + ", ".join(ACCEPTED_REVIEW_VERSIONS)
        errs.append(invalid(path, versions, detail))
    return errs


def validate_name(name: str, path: str) -> list[FieldError]:
    """Upstream's ``IsFullyQualifiedName``: a DNS subdomain with at least three segments."""
    if not name:
        return [required(path)]
    found = is_dns1123_subdomain(name)
    if found:
        return [invalid(path, name, ",".join(found))]
    if len(name.split(".")) < 3:
        return [invalid(path, name, "should be a domain with at least three segments separated by dots")]
    return []


def validate_match_conditions(conditions: list[Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, condition in enumerate(conditions):
        at, name = f"{path}[{i}]", condition.get("name", "")
        if not name:
            errs.append(required(f"{at}.name"))
        errs += [invalid(f"{at}.name", name, m) for m in (is_qualified_name(name) if name else [])]
        if name and name in [c.get("name") for c in conditions[:i]]:
            errs.append(FieldError("FieldValueDuplicate", f"{at}.name", name))
        if not condition.get("expression"):
            errs.append(required(f"{at}.expression"))
    return errs


def validate_webhook(
    hook: Object, path: str, mutating: bool, side_effects: tuple[str, ...]
) -> list[FieldError]:
    errs = validate_name(hook.get("name", ""), f"{path}.name")
    for i, rule in enumerate(hook.get("rules") or []):
        errs += validate_rule(rule, f"{path}.rules[{i}]")
    policies = [("failurePolicy", ("Fail", "Ignore")), ("matchPolicy", ("Equivalent", "Exact"))]
    if mutating:
        policies.append(("reinvocationPolicy", ("IfNeeded", "Never")))
    for key, supported in policies:
        if hook.get(key) is not None and hook[key] not in supported:
            errs.append(not_supported(f"{path}.{key}", hook[key], supported))
    if hook.get("sideEffects") is None:
        errs.append(required(f"{path}.sideEffects", "must specify one of " + ", ".join(side_effects)))
    elif hook["sideEffects"] not in side_effects:
        errs.append(not_supported(f"{path}.sideEffects", hook["sideEffects"], side_effects))
    timeout = hook.get("timeoutSeconds")
    if timeout is not None and not 1 <= timeout <= 30:
        detail = "the timeout value must be between 1 and 30 seconds"
        errs.append(invalid(f"{path}.timeoutSeconds", timeout, detail))
    for key in ("namespaceSelector", "objectSelector"):
        errs += validate_label_selector(hook.get(key), f"{path}.{key}")
    errs += validate_client_config(hook.get("clientConfig") or {}, f"{path}.clientConfig")
    errs += validate_match_conditions(hook.get("matchConditions") or [], f"{path}.matchConditions")
    return errs


def validate_configuration(obj: Object, mutating: bool, old: Object | None = None) -> list[FieldError]:
    """On update, upstream keeps accepting what the old object already had: side effects
    other than None/NoneOnDryRun, unrecognized review versions, duplicate names."""
    old_hooks = (old or {}).get("webhooks") or []
    strict = all(h.get("sideEffects") in NO_SIDE_EFFECTS for h in old_hooks)
    recognized = all(
        set(h.get("admissionReviewVersions") or ACCEPTED_REVIEW_VERSIONS) & set(ACCEPTED_REVIEW_VERSIONS)
        for h in old_hooks
    )
    old_names = [h.get("name") for h in old_hooks]
    unique = len(old_names) == len(set(old_names))
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, hook in enumerate(obj.get("webhooks") or []):
        path = f"webhooks[{i}]"
        errs += validate_webhook(hook, path, mutating, NO_SIDE_EFFECTS if strict else SIDE_EFFECTS)
        versions = hook.get("admissionReviewVersions") or []
        errs += validate_review_versions(versions, f"{path}.admissionReviewVersions", recognized)
        name = hook.get("name", "")
        if unique and name and name in names:
            errs.append(FieldError("FieldValueDuplicate", f"{path}.name", name))
        names.add(name)
    return errs
