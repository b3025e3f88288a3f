"""Storage keys, upstream's layout: ``/registry/<resource>/<namespace>/<name>`` for namespaced
objects and ``/registry/<resource>/<name>`` for cluster-scoped ones, so that
``etcdctl get --prefix /registry/`` on an ``etcd://`` store shows what upstream's would.
"""

from __future__ import annotations

REGISTRY = "/registry"


def resource_prefix(resource: str, namespace: str = "") -> str:
    """The prefix of every object of ``resource`` (in ``namespace``, when given), ending
    with ``/`` so that ``pods`` never matches ``podtemplates``."""
    if namespace:
        return f"{REGISTRY}/{resource}/{namespace}/"
    return f"{REGISTRY}/{resource}/"


def object_key(resource: str, name: str, namespace: str = "") -> str:
    return resource_prefix(resource, namespace) + name
