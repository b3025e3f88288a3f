"""Every described message, and which top-level message decodes each ``(apiVersion, kind)``.

The messages are derived from the models' field tags (``from_models.py``, notation in
``minikube_py/api/models/tags.py``): ``REGISTRY`` is every message reachable from the kinds below.

The kinds are every one real kubectl (>= 1.32) writes as protobuf: each ``kubectl create <kind>``
generator, ``auth can-i`` (SelfSubjectAccessReview; ``--list``: SelfSubjectRulesReview), ``auth whoami``
(SelfSubjectReview, in all three versions) and ``create token`` (TokenRequest). A few relatives cost
nothing more and serve other protobuf clients: SubjectAccessReview, LocalSubjectAccessReview,
TokenReview and Eviction (kubectl's drain still sends JSON), what client-go's typed clients send
to subresources: Binding (a scheduler), Scale (``UpdateScale``), and the Pods and workloads of
client-go's typed ``Create`` (ReplicaSet, DaemonSet, StatefulSet). A kind whose model is
tagged is decodable, with nothing to list (``DECODABLE``).

``DeleteOptions`` is not a kind here: upstream decodes it in any group version (an unversioned kind
of its option scheme), so DELETE bodies look it up by name (``apiserver/endpoints/body.py``).
"""

from __future__ import annotations

from collections.abc import Mapping

from minikube_py.api.models import authentication, meta, policy
from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.registry import MODELS
from minikube_py.api.models.tags import tag_of
from minikube_py.api.protobuf.from_models import build_registry_from_models, message_name
from minikube_py.api.protobuf.schema import Message

# Decodable kinds with no model registered under that (apiVersion, kind): older versions of a
# served kind with the same fields, and kinds described but not served yet.
UNREGISTERED: dict[tuple[str, str], type[K8sModel]] = {
    ("authentication.k8s.io/v1alpha1", "SelfSubjectReview"): authentication.SelfSubjectReview,
    ("policy/v1beta1", "Eviction"): policy.Eviction,  # same fields; upstream's eviction takes both
    ("policy/v1", "PodDisruptionBudget"): policy.PodDisruptionBudget,
}


def on_the_wire(model: type[K8sModel]) -> bool:
    """Whether ``model`` declares protobuf field numbers (a kind whose fields carry no tag is
    JSON only). A model that declares some must declare all: building the registry says which
    field is missing."""
    return any(
        (t := tag_of(info)) is not None and t.number is not None for info in model.model_fields.values()
    )


def decodable_kinds(
    models: Mapping[tuple[str, str], type[K8sModel]],
) -> dict[tuple[str, str], type[K8sModel]]:
    """The kinds of ``models`` whose model carries field numbers (DeleteOptions aside: it is
    decoded by name in any group version)."""
    return {
        key: model for key, model in models.items() if model is not meta.DeleteOptions and on_the_wire(model)
    }


DECODABLE: dict[tuple[str, str], type[K8sModel]] = {**decodable_kinds(MODELS), **UNREGISTERED}
"""The model whose message decodes each ``(apiVersion, kind)``: every registered kind whose model
carries field numbers, so tagging a kind's model is all it takes to decode it."""

REGISTRY: dict[str, Message] = build_registry_from_models([*DECODABLE.values(), meta.DeleteOptions])

MESSAGES: dict[tuple[str, str], str] = {key: message_name(model) for key, model in DECODABLE.items()}
"""The top-level message name of each decodable ``(apiVersion, kind)``."""
