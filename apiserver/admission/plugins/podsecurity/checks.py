"""The baseline and restricted checks most pods meet, with upstream's reasons and details.

A check takes the pod's metadata and spec and returns None (allowed) or (reason, detail).
``evaluate(level, pod)`` runs, in upstream's order, the baseline checks, then at baseline the
checks restricted replaces, or at restricted the restricted checks."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from minikube_py.api.unstructured import Object

Result = tuple[str, str] | None
Check = Callable[[Object, Object], Result]

ALLOWED_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)
ALLOWED_VOLUME_TYPES = frozenset(
    {
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "persistentVolumeClaim",
        "projected",
        "secret",
        "image",
    }
)
_IN_ADD = "in securityContext.capabilities.add"
VALID_SECCOMP = ("RuntimeDefault", "Localhost")


def pluralize(single: str, plural: str, count: int) -> str:
    return single if count == 1 else plural


def join_quote(items: list[str]) -> str:
    return ", ".join('"' + i.replace("\\", "\\\\").replace('"', '\\"') + '"' for i in items)


def containers(spec: Object) -> Iterator[Object]:
    """Init, then regular, then ephemeral containers (upstream's ``visitContainers``)."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        yield from spec.get(key) or []


def _sc(container: Object) -> Object:
    return container.get("securityContext") or {}


def _containers_phrase(names: list[str]) -> str:
    return f"{pluralize('container', 'containers', len(names))} {join_quote(names)}"


def privileged(meta: Object, spec: Object) -> Result:
    bad = [c.get("name", "") for c in containers(spec) if _sc(c).get("privileged") is True]
    return (
        ("privileged", f"{_containers_phrase(bad)} must not set securityContext.privileged=true")
        if bad
        else None
    )


def host_namespaces(meta: Object, spec: Object) -> Result:
    used = sorted(f for f in ("hostNetwork", "hostPID", "hostIPC") if spec.get(f))
    return ("host namespaces", ", ".join(used)) if used else None


def host_ports(meta: Object, spec: Object) -> Result:
    bad, ports = [], set()
    for c in containers(spec):
        found = [str(p["hostPort"]) for p in c.get("ports") or [] if p.get("hostPort")]
        if found:
            bad.append(c.get("name", ""))
            ports.update(found)
    if not bad:
        return None
    detail = (
        f"{_containers_phrase(bad)} {pluralize('uses', 'use', len(bad))} "
        f"{pluralize('hostPort', 'hostPorts', len(ports))} {', '.join(sorted(ports))}"
    )
    return "hostPort", detail


def capabilities_baseline(meta: Object, spec: Object) -> Result:
    bad, caps = [], set()
    for c in containers(spec):
        added = [
            a for a in (_sc(c).get("capabilities") or {}).get("add") or [] if a not in ALLOWED_CAPABILITIES
        ]
        if added:
            bad.append(c.get("name", ""))
            caps.update(added)
    if not bad:
        return None
    detail = f"{_containers_phrase(bad)} must not include {join_quote(sorted(caps))} {_IN_ADD}"
    return "non-default capabilities", detail


def host_path_volumes(meta: Object, spec: Object) -> Result:
    bad = [v.get("name", "") for v in spec.get("volumes") or [] if "hostPath" in v]
    return (
        ("hostPath volumes", f"{pluralize('volume', 'volumes', len(bad))} {join_quote(bad)}") if bad else None
    )


def _seccomp(spec: Object, *, required: bool) -> Result:
    setters, values, implicit = [], set(), []
    pod_profile = (spec.get("securityContext") or {}).get("seccompProfile")
    pod_set = False
    if pod_profile is not None:
        if pod_profile.get("type") not in VALID_SECCOMP:
            setters.append("pod")
            values.add(str(pod_profile.get("type") or ""))
        else:
            pod_set = True
    explicit = []
    for c in containers(spec):
        profile = _sc(c).get("seccompProfile")
        if profile is not None:
            if profile.get("type") not in VALID_SECCOMP:
                explicit.append(c.get("name", ""))
                values.add(str(profile.get("type") or ""))
        elif not pod_set:
            implicit.append(c.get("name", ""))
    if explicit:
        setters.append(_containers_phrase(explicit))
    if setters:
        to = join_quote(sorted(values))
        detail = f"{' and '.join(setters)} must not set securityContext.seccompProfile.type to {to}"
        return "seccompProfile", detail
    if required and implicit:
        what = _containers_phrase(implicit)
        detail = (
            f'pod or {what} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"'
        )
        return "seccompProfile", detail
    return None


def seccomp_baseline(meta: Object, spec: Object) -> Result:
    return _seccomp(spec, required=False)


def seccomp_restricted(meta: Object, spec: Object) -> Result:
    return _seccomp(spec, required=True)


def allow_privilege_escalation(meta: Object, spec: Object) -> Result:
    bad = [c.get("name", "") for c in containers(spec) if _sc(c).get("allowPrivilegeEscalation") is not False]
    if not bad:
        return None
    return (
        "allowPrivilegeEscalation != false",
        f"{_containers_phrase(bad)} must set securityContext.allowPrivilegeEscalation=false",
    )


def capabilities_restricted(meta: Object, spec: Object) -> Result:
    missing_drop, adding, caps = [], [], set()
    for c in containers(spec):
        capabilities = _sc(c).get("capabilities")
        if capabilities is None:
            missing_drop.append(c.get("name", ""))
            continue
        if "ALL" not in (capabilities.get("drop") or []):
            missing_drop.append(c.get("name", ""))
        added = [a for a in capabilities.get("add") or [] if a != "NET_BIND_SERVICE"]
        if added:
            adding.append(c.get("name", ""))
            caps.update(added)
    details = []
    if missing_drop:
        details.append(
            f'{_containers_phrase(missing_drop)} must set securityContext.capabilities.drop=["ALL"]'
        )
    if adding:
        details.append(f"{_containers_phrase(adding)} must not include {join_quote(sorted(caps))} {_IN_ADD}")
    return ("unrestricted capabilities", "; ".join(details)) if details else None


def restricted_volumes(meta: Object, spec: Object) -> Result:
    bad, types = [], set()
    for volume in spec.get("volumes") or []:
        kinds = [k for k in volume if k != "name"]
        wrong = [k for k in kinds if k not in ALLOWED_VOLUME_TYPES]
        if wrong:
            bad.append(volume.get("name", ""))
            types.update(wrong)
    if not bad:
        return None
    detail = (
        f"{pluralize('volume', 'volumes', len(bad))} {join_quote(bad)} {pluralize('uses', 'use', len(bad))} "
        f"{pluralize('restricted volume type', 'restricted volume types', len(types))} "
        f"{join_quote(sorted(types))}"
    )
    return "restricted volume types", detail


def run_as_non_root(meta: Object, spec: Object) -> Result:
    if spec.get("hostUsers") is False:  # user namespaces relax it (KEP-127)
        return None
    setters, explicit, implicit = [], [], []
    pod_value = (spec.get("securityContext") or {}).get("runAsNonRoot")
    if pod_value is False:
        setters.append("pod")
    for c in containers(spec):
        value = _sc(c).get("runAsNonRoot")
        if value is False:
            explicit.append(c.get("name", ""))
        elif value is None and pod_value is not True:
            implicit.append(c.get("name", ""))
    if explicit:
        setters.append(_containers_phrase(explicit))
    if setters:
        return (
            "runAsNonRoot != true",
            f"{' and '.join(setters)} must not set securityContext.runAsNonRoot=false",
        )
    if implicit:
        return (
            "runAsNonRoot != true",
            f"pod or {_containers_phrase(implicit)} must set securityContext.runAsNonRoot=true",
        )
    return None


def run_as_user(meta: Object, spec: Object) -> Result:
    if spec.get("hostUsers") is False:
        return None
    setters = ["pod"] if (spec.get("securityContext") or {}).get("runAsUser") == 0 else []
    bad = [c.get("name", "") for c in containers(spec) if _sc(c).get("runAsUser") == 0]
    if bad:
        setters.append(_containers_phrase(bad))
    return ("runAsUser=0", f"{' and '.join(setters)} must not set runAsUser=0") if setters else None


BASELINE: list[Check] = [capabilities_baseline, host_namespaces, host_ports, privileged]
BASELINE_ONLY: list[Check] = [host_path_volumes, seccomp_baseline]  # restricted has stricter ones
RESTRICTED: list[Check] = [
    allow_privilege_escalation,
    capabilities_restricted,
    restricted_volumes,
    run_as_non_root,
    run_as_user,
    seccomp_restricted,
]


def evaluate(level: str, pod: Object) -> list[tuple[str, str]]:
    """The failed checks' (reason, detail) at ``level``; empty when the pod is allowed."""
    if level == "privileged":
        return []
    checks = BASELINE + (BASELINE_ONLY if level == "baseline" else RESTRICTED)
    meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
    return [found for check in checks if (found := check(meta, spec)) is not None]


def forbidden_detail(failures: list[tuple[str, str]]) -> str:
    """Upstream's ``AggregateCheckResult.ForbiddenDetail``: ``reason (detail), ...``."""
    return ", ".join(f"{reason} ({detail})" if detail else reason for reason, detail in failures)
