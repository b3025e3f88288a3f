"""admissionregistration.k8s.io/v1: mutating and validating webhook configurations."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Bytes, Int32, K8sModel, OneOf
from minikube_py.api.models.meta import LabelSelector, ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import Served

OPENAPI_PACKAGE = "io.k8s.api.admissionregistration.v1"
GROUP = "admissionregistration.k8s.io"
API_EXTENSIONS = ("api-extensions",)


class RuleWithOperations(K8sModel):
    """Operations and resources a webhook cares about; a request must match every list."""

    operations: list[Annotated[str, OneOf("*", "CONNECT", "CREATE", "DELETE", "UPDATE")]] | None = None
    """The operations the rule matches: ``CREATE``, ``UPDATE``, ``DELETE``, ``CONNECT`` or ``*``."""
    api_groups: list[str] | None = None
    """API groups the resources belong to; ``*`` is all groups, ``""`` the core group."""
    api_versions: list[str] | None = None
    """API versions the resources belong to; ``*`` is all versions."""
    resources: list[str] | None = None
    """Resources this rule applies to: ``pods``, ``pods/status``, ``pods/*``, ``*``, ``*/*``."""
    scope: Annotated[str, OneOf("*", "Cluster", "Namespaced")] | None = None
    """``Cluster``, ``Namespaced`` or ``*`` (the default): which resources by scope."""


class ServiceReference(K8sModel):
    """A Service that fronts the webhook."""

    required_fields = ("namespace", "name")

    namespace: str | None = None
    """Namespace of the service."""
    name: str | None = None
    """Name of the service."""
    path: str | None = None
    """URL path requests are sent to."""
    port: Int32 | None = None
    """Port of the service that hosts the webhook; defaults to 443."""


class WebhookClientConfig(K8sModel):
    """How to reach the webhook over TLS: a ``url`` or a ``service``, exactly one."""

    url: str | None = None
    """``https://host[:port][/path]``: the webhook's location; no user, query or fragment."""
    service: ServiceReference | None = None
    """The Service in front of the webhook."""
    ca_bundle: Bytes | None = None
    """PEM certificates that verify the webhook's serving certificate (base64 in JSON)."""


class MatchCondition(K8sModel):
    """A CEL expression a request must satisfy for the webhook to be called."""

    required_fields = ("name", "expression")

    name: str | None = None
    """Identifies the condition."""
    expression: str | None = None
    """The CEL expression (not evaluated by this server)."""


class ValidatingWebhook(K8sModel):
    """One validating webhook and the requests it is called for."""

    required_fields = ("name", "clientConfig", "sideEffects", "admissionReviewVersions")

    name: str | None = None
    """Fully qualified name of the webhook (``imagepolicy.kubernetes.io``)."""
    client_config: WebhookClientConfig | None = None
    """How to reach the webhook."""
    rules: list[RuleWithOperations] | None = None
    """Operations and resources the webhook cares about."""
    failure_policy: Annotated[str, OneOf("Fail", "Ignore")] | None = None
    """What happens when the call fails: ``Fail`` (the default) or ``Ignore``."""
    match_policy: Annotated[str, OneOf("Equivalent", "Exact")] | None = None
    """``Equivalent`` (the default) also matches a request through another version of a
    matched resource; ``Exact`` only the listed ones."""
    namespace_selector: LabelSelector | None = None
    """Which namespaces' objects are sent, by the namespace's labels (default: all)."""
    object_selector: LabelSelector | None = None
    """Which objects are sent, by their labels (default: all)."""
    side_effects: Annotated[str, OneOf("None", "NoneOnDryRun", "Some", "Unknown")] | None = None
    """Whether calling the webhook has side effects: ``None`` or ``NoneOnDryRun``."""
    timeout_seconds: Int32 | None = None
    """Seconds before the call times out (1-30, default 10)."""
    admission_review_versions: list[str] | None = None
    """AdmissionReview versions the webhook accepts, preferred first."""
    match_conditions: list[MatchCondition] | None = None
    """CEL conditions that must all hold (stored, not evaluated here)."""


class MutatingWebhook(ValidatingWebhook):
    """One mutating webhook: a validating webhook that may patch the object."""

    reinvocation_policy: Annotated[str, OneOf("IfNeeded", "Never")] | None = None
    """``IfNeeded`` calls the webhook again when later plugins changed the object."""


class ValidatingWebhookConfiguration(TypeMeta):
    """Validating webhooks that accept or reject objects without changing them."""

    kinds = (Served(GROUP, "v1", "validatingwebhookconfigurations", False, categories=API_EXTENSIONS),)

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    webhooks: list[ValidatingWebhook] | None = tag(merge_key="name")
    """The webhooks and the resources and operations each one affects."""


class MutatingWebhookConfiguration(TypeMeta):
    """Mutating webhooks that may accept, reject or change objects."""

    kinds = (Served(GROUP, "v1", "mutatingwebhookconfigurations", False, categories=API_EXTENSIONS),)

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    webhooks: list[MutatingWebhook] | None = tag(merge_key="name")
    """The webhooks and the resources and operations each one affects."""
