"""Authentication through the in-process apiserver: 401s, TokenRequest, TokenReview,
SelfSubjectReview and discovery."""

from __future__ import annotations

from typing import Any

import httpx

from apiserver.authn import jwt
from tests.authn.conftest import ISSUER, AuthnCluster

UNAUTHORIZED = (
    b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized",'
    b'"reason":"Unauthorized","code":401}\n'
)
SSR = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def whoami(api: httpx.AsyncClient, token: str | None = None, version: str = "v1") -> httpx.Response:
    body = {**SSR, "apiVersion": f"authentication.k8s.io/{version}"}
    headers = bearer(token) if token else {}
    return await api.post(
        f"/apis/authentication.k8s.io/{version}/selfsubjectreviews", json=body, headers=headers
    )


async def create_sa(
    api: httpx.AsyncClient, name: str = "default", namespace: str = "default"
) -> dict[str, Any]:
    response = await api.post(
        f"/api/v1/namespaces/{namespace}/serviceaccounts", json={"metadata": {"name": name}}
    )
    assert response.status_code == 201, response.text
    return dict(response.json())


async def request_token(
    api: httpx.AsyncClient, spec: dict[str, Any], name: str = "default"
) -> httpx.Response:
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec}
    return await api.post(f"/api/v1/namespaces/default/serviceaccounts/{name}/token", json=body)


async def test_unknown_token_is_401_exactly_as_upstream(authn: AuthnCluster) -> None:
    response = await authn.client.get("/api/v1/namespaces", headers=bearer("nope"))
    assert response.status_code == 401
    assert response.content == UNAUTHORIZED


async def test_anonymous_when_nothing_presented(authn: AuthnCluster) -> None:
    response = await whoami(authn.client)
    assert response.status_code == 201
    assert response.json()["status"]["userInfo"] == {
        "username": "system:anonymous",
        "groups": ["system:unauthenticated"],
    }


async def test_no_credentials_without_anonymous_is_401(authn_no_anonymous: AuthnCluster) -> None:
    response = await authn_no_anonymous.client.get("/api/v1/namespaces")
    assert response.status_code == 401
    assert response.content == UNAUTHORIZED
    alice = await whoami(authn_no_anonymous.client, "static-token")
    assert alice.status_code == 201


async def test_static_token_user(authn: AuthnCluster) -> None:
    response = await whoami(authn.client, "static-token", version="v1beta1")
    assert response.status_code == 201
    body = response.json()
    assert body["apiVersion"] == "authentication.k8s.io/v1beta1"
    assert body["status"]["userInfo"] == {
        "username": "alice",
        "uid": "1001",
        "groups": ["dev", "ops", "system:authenticated"],
    }


async def test_token_request_then_the_token_is_the_service_account(authn: AuthnCluster) -> None:
    sa = await create_sa(authn.client)
    response = await request_token(authn.client, {})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["metadata"] == {"name": "default", "namespace": "default", "creationTimestamp": None}
    assert body["spec"] == {"audiences": [ISSUER], "expirationSeconds": 3600, "boundObjectRef": None}
    assert body["status"]["expirationTimestamp"].endswith("Z")
    me = await whoami(authn.client, body["status"]["token"])
    info = me.json()["status"]["userInfo"]
    assert info["username"] == "system:serviceaccount:default:default"
    assert info["uid"] == sa["metadata"]["uid"]
    assert info["groups"] == [
        "system:serviceaccounts",
        "system:serviceaccounts:default",
        "system:authenticated",
    ]
    assert info["extra"]["authentication.kubernetes.io/credential-id"][0].startswith("JTI=")


async def test_token_of_a_deleted_service_account_is_401(authn: AuthnCluster) -> None:
    await create_sa(authn.client, "gone")
    token = (await request_token(authn.client, {}, "gone")).json()["status"]["token"]
    assert (await whoami(authn.client, token)).status_code == 201
    await authn.client.delete("/api/v1/namespaces/default/serviceaccounts/gone")
    response = await whoami(authn.client, token)
    assert response.status_code == 401
    assert response.content == UNAUTHORIZED


async def test_token_request_validation(authn: AuthnCluster) -> None:
    short = await request_token(authn.client, {"expirationSeconds": 599})
    assert short.status_code == 422
    assert short.json()["message"] == (
        'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: '
        "may not specify a duration less than 10 minutes"
    )
    missing = await request_token(authn.client, {}, "nobody")
    assert missing.status_code == 404
    assert missing.json()["message"] == 'serviceaccounts "nobody" not found'


async def test_token_bound_to_a_secret(authn: AuthnCluster) -> None:
    await create_sa(authn.client)
    created = await authn.client.post("/api/v1/namespaces/default/secrets", json={"metadata": {"name": "s"}})
    uid = created.json()["metadata"]["uid"]
    ref = {"kind": "Secret", "apiVersion": "v1", "name": "s", "uid": "wrong"}
    conflict = await request_token(authn.client, {"boundObjectRef": ref})
    assert conflict.status_code == 409
    assert conflict.json()["message"] == (
        'Operation cannot be fulfilled on Secret "s": the UID in the bound object reference (wrong) does not '
        "match the UID in record. The object might have been deleted and then recreated"
    )
    wrong_kind = await request_token(
        authn.client, {"boundObjectRef": {"kind": "ConfigMap", "apiVersion": "v1", "name": "c"}}
    )
    assert wrong_kind.json()["message"] == "cannot bind token to object of type /v1, Kind=ConfigMap"
    response = await request_token(
        authn.client, {"boundObjectRef": {**ref, "uid": uid}, "audiences": [ISSUER]}
    )
    token = response.json()["status"]["token"]
    assert (await whoami(authn.client, token)).status_code == 201
    await authn.client.delete("/api/v1/namespaces/default/secrets/s")
    assert (await whoami(authn.client, token)).status_code == 401


async def test_token_review(authn: AuthnCluster) -> None:
    await create_sa(authn.client)
    token = (await request_token(authn.client, {})).json()["status"]["token"]
    review = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}}
    response = await authn.client.post("/apis/authentication.k8s.io/v1/tokenreviews", json=review)
    assert response.status_code == 201
    status = response.json()["status"]
    assert status["authenticated"] is True
    assert status["user"]["username"] == "system:serviceaccount:default:default"
    assert status["audiences"] == [ISSUER]
    review["spec"] = {"token": token, "audiences": ["vault"]}
    other = await authn.client.post("/apis/authentication.k8s.io/v1/tokenreviews", json=review)
    assert other.json()["status"] == {
        "user": {},
        "error": f'token audiences ["{ISSUER}"] is invalid for the target audiences ["vault"]',
    }
    review["spec"] = {"token": "nope"}
    unknown = await authn.client.post("/apis/authentication.k8s.io/v1/tokenreviews", json=review)
    assert unknown.json()["status"] == {"user": {}, "error": "invalid bearer token"}
    listed = await authn.client.get("/apis/authentication.k8s.io/v1/tokenreviews")
    assert listed.status_code == 405


async def test_discovery_lists_the_reviews(authn: AuthnCluster) -> None:
    response = await authn.client.get("/apis/authentication.k8s.io/v1")
    resources = {r["name"]: r["verbs"] for r in response.json()["resources"]}
    assert resources == {"tokenreviews": ["create"], "selfsubjectreviews": ["create"]}
    group = await authn.client.get("/apis/authentication.k8s.io")
    assert group.json()["preferredVersion"]["version"] == "v1"


async def test_a_token_whose_exp_is_a_string_is_401(authn: AuthnCluster) -> None:
    """Issue 13 item 6: the string was skipped, so such a token never expired."""
    await create_sa(authn.client)
    issued = await request_token(authn.client, {"audiences": [ISSUER], "expirationSeconds": 3600})
    token = issued.json()["status"]["token"]
    assert (await whoami(authn.client, token)).status_code == 201
    claims = {**jwt.unverified_claims(token), "exp": "99999999999"}
    forged = jwt.sign(claims, authn.key)  # the cluster's own key: only the claim's type is wrong
    response = await authn.client.get("/api/v1/namespaces", headers=bearer(forged))
    assert (response.status_code, response.content) == (401, UNAUTHORIZED)
