"""The server builds its authenticator and its authorizer once: the request filters, the review
storage (TokenReview, the access reviews) and ``serviceaccounts/token`` share them (was: the
review endpoints sat in the chain with a second authenticator, a second token cache)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from apiserver.authn import config as authn_config
from apiserver.authn.tokenfile import StaticTokens
from apiserver.filters import authorization as authz_filter
from apiserver.registry.catalog import Catalog
from apiserver.security import SecurityConfig
from apiserver.server import build_app
from apiserver.storage.memory import MemoryKV


async def test_one_authenticator_and_one_authorizer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text("secret-token,alice,uid-1,devs\n")
    parsed: list[Path] = []
    real_parse = StaticTokens.from_csv.__func__  # type: ignore[attr-defined]

    def counting_parse(cls: type[StaticTokens], path: Path) -> Any:
        parsed.append(path)
        return real_parse(cls, path)

    monkeypatch.setattr(authn_config.StaticTokens, "from_csv", classmethod(counting_parse))
    built: list[object] = []
    real_authorizer = authz_filter.new_authz

    def counting_authz(*args: Any) -> Any:
        built.append(args)
        return real_authorizer(*args)

    monkeypatch.setattr(authz_filter, "new_authz", counting_authz)
    kv = MemoryKV()
    security = SecurityConfig(token_auth_file=tokens, authorization_modes=("AlwaysAllow",))
    app = build_app(kv, Catalog(kv), security=security)
    assert parsed == [tokens]
    assert len(built) == 1

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://apiserver") as client:
        review = {
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenReview",
            "spec": {"token": "secret-token"},
        }
        answer = await client.post(
            "/apis/authentication.k8s.io/v1/tokenreviews",
            json=review,
            headers={"Authorization": "Bearer secret-token"},
        )
    assert answer.status_code == 201, answer.text
    assert answer.json()["status"]["user"]["username"] == "alice"
