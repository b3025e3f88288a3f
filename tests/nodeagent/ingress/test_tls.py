"""TLS termination over real loopback TLS: the certificate of an Ingress host comes from the
``kubernetes.io/tls`` Secret its ``spec.tls`` names, chosen by SNI (exact and ``*.``
wildcard); an unknown name, a missing Secret or one of another type get the fake
certificate (logged once); the backend sees ``X-Forwarded-Proto: https``."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import ssl
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from minikube_py.client.resourcetypes import SECRETS
from minikube_py.pkiutil import issue_serving_certificate, key_pem, new_certificate_authority
from nodeagent.ingress.tls import FAKE_CERTIFICATE_NAME
from tests.nodeagent.ingress.backends import Backend
from tests.nodeagent.ingress.harness import endpoint_slice, ingress, rule, running_controller, seeded, service
from tests.waiting import eventually

CA = new_certificate_authority("test ingress CA")


def tls_secret(name: str, *hosts: str, kind: str = "kubernetes.io/tls") -> dict[str, Any]:
    certificate, key = issue_serving_certificate(CA, dns_names=list(hosts), ip_addresses=[])
    pem = certificate.public_bytes(serialization.Encoding.PEM)
    data = {"tls.crt": base64.b64encode(pem).decode(), "tls.key": base64.b64encode(key_pem(key)).decode()}
    return {"metadata": {"name": name, "namespace": "default"}, "type": kind, "data": data}


@pytest.fixture
async def backend() -> AsyncIterator[Backend]:
    made = await Backend("a").start()
    yield made
    await made.stop()


def trusting() -> ssl.SSLContext:
    context = ssl.create_default_context(
        cadata=CA.certificate.public_bytes(serialization.Encoding.PEM).decode()
    )
    return context


async def https_get(port: int, server_name: str, context: ssl.SSLContext) -> tuple[bytes, x509.Certificate]:
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", port, ssl=context, server_hostname=server_name
    )
    peer = writer.get_extra_info("ssl_object").getpeercert(binary_form=True)
    writer.write(f"GET /tls HTTP/1.1\r\nHost: {server_name}\r\nConnection: close\r\n\r\n".encode())
    answer = await reader.read()
    writer.close()
    return answer, x509.load_der_x509_certificate(peer)


def unverified() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


async def test_sni_picks_the_ingress_secret_and_the_backend_sees_https(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "ingress")
    fake = seeded(
        ingress(
            "secure",
            rule("secure.localhost", ("/", "Prefix", "a", 80)),
            rule("x.wild.localhost", ("/", "Prefix", "a", 80)),
            rule("gone.localhost", ("/", "Prefix", "a", 80)),
            rule("opaque.localhost", ("/", "Prefix", "a", 80)),
            tls=[
                {"hosts": ["secure.localhost"], "secretName": "secure-tls"},
                {"hosts": ["*.wild.localhost"], "secretName": "wild-tls"},
                {"hosts": ["gone.localhost"], "secretName": "nowhere"},
                {"hosts": ["opaque.localhost"], "secretName": "opaque"},
            ],
        ),
        services=[service("a")],
        slices=[endpoint_slice("a", backend.port)],
        secrets=(
            tls_secret("secure-tls", "secure.localhost"),
            tls_secret("wild-tls", "*.wild.localhost"),
            tls_secret("opaque", "opaque.localhost", kind="Opaque"),
        ),
    )
    async with running_controller(fake) as ing:
        await eventually(
            lambda: ing.controller.certificates.context_for("secure.localhost"), "the secret's context"
        )
        answer, _ = await https_get(ing.tls_port, "secure.localhost", trusting())
        assert answer.startswith(b"HTTP/1.1 200 ")
        seen = json.loads(answer.split(b"\r\n\r\n", 1)[1])
        assert (seen["headers"]["x-forwarded-proto"], seen["headers"]["x-forwarded-port"]) == (
            "https",
            str(ing.tls_port),
        )
        wild, _ = await https_get(ing.tls_port, "x.wild.localhost", trusting())
        assert wild.startswith(b"HTTP/1.1 200 ")
        for name in ("unknown.localhost", "gone.localhost", "opaque.localhost", "gone.localhost"):
            _, fake_cert = await https_get(ing.tls_port, name, unverified())
            assert fake_cert.issuer.rfc4514_string() == f"CN={FAKE_CERTIFICATE_NAME}"
        with pytest.raises(ssl.SSLCertVerificationError):
            await https_get(ing.tls_port, "unknown.localhost", trusting())
    warnings = [r.getMessage() for r in caplog.records if "TLS secret" in r.getMessage()]
    assert warnings == [
        'ingress: TLS secret "default/nowhere" does not exist or is not of type kubernetes.io/tls; '
        "serving the fake certificate",
        'ingress: TLS secret "default/opaque" does not exist or is not of type kubernetes.io/tls; '
        "serving the fake certificate",
    ]


async def test_a_renewed_secret_is_served_at_once(backend: Backend) -> None:
    fake = seeded(
        ingress(
            "secure",
            rule("secure.localhost", ("/", "Prefix", "a", 80)),
            tls=[{"hosts": ["secure.localhost"], "secretName": "s"}],
        ),
        services=[service("a")],
        slices=[endpoint_slice("a", backend.port)],
        secrets=(tls_secret("s", "secure.localhost"),),
    )
    async with running_controller(fake) as ing:
        _, first = await https_get(ing.tls_port, "secure.localhost", trusting())
        renewed = tls_secret("s", "secure.localhost")
        stored = fake.stored(SECRETS, "default", "s")
        assert stored is not None
        await fake.resource(SECRETS, "default").update({**stored, "data": renewed["data"]})

        async def serial() -> bool:
            _, now = await https_get(ing.tls_port, "secure.localhost", trusting())
            return now.serial_number != first.serial_number

        await eventually(serial, "the renewed certificate")


async def test_plain_http_to_a_tls_host_is_redirected_unless_the_ingress_opts_out(backend: Backend) -> None:
    opted_out = ingress(
        "plain",
        rule("both.localhost", ("/", "Prefix", "a", 80)),
        tls=[{"hosts": ["both.localhost"], "secretName": "s"}],
    )
    opted_out["metadata"]["annotations"] = {"nginx.ingress.kubernetes.io/ssl-redirect": "false"}
    fake = seeded(
        ingress(
            "secure",
            rule("secure.localhost", ("/", "Prefix", "a", 80)),
            tls=[{"hosts": ["secure.localhost"], "secretName": "s"}],
        ),
        opted_out,
        services=[service("a")],
        slices=[endpoint_slice("a", backend.port)],
        secrets=(tls_secret("s", "secure.localhost", "both.localhost"),),
    )
    async with running_controller(fake) as ing, httpx.AsyncClient(base_url=ing.url) as http:
        moved = await http.get("/app?x=1", headers={"Host": "secure.localhost"})
        assert moved.status_code == 308
        assert moved.headers["location"] == f"https://secure.localhost:{ing.tls_port}/app?x=1"
        served = await http.get("/", headers={"Host": "both.localhost"})
        assert served.status_code == 200 and served.json()["headers"]["x-forwarded-proto"] == "http"
        answer, _ = await https_get(ing.tls_port, "secure.localhost", trusting())
        assert answer.startswith(b"HTTP/1.1 200 ")  # HTTPS itself is not redirected
