"""The root CA certificate publisher: a ``kube-root-ca.crt`` ConfigMap with the cluster CA
bundle in every active namespace (upstream's ``pkg/controller/certificates/rootcacertpublisher``,
``Publisher``)."""

from controllers.rootcacertpublisher.publisher import RootCACertPublisher

__all__ = ["RootCACertPublisher"]
