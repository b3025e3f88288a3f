"""Unmodified client libraries against a real ``minikube-py up``: the official ``kubernetes``
client (the shape of its own e2e suite), kubernetes_asyncio, kr8s, and Helm's own binary."""
