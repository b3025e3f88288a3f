"""What pods and every workload's pod template share: upstream's defaulting of a ``PodSpec``
(``pkg/apis/core/v1/defaults.go``) and the Containers/Images/Selector cells of ``kubectl get -o wide``.

Only the defaults that ``kubectl get -o yaml`` commonly shows are applied: restart and DNS policy,
scheduler, grace period, security context, container pull policy and termination message, port
protocols and probe timings. Pod-only defaults (``enableServiceLinks``, requests from limits) are in
``default_pod_only``: upstream applies them to Pods, not to templates.
"""

from __future__ import annotations

from typing import Any

from apiserver.registry.strategy import Column
from minikube_py.api.labels import SelectorError, label_selector_as_selector
from minikube_py.api.unstructured import Object

CONTAINERS_COLUMN: Column = ("Containers", "string", "", "Names of each container in the template.", 1)
IMAGES_COLUMN: Column = ("Images", "string", "", "Images referenced by each container in the template.", 1)
SELECTOR_COLUMN: Column = ("Selector", "string", "", "Label selector for pods.", 1)

TERMINATION_MESSAGE_PATH = "/dev/termination-log"
_PROBE_DEFAULTS = {"timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3}
_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")


# defaulting


def image_pull_policy(image: str) -> str:
    """``Always`` for ``:latest`` or an image without tag or digest, else ``IfNotPresent``.

    Like upstream's ``parsers.ParseImageName``: the tag follows the last ``:`` of the last path
    component; an image that does not parse (empty, spaces, upper-case repository) has no tag.
    """
    name, _, digest = image.partition("@")
    repository, tag = name, ""
    if ":" in name.rsplit("/", 1)[-1]:
        repository, _, tag = name.rpartition(":")
    if not repository or repository != repository.lower() or any(c.isspace() for c in image):
        return "IfNotPresent"
    if not tag and not digest:
        tag = "latest"
    return "Always" if tag == "latest" else "IfNotPresent"


def default_container(container: Object, host_network: bool = False) -> None:
    """``SetDefaults_Container`` plus its ports, probes and env (``resources`` is always present)."""
    container.setdefault("imagePullPolicy", image_pull_policy(str(container.get("image") or "")))
    container.setdefault("terminationMessagePath", TERMINATION_MESSAGE_PATH)
    container.setdefault("terminationMessagePolicy", "File")
    container.setdefault("resources", {})
    for port in container.get("ports") or []:
        port.setdefault("protocol", "TCP")
        if host_network and not port.get("hostPort") and port.get("containerPort"):
            port["hostPort"] = port["containerPort"]
    for probe in _PROBES:
        if isinstance(container.get(probe), dict):
            _default_probe(container[probe])
    for env in container.get("env") or []:
        field_ref = (env.get("valueFrom") or {}).get("fieldRef")
        if isinstance(field_ref, dict):
            field_ref.setdefault("apiVersion", "v1")


def _default_probe(probe: Object) -> None:
    for key, value in _PROBE_DEFAULTS.items():
        probe.setdefault(key, value)
    if isinstance(probe.get("httpGet"), dict):
        probe["httpGet"].setdefault("path", "/")
        probe["httpGet"].setdefault("scheme", "HTTP")


def default_pod_spec(spec: Object) -> None:
    """``SetDefaults_PodSpec`` and its containers' defaults."""
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    host_network = bool(spec.get("hostNetwork"))
    for key in ("initContainers", "containers", "ephemeralContainers"):  # SetDefaults_EphemeralContainer too
        for container in spec.get(key) or []:
            if isinstance(container, dict):
                default_container(container, host_network)


def default_pod_only(spec: Object) -> None:
    """``SetDefaults_Pod``: service links on, and each container's requests default to its limits."""
    spec.setdefault("enableServiceLinks", True)
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            if not isinstance(container, dict):
                continue
            resources = container.setdefault("resources", {})
            limits = resources.get("limits") or {}
            if limits:
                requests = resources.setdefault("requests", {})
                for name, value in limits.items():
                    requests.setdefault(name, value)


def default_template(owner_spec: Object) -> None:
    """Default the pod template of a workload spec (``spec.template.spec``), if there is one."""
    template = owner_spec.get("template")
    if isinstance(template, dict):
        default_pod_spec(template.setdefault("spec", {}))


# cells


def template_spec(obj: Object) -> Object:
    """The workload's pod template spec (``{}`` when missing)."""
    spec: Object = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    return spec


def container_cells(pod_spec: Object) -> list[str]:
    """``layoutContainerCells``: names and images of the containers, comma-separated."""
    containers = [c for c in pod_spec.get("containers") or [] if isinstance(c, dict)]
    names = ",".join(str(c.get("name", "")) for c in containers)
    images = ",".join(str(c.get("image", "")) for c in containers)
    return [names, images]


def format_labels(labels: dict[str, Any] | None) -> str:
    """``labels.FormatLabels``: ``k=v`` sorted by key, comma-separated; ``<none>`` when empty."""
    if not labels:
        return "<none>"
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def selector_string(selector: Any) -> str:
    """A ``LabelSelector`` as upstream's ``Selector.String()`` (``""`` for nil); ``<invalid>`` on error."""
    try:
        return str(label_selector_as_selector(selector))
    except SelectorError:
        return "<invalid>"


def format_label_selector(selector: Any) -> str:
    """``metav1.FormatLabelSelector``: the selector string, ``<none>`` when empty, ``<error>`` if invalid."""
    try:
        text = str(label_selector_as_selector(selector))
    except SelectorError:
        return "<error>"
    return text or "<none>"
