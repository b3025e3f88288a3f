"""The create-only reviews (TokenReview, SelfSubjectReview, the access reviews): their endpoints
(``apiserver/endpoints/authentication.py``, ``authorization.py``) answer every request before the
store is reached, so their stores hold nothing; the strategy is the plain one."""

from __future__ import annotations

from apiserver.registry.resources.generic import PlainStrategy
from minikube_py.api.models import authentication, authorization


class ReviewStrategy(PlainStrategy):
    """A plain object; never reached for a review, which is answered and stored nowhere."""

    kinds = (
        authentication.TokenReview,
        authentication.SelfSubjectReview,
        authorization.SubjectAccessReview,
        authorization.SelfSubjectAccessReview,
        authorization.LocalSubjectAccessReview,
        authorization.SelfSubjectRulesReview,
    )
