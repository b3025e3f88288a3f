"""Reading an ``audit.k8s.io/v1`` ``Policy`` from YAML (or JSON), as upstream's
``policy.LoadPolicyFromFile``: the group version must be ``audit.k8s.io/v1``, the policy is
validated as upstream's ``ValidatePolicy`` (levels, stages, non-resource URLs, groups), and a
policy without rules is refused. Unknown fields are ignored with a warning (upstream falls
back to lenient decoding)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import yaml

from apiserver.audit.policy import LEVELS, STAGES, GroupResources, Policy, PolicyRule
from minikube_py.api.field_errors import FieldError, aggregate_message, invalid, not_supported, required
from minikube_py.api.validation import is_dns1123_subdomain

logger = logging.getLogger("audit")

GROUP_VERSION = "audit.k8s.io/v1"
_POLICY_FIELDS = {"apiVersion", "kind", "metadata", "rules", "omitStages", "omitManagedFields"}
_RULE_FIELDS = {
    "level",
    "users",
    "userGroups",
    "verbs",
    "resources",
    "namespaces",
    "nonResourceURLs",
    "omitStages",
    "omitManagedFields",
}
_GROUP_FIELDS = {"group", "resources", "resourceNames"}


class PolicyError(Exception):
    """The policy cannot be used. One-line message, as upstream's."""


def load_policy_file(path: Path) -> Policy:
    try:
        text = path.read_bytes()
    except OSError as err:
        raise PolicyError(f'failed to read file path "{path}": {err.strerror or err}') from None
    try:
        return load_policy(text)
    except PolicyError as err:
        raise PolicyError(f"{err}: from file {path}") from None


def load_policy(text: bytes | str) -> Policy:
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise PolicyError(f"failed decoding: {' '.join(str(err).split())}") from None
    if not isinstance(doc, dict):
        raise PolicyError("failed decoding: Object 'Kind' is missing in the policy")
    _check_type(doc)
    _warn_unknown(doc, _POLICY_FIELDS, "")
    errors: list[FieldError] = []
    rules = tuple(_rule(raw, f"rules[{i}]", errors) for i, raw in enumerate(_list(doc, "rules")))
    policy = Policy(
        rules,
        tuple(_stages(_strings(doc, "omitStages"), "omitStages", errors)),
        bool(doc.get("omitManagedFields", False)),
    )
    if errors:
        raise PolicyError(aggregate_message(errors))
    if not rules:
        raise PolicyError("loaded illegal policy with 0 rules")
    return policy


def _check_type(doc: dict[str, Any]) -> None:
    api_version, kind = doc.get("apiVersion", ""), doc.get("kind", "")
    if not kind:
        raise PolicyError("failed decoding: Object 'Kind' is missing in the policy")
    if api_version != GROUP_VERSION or kind != "Policy":
        group, _, version = str(api_version).rpartition("/")
        raise PolicyError(f"unknown group version field {group}/{version}, Kind={kind} in policy")


def _rule(raw: Any, path: str, errors: list[FieldError]) -> PolicyRule:
    if not isinstance(raw, dict):
        raw = {}
    _warn_unknown(raw, _RULE_FIELDS, path + ".")
    level = raw.get("level") or ""
    if not level:
        errors.append(required(f"{path}.level"))
    elif level not in LEVELS:
        errors.append(not_supported(f"{path}.level", level, LEVELS))
    urls = _strings(raw, "nonResourceURLs")
    _check_urls(urls, f"{path}.nonResourceURLs", errors)
    resources = tuple(_group_resources(g, f"{path}.resources", errors) for g in _list(raw, "resources"))
    namespaces = _strings(raw, "namespaces")
    if urls and (resources or namespaces):
        errors.append(
            invalid(
                f"{path}.nonResourceURLs",
                list(urls),
                "rules cannot apply to both regular resources and non-resource URLs",
            )
        )
    omit_managed = raw.get("omitManagedFields")
    return PolicyRule(
        level=str(level),
        users=_strings(raw, "users"),
        user_groups=_strings(raw, "userGroups"),
        verbs=_strings(raw, "verbs"),
        resources=resources,
        namespaces=namespaces,
        non_resource_urls=urls,
        omit_stages=tuple(_stages(_strings(raw, "omitStages"), f"{path}.omitStages", errors)),
        omit_managed_fields=None if omit_managed is None else bool(omit_managed),
    )


def _check_urls(urls: tuple[str, ...], path: str, errors: list[FieldError]) -> None:
    for i, url in enumerate(urls):
        if url == "*":
            continue
        if not url.startswith("/"):
            errors.append(
                invalid(f"{path}[{i}]", url, "non-resource URL rules must begin with a '/' character")
            )
        if url and "*" in url[:-1]:
            errors.append(
                invalid(
                    f"{path}[{i}]",
                    url,
                    "non-resource URL wildcards '*' must be the final character of the rule",
                )
            )


def _group_resources(raw: Any, path: str, errors: list[FieldError]) -> GroupResources:
    if not isinstance(raw, dict):
        raw = {}
    _warn_unknown(raw, _GROUP_FIELDS, path + ".")
    group = str(raw.get("group") or "")
    if group and group != "*":
        messages = is_dns1123_subdomain(group)
        if messages:
            errors.append(invalid(f"{path}.group", group, ",".join(messages)))
    resources, names = _strings(raw, "resources"), _strings(raw, "resourceNames")
    if names and not resources:
        errors.append(
            invalid(
                f"{path}.resourceNames", list(names), "using resourceNames requires at least one resource"
            )
        )
    return GroupResources(group, resources, names)


def _stages(stages: tuple[str, ...], path: str, errors: list[FieldError]) -> list[str]:
    for i, stage in enumerate(stages):
        if stage not in STAGES:
            errors.append(invalid(f"{path}[{i}]", stage, "allowed stages are " + ",".join(STAGES)))
    return list(stages)


def _list(doc: dict[str, Any], key: str) -> list[Any]:
    value = doc.get(key) or []
    return value if isinstance(value, list) else [value]


def _strings(doc: dict[str, Any], key: str) -> tuple[str, ...]:
    return tuple(str(v) for v in _list(doc, key))


def _warn_unknown(doc: dict[str, Any], known: set[str], prefix: str) -> None:
    unknown = sorted(set(doc) - known)
    if unknown:
        names = ", ".join(f'"{prefix}{name}"' for name in unknown)
        logger.warning(
            "audit policy contains errors, falling back to lenient decoding: unknown field %s", names
        )
