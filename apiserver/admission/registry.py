"""Plugin name -> factory, upstream's execution order and default-on set, and the
``--enable-admission-plugins``/``--disable-admission-plugins`` rules (upstream's
``AdmissionOptions``): the enabled plugins are the default-on ones plus the enabled minus the
disabled, always run in the recommended order, whatever order the flags name them in."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from apiserver.admission.chain import AdmissionChain
from apiserver.admission.interfaces import PluginLookup
from apiserver.admission.plugins import (
    defaultingressclass,
    defaultstorageclass,
    defaulttolerationseconds,
    limitranger,
    namespacelifecycle,
    noderestriction,
    priority,
    resourcequota,
    serviceaccount,
    storageobjectinuseprotection,
)
from apiserver.admission.plugins.podsecurity import plugin as podsecurity
from apiserver.admission.webhook.mutating import MutatingAdmissionWebhook
from apiserver.admission.webhook.validating import ValidatingAdmissionWebhook

# A factory builds its plugin over what it reads (namespaces, quotas, ...: ``PluginLookup``).
Factory = Callable[[PluginLookup], object]

# Upstream's AllOrderedPlugins, restricted to the plugins served here; the webhook plugins
# will sit where upstream has them, between DefaultTolerationSeconds and ResourceQuota.
ORDERED = (
    "NamespaceLifecycle",
    "LimitRanger",
    "ServiceAccount",
    "NodeRestriction",
    "PodSecurity",
    "Priority",
    "DefaultTolerationSeconds",
    "DefaultStorageClass",
    "StorageObjectInUseProtection",
    "DefaultIngressClass",
    "MutatingAdmissionWebhook",
    "ValidatingAdmissionWebhook",
    "ResourceQuota",
)
# Upstream's default-on plugins among ORDERED (NodeRestriction is off by default; kubeadm and
# ``up`` turn it on).
DEFAULT_ON = frozenset(ORDERED) - {"NodeRestriction"}


class AdmissionConfigError(ValueError):
    """Bad plugin flags; the message is upstream's (one line per problem)."""


def _factories() -> dict[str, Factory]:
    return {
        "NamespaceLifecycle": namespacelifecycle.NamespaceLifecycle,
        "LimitRanger": limitranger.LimitRanger,
        "ServiceAccount": serviceaccount.ServiceAccount,
        "NodeRestriction": noderestriction.NodeRestriction,
        "PodSecurity": podsecurity.PodSecurity,
        "Priority": priority.Priority,
        "DefaultTolerationSeconds": defaulttolerationseconds.DefaultTolerationSeconds,
        "DefaultIngressClass": defaultingressclass.DefaultIngressClass,
        "DefaultStorageClass": defaultstorageclass.DefaultStorageClass,
        "StorageObjectInUseProtection": storageobjectinuseprotection.StorageObjectInUseProtection,
        "MutatingAdmissionWebhook": MutatingAdmissionWebhook,
        "ValidatingAdmissionWebhook": ValidatingAdmissionWebhook,
        "ResourceQuota": resourcequota.ResourceQuota,
    }


def registered() -> list[str]:
    return [name for name in ORDERED if name in _factories()]


def enabled_plugins(enable: Iterable[str] = (), disable: Iterable[str] = ()) -> tuple[str, ...]:
    """The plugins to run, in order: default-on + ``enable`` - ``disable`` (registered ones)."""
    enable, disable = list(enable), list(disable)
    known = set(registered())
    problems = [f'enable-admission-plugins plugin "{n}" is unknown' for n in enable if n not in known]
    problems += [f'disable-admission-plugins plugin "{n}" is unknown' for n in disable if n not in known]
    both = sorted(set(enable) & set(disable))
    if both:
        listed = "[" + " ".join(both) + "]"
        problems.append(f"{listed} in enable-admission-plugins and disable-admission-plugins overlapped")
    if problems:
        raise AdmissionConfigError("\n".join(problems))
    off = (set(ORDERED) - DEFAULT_ON | set(disable)) - set(enable)
    return tuple(name for name in registered() if name not in off)


def build_chain(names: Iterable[str], lookup: PluginLookup) -> AdmissionChain:
    factories = _factories()
    return AdmissionChain([factories[name](lookup) for name in names])
