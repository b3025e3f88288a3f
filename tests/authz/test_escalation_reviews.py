"""Escalation prevention, access reviews, impersonation and aggregation, in process."""

from __future__ import annotations

from apiserver.bootstrap.aggregation import sync
from apiserver.storage.interface import ListOptions
from tests.authz.conftest import Cluster
from tests.authz.helpers import CLUSTER_ROLES, RBAC, ROLE_BINDINGS, ROLES, binding, role, rule
from tests.waiting import eventually

PODS = "/api/v1/namespaces/default/pods"
AUTHZ = "/apis/authorization.k8s.io/v1"


async def _grant_role_management(cluster: Cluster) -> None:
    async with cluster.admin() as admin:
        manager = role(
            "manager", rule(["create", "update"], ["roles", "rolebindings"], (RBAC,)), rule(["get"], ["pods"])
        )
        assert (await admin.post(ROLES, json=manager)).status_code == 201
        assert (
            await admin.post(ROLE_BINDINGS, json=binding("manager", "manager", role_kind="Role"))
        ).status_code == 201


async def test_roles_granting_more_than_held_are_refused(cluster: Cluster) -> None:
    await _grant_role_management(cluster)
    async with cluster.client("alice") as alice:
        assert (await alice.post(ROLES, json=role("ok", rule(["get"], ["pods"])))).status_code == 201
        response = await alice.post(ROLES, json=role("more", rule(["get", "create"], ["pods", "secrets"])))
        assert response.status_code == 403
        assert response.json()["message"] == (
            'roles.rbac.authorization.k8s.io "more" is forbidden: '
            'user "alice" (groups=["system:authenticated"]) '
            "is attempting to grant RBAC permissions not currently held:\n"
            '{APIGroups:[""], Resources:["pods"], Verbs:["create"]}\n'
            '{APIGroups:[""], Resources:["secrets"], Verbs:["create"]}\n'
            '{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}'
        )
        assert response.json()["details"] == {"name": "more", "group": RBAC, "kind": "roles"}


async def test_binding_needs_the_roles_rules_or_bind(cluster: Cluster) -> None:
    await _grant_role_management(cluster)
    async with cluster.client("alice") as alice, cluster.admin() as admin:
        response = await alice.post(ROLE_BINDINGS, json=binding("root", "cluster-admin", user="bob"))
        assert response.status_code == 403
        assert "is attempting to grant RBAC permissions not currently held" in response.json()["message"]
        await admin.post(ROLES, json=role("reader", rule(["get"], ["pods"])))
        ok = binding("reader", "reader", role_kind="Role", user="bob")
        assert (await alice.post(ROLE_BINDINGS, json=ok)).status_code == 201
        binder = role("binder", rule(["bind"], ["clusterroles"], (RBAC,), resourceNames=["cluster-admin"]))
        await admin.post(ROLES, json=binder)
        await admin.post(ROLE_BINDINGS, json=binding("binder", "binder", role_kind="Role"))
        assert (
            await alice.post(ROLE_BINDINGS, json=binding("root", "cluster-admin", user="bob"))
        ).status_code == 201


async def test_escalate_verb_allows_any_rules(cluster: Cluster) -> None:
    await _grant_role_management(cluster)
    async with cluster.client("alice") as alice, cluster.admin() as admin:
        await admin.post(ROLES, json=role("escalator", rule(["escalate"], ["roles"], (RBAC,))))
        await admin.post(ROLE_BINDINGS, json=binding("escalator", "escalator", role_kind="Role"))
        assert (await alice.post(ROLES, json=role("big", rule(["*"], ["*"], ("*",))))).status_code == 201


async def test_subject_access_reviews(cluster: Cluster) -> None:
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": "alice",
            "resourceAttributes": {"namespace": "default", "verb": "list", "resource": "pods"},
        },
    }
    async with cluster.admin() as admin, cluster.client("alice") as alice:
        response = await admin.post(f"{AUTHZ}/subjectaccessreviews", json=review)
        assert response.status_code == 201
        assert response.json()["status"] == {"allowed": False}
        await admin.post(ROLE_BINDINGS, json=binding("alice-view", "system:aggregate-to-view"))
        status = (await admin.post(f"{AUTHZ}/subjectaccessreviews", json=review)).json()["status"]
        assert status["allowed"] is True
        assert status["reason"].startswith(
            'RBAC: allowed by RoleBinding "alice-view/default" of ClusterRole "system:aggregate-to-view" '
            'to User "alice": rule 0 {APIGroups:[""], Resources:['
        )
        invalid = {**review, "spec": {"resourceAttributes": {"verb": "get"}}}
        response = await admin.post(f"{AUTHZ}/subjectaccessreviews", json=invalid)
        assert response.status_code == 422
        assert response.json()["message"] == (
            'SubjectAccessReview.authorization.k8s.io "" is invalid: '
            'spec.user: Invalid value: "": at least one of user or group must be specified'
        )
        assert (await alice.post(f"{AUTHZ}/subjectaccessreviews", json=review)).status_code == 403
        self_review = {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": {"namespace": "default", "verb": "delete", "resource": "pods"}},
        }
        response = await alice.post(f"{AUTHZ}/selfsubjectaccessreviews", json=self_review)
        assert response.status_code == 201
        assert response.json()["status"] == {"allowed": False}
        rules_review = {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectRulesReview",
            "spec": {"namespace": "default"},
        }
        status = (await alice.post(f"{AUTHZ}/selfsubjectrulesreviews", json=rules_review)).json()["status"]
        assert status["incomplete"] is False
        assert {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["namespaces"]} in status[
            "resourceRules"
        ]
        assert {"verbs": ["get"], "nonResourceURLs": ["/api", "/api/*"]} not in status["nonResourceRules"]
        assert any("/api" in r["nonResourceURLs"] for r in status["nonResourceRules"])
        local = {**review, "kind": "LocalSubjectAccessReview"}
        response = await admin.post(f"{AUTHZ}/namespaces/kube-system/localsubjectaccessreviews", json=local)
        assert response.status_code == 422
        assert (
            'spec.resourceAttributes.namespace: Invalid value: "default": must match metadata.namespace'
            in (response.json()["message"])
        )


async def test_impersonation(cluster: Cluster) -> None:
    async with cluster.admin() as admin, cluster.client("alice") as alice:
        response = await admin.get(PODS, headers={"Impersonate-User": "alice"})
        assert response.status_code == 403
        assert response.json()["message"].startswith(
            'pods is forbidden: User "alice" cannot list resource "pods"'
        )
        response = await alice.get(PODS, headers={"Impersonate-User": "bob"})
        assert response.json()["message"] == (
            'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" '
            "at the cluster scope"
        )
        response = await admin.get(
            PODS, headers={"Impersonate-User": "alice", "Impersonate-Group": "system:masters"}
        )
        assert response.status_code == 200
        rules_review = {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": {"nonResourceAttributes": {"path": "/api", "verb": "get"}},
        }
        response = await admin.post(
            f"{AUTHZ}/selfsubjectaccessreviews",
            json=rules_review,
            headers={"Impersonate-User": "system:anonymous"},
        )
        assert response.status_code == 403  # anonymous may not create access reviews


async def test_aggregated_cluster_roles_collect_labeled_rules(cluster: Cluster) -> None:
    store = cluster.catalog.store(RBAC, "v1", "clusterroles")
    assert store is not None
    await sync(store)
    async with cluster.admin() as admin:
        view = (await admin.get(f"{CLUSTER_ROLES}/view")).json()
        assert {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["namespaces"]} in view[
            "rules"
        ]
        admin_rules = (await admin.get(f"{CLUSTER_ROLES}/admin")).json()["rules"]
        assert {
            "verbs": ["create"],
            "apiGroups": ["authorization.k8s.io"],
            "resources": ["localsubjectaccessreviews"],
        } in admin_rules
        extra = role("crontabs", rule(["get"], ["crontabs"], ("example.com",)), kind="ClusterRole")
        extra["metadata"]["labels"] = {"rbac.authorization.k8s.io/aggregate-to-view": "true"}
        await admin.post(CLUSTER_ROLES, json=extra)

        async def cached() -> bool:  # sync lists from the watch cache (resourceVersion 0)
            listed = await store.list("", ListOptions(resource_version="0"))
            return any(r["metadata"]["name"] == extra["metadata"]["name"] for r in listed.items)

        await eventually(cached, "the watch cache to hold the new ClusterRole")
        await sync(store)
        for name in ("view", "edit", "admin"):
            rules = (await admin.get(f"{CLUSTER_ROLES}/{name}")).json()["rules"]
            assert rule(["get"], ["crontabs"], ("example.com",)) in rules, name
