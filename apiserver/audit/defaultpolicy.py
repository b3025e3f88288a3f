"""The policy ``up`` audits with when none is given (the shape of the policies clusters
commonly run, e.g. kube-up's ``configure-helper.sh``, trimmed to what this cluster serves):

- health checks and ``/version`` are not audited (probes would drown everything else);
- node Lease renewals (get/update of leases in ``kube-node-lease`` by ``system:nodes``, or by
  the agent of ``up --fake-nodes``, which renews for thousands of simulated nodes) are not
  audited (every node renews every 10 s);
- Events are not audited, as kube-up's policy has it ("because of performance impact": each
  pod's scheduling and start writes several), in both groups that serve them (core and
  ``events.k8s.io``: the same objects);
- everything else at ``Metadata`` (who did what to which object, with what result; no bodies,
  so no Secret or ConfigMap data reaches the log), without the ``RequestReceived`` stage.
"""

from __future__ import annotations

from typing import Any

from apiserver.audit.policy import METADATA, NONE, REQUEST_RECEIVED, GroupResources, Policy, PolicyRule
from minikube_py.identities import FAKE_NODES_USER

HEALTH_URLS = ("/healthz*", "/livez*", "/readyz*", "/version", "/version/")
LEASE_RENEWALS: dict[str, Any] = {
    "verbs": ("get", "update"),
    "namespaces": ("kube-node-lease",),
    "resources": (GroupResources("coordination.k8s.io", ("leases",)),),
}


def default_policy() -> Policy:
    return Policy(
        rules=(
            PolicyRule(NONE, non_resource_urls=HEALTH_URLS),
            PolicyRule(NONE, user_groups=("system:nodes",), **LEASE_RENEWALS),
            PolicyRule(NONE, users=(FAKE_NODES_USER,), **LEASE_RENEWALS),
            PolicyRule(
                NONE,
                resources=(GroupResources("", ("events",)), GroupResources("events.k8s.io", ("events",))),
            ),
            PolicyRule(METADATA),
        ),
        omit_stages=(REQUEST_RECEIVED,),
    )
