"""The service account controller: a ``default`` ServiceAccount in every active namespace
(upstream's ``pkg/controller/serviceaccount``, ``ServiceAccountsController``)."""

from controllers.serviceaccount.controller import ServiceAccountController

__all__ = ["ServiceAccountController"]
