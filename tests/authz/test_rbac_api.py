"""The authorization filter over HTTP with Node,RBAC and the bootstrap policy: upstream's 403
messages, bindings taking effect, rule features end to end in process."""

from __future__ import annotations

from tests.authz.conftest import Cluster
from tests.authz.helpers import CLUSTER_ROLES, ROLE_BINDINGS, ROLES, binding, role, rule

PODS = "/api/v1/namespaces/default/pods"


async def test_anonymous_may_read_health_and_version_only(cluster: Cluster) -> None:
    async with cluster.client() as anonymous:
        for path in ("/healthz", "/livez", "/readyz", "/version", "/version/"):
            assert (await anonymous.get(path)).status_code == 200, path
        response = await anonymous.get("/api")
        assert response.status_code == 403
        assert response.json() == {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": 'forbidden: User "system:anonymous" cannot get path "/api"',
            "reason": "Forbidden",
            "details": {},
            "code": 403,
        }
        response = await anonymous.get("/api/v1/namespaces")
        assert response.json()["message"] == (
            'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" '
            'in API group "" at the cluster scope'
        )
        assert response.json()["details"] == {"kind": "namespaces"}


async def test_masters_are_cluster_admins(cluster: Cluster) -> None:
    async with cluster.admin() as admin:
        assert (await admin.get("/api/v1/namespaces")).status_code == 200
        assert (await admin.get("/metrics-or-anything")).status_code == 404


async def test_a_user_without_bindings_is_forbidden_until_bound_to_edit(cluster: Cluster) -> None:
    async with cluster.client("alice") as alice, cluster.admin() as admin:
        assert (await alice.get("/api")).status_code == 200  # system:discovery, as authenticated
        response = await alice.get(PODS)
        assert response.status_code == 403
        assert response.json()["message"] == (
            'pods is forbidden: User "alice" cannot list resource "pods" in API group "" '
            'in the namespace "default"'
        )
        response = await alice.get(f"{PODS}/web/log")
        assert response.json()["message"] == (
            'pods "web" is forbidden: User "alice" cannot get resource "pods/log" in API group "" '
            'in the namespace "default"'
        )
        assert response.json()["details"] == {"name": "web", "kind": "pods"}
        await admin.post(ROLE_BINDINGS, json=binding("alice-edit", "edit"))
        await admin.post(
            CLUSTER_ROLES, json=role("pod-reader", rule(["get", "list"], ["pods"]), kind="ClusterRole")
        )
        await admin.post(ROLE_BINDINGS, json=binding("alice-read", "pod-reader"))
        assert (await alice.get(PODS)).status_code == 200
        response = await alice.get("/api/v1/namespaces/kube-system/pods")
        assert response.status_code == 403
        assert 'in the namespace "kube-system"' in response.json()["message"]
        response = await alice.get("/api/v1/nodes")
        assert response.json()["message"].endswith(
            'cannot list resource "nodes" in API group "" at the cluster scope'
        )


async def test_resource_names_subresources_and_service_accounts(cluster: Cluster) -> None:
    sa_user = "system:serviceaccount:default:robot"
    async with cluster.admin() as admin, cluster.client(sa_user, ("system:serviceaccounts",)) as robot:
        for name in ("a", "b"):
            await admin.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": name}})
        rules = [
            rule(["get", "list", "watch"], ["configmaps"], resourceNames=["a"]),
            rule(["get"], ["*/status"]),
        ]
        assert (await admin.post(ROLES, json=role("robot", *rules))).status_code == 201
        robot_binding = binding("robot", "robot", role_kind="Role")
        robot_binding["subjects"] = [{"kind": "ServiceAccount", "name": "robot"}]  # namespace: the binding's
        assert (await admin.post(ROLE_BINDINGS, json=robot_binding)).status_code == 201
        configmaps = "/api/v1/namespaces/default/configmaps"
        assert (await robot.get(f"{configmaps}/a")).status_code == 200
        assert (await robot.get(f"{configmaps}/b")).status_code == 403
        assert (await robot.get(configmaps)).status_code == 403
        assert (await robot.get(configmaps, params={"fieldSelector": "metadata.name=a"})).status_code == 200
        assert (await robot.get(f"{PODS}/web/status")).status_code == 404  # allowed, not there
        assert (await robot.get(f"{PODS}/web")).status_code == 403


async def test_a_binding_to_a_missing_role_is_reported(cluster: Cluster) -> None:
    async with cluster.admin() as admin, cluster.client("alice") as alice:
        await admin.post(ROLE_BINDINGS, json=binding("dangling", "nope", role_kind="Role"))
        response = await alice.get(PODS)
        assert response.json()["message"] == (
            'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace '
            '"default": RBAC: role.rbac.authorization.k8s.io "nope" not found'
        )
