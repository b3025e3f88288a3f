"""Which Ingresses are this controller's: those naming one of its IngressClasses (the classes
whose ``spec.controller`` is ``minikube-py.io/ingress-controller``) by ``spec.ingressClassName``
or the legacy ``kubernetes.io/ingress.class`` annotation, and those naming none while one of
its classes is the default. Its class ``minikube-py`` is ensured at start, marked default as
minikube's ingress addon marks its ``nginx`` class."""

from __future__ import annotations

import logging

from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import resource_type

CLASS_NAME = "minikube-py"
CONTROLLER_NAME = "minikube-py.io/ingress-controller"
IS_DEFAULT_ANNOTATION = "ingressclass.kubernetes.io/is-default-class"
CLASS_ANNOTATION = "kubernetes.io/ingress.class"
INGRESS_CLASSES = resource_type("networking.k8s.io/v1", "ingressclasses")
log = logging.getLogger("ingress")


def is_default(ingress_class: Object | None) -> bool:
    annotations = ((ingress_class or {}).get("metadata") or {}).get("annotations") or {}
    return annotations.get(IS_DEFAULT_ANNOTATION) == "true"


def class_of(ingress: Object) -> str | None:
    """The class an Ingress names, or None."""
    named = (ingress.get("spec") or {}).get("ingressClassName")
    if named is not None:
        return str(named)
    annotation = ((ingress.get("metadata") or {}).get("annotations") or {}).get(CLASS_ANNOTATION)
    return None if annotation is None else str(annotation)


def served(ingress: Object, classes: dict[str, Object]) -> bool:
    """Whether an Ingress is served, given this controller's classes by name."""
    if (ingress.get("metadata") or {}).get("deletionTimestamp"):
        return False
    named = class_of(ingress)
    return named in classes if named is not None else any(is_default(c) for c in classes.values())


def own_classes(classes: list[Object], controller: str = CONTROLLER_NAME) -> dict[str, Object]:
    """The classes of ``controller``, by name."""
    return {
        c["metadata"]["name"]: c for c in classes if (c.get("spec") or {}).get("controller") == controller
    }


def class_manifest(class_name: str = CLASS_NAME, controller: str = CONTROLLER_NAME) -> Object:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "IngressClass",
        "metadata": {
            "name": class_name,
            "labels": {"app.kubernetes.io/component": "controller", "app.kubernetes.io/name": "minikube-py"},
            "annotations": {IS_DEFAULT_ANNOTATION: "true"},
        },
        "spec": {"controller": controller},
    }


async def ensure_class(
    client: Client, class_name: str = CLASS_NAME, controller: str = CONTROLLER_NAME
) -> None:
    """Create the class unless it exists (an existing class is the user's to change: its
    default mark is left alone). One of that name for another controller is logged: its
    Ingresses are not served here."""
    classes = client.resource(INGRESS_CLASSES)
    try:
        await classes.create(class_manifest(class_name, controller))
        log.info("created IngressClass %s (controller %s, default)", class_name, controller)
        return
    except ApiError as err:
        if err.code != 409:
            raise
    existing = await classes.get(class_name)
    found = (existing.get("spec") or {}).get("controller")
    if found != controller:
        log.warning(
            "IngressClass %s belongs to controller %s, not %s: not served", class_name, found, controller
        )
