"""Fixtures for the client tests: ``cluster_pki`` (one PKI per session, it takes a moment to
issue) and ``apiserver``, a real HTTPS apiserver on loopback in this process (see
``tests.client.apiserver``), with ``client``, a ``RESTClient`` from its admin kubeconfig."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from minikube_py.client import RESTClient
from minikube_py.pki import ClusterPKI, ensure_cluster_pki
from tests.client.apiserver import RunningApiserver, running_apiserver


@pytest.fixture(scope="session")
def cluster_pki(tmp_path_factory: pytest.TempPathFactory) -> ClusterPKI:
    return ensure_cluster_pki(tmp_path_factory.mktemp("client-pki") / "pki")


@pytest.fixture
async def apiserver(tmp_path: Path, cluster_pki: ClusterPKI) -> AsyncIterator[RunningApiserver]:
    async with running_apiserver(tmp_path, pki=cluster_pki) as running:
        yield running


@pytest.fixture
async def client(apiserver: RunningApiserver) -> AsyncIterator[RESTClient]:
    async with RESTClient.from_kubeconfig(apiserver.kubeconfig) as rest:
        yield rest
