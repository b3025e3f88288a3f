"""``AuditContext``: one request's audit event in the making (upstream's ``AuditContext``).

Created for every request by the audit-init filter with the server's ``AuditConfig`` (the
audit ID and the annotations exist before anything else runs); ``start`` is called once the
policy decided a level other than ``None`` and fills the request metadata. Each
``process_stage`` call sends the event as it is at that moment to the sink, unless the policy
omits that stage. Bodies: ``request_object`` and ``response_object`` are kept only at
``Request`` / ``RequestResponse``; a ``Status`` response always fills ``responseStatus``
(code, status, message, reason, details).
"""

from __future__ import annotations

import time
from typing import Any

from starlette.types import Scope

from apiserver.audit import metadata
from apiserver.audit.backend import Sink
from apiserver.audit.config import AuditConfig
from apiserver.audit.policy import (
    LEVELS,
    NONE,
    REQUEST,
    REQUEST_RECEIVED,
    REQUEST_RESPONSE,
    RequestAuditConfig,
)
from apiserver.request.info import RequestInfo
from apiserver.request.user import UserInfo

GROUP_VERSION = "audit.k8s.io/v1"


class AuditContext:
    __slots__ = (
        "annotations",
        "audit_id",
        "auditing",
        "config",
        "impersonated_user",
        "object_ref",
        "received",
        "request",
        "request_object",
        "response_object",
        "response_status",
        "sink",
        "user",
    )

    def __init__(
        self, audit_id: str, received: float, annotations: dict[str, str], auditing: AuditConfig | None = None
    ) -> None:
        self.audit_id = audit_id
        self.auditing = auditing  # how requests are audited; None: not at all
        self.received = received
        self.annotations = annotations
        self.config: RequestAuditConfig | None = None
        self.sink: Sink | None = None
        self.request: dict[str, Any] = {}
        self.user: dict[str, Any] = {}
        self.impersonated_user: dict[str, Any] | None = None
        self.object_ref: dict[str, str] | None = None
        self.response_status: dict[str, Any] | None = None
        self.request_object: Any = None
        self.response_object: Any = None

    @property
    def level(self) -> str:
        return self.config.level if self.config else NONE

    def at_least(self, level: str) -> bool:
        return LEVELS.index(self.level) >= LEVELS.index(level)

    def start(
        self,
        config: RequestAuditConfig,
        sink: Sink,
        scope: Scope,
        user: UserInfo | None,
        info: RequestInfo,
    ) -> None:
        """Record the request's metadata (upstream's ``LogRequestMetadata``)."""
        self.config, self.sink = config, sink
        self.request = {
            "requestURI": metadata.request_uri(scope),
            "verb": info.verb,
        }
        self.user = metadata.user_json(user)
        self.object_ref = metadata.object_ref(info)
        self.request["userAgent"], self.request["sourceIPs"] = metadata.client_headers(scope)

    def set_code(self, code: int) -> None:
        if self.response_status is None:
            self.response_status = {"metadata": {}}
        self.response_status["code"] = code

    def log_status(self, status: dict[str, Any]) -> None:
        """A ``Status`` response: keep its bounded fields (upstream's ``LogResponseObject``)."""
        out: dict[str, Any] = {"metadata": {}}
        for key in ("status", "message", "reason", "details", "code"):
            if status.get(key):
                out[key] = status[key]
        if self.response_status and "code" in self.response_status:
            out["code"] = self.response_status["code"]  # the code sent wins, as upstream
        self.response_status = out

    def log_impersonated_user(self, user: UserInfo) -> None:
        self.impersonated_user = metadata.user_json(user)

    def enrich_object_ref(self, obj: dict[str, Any]) -> None:
        """Name, namespace, uid and resourceVersion from a create/update body, when the URL
        did not give them (upstream's ``LogRequestObject``)."""
        meta = obj.get("metadata")
        if self.object_ref is None or not isinstance(meta, dict):
            return
        for ref_key, meta_key in (
            ("namespace", "namespace"),
            ("name", "name"),
            ("uid", "uid"),
            ("resourceVersion", "resourceVersion"),
        ):
            value = meta.get(meta_key)
            if value and isinstance(value, str) and ref_key not in self.object_ref:
                self.object_ref[ref_key] = value
        # upstream's field order: resource, namespace, name, uid, apiGroup, apiVersion, rv, sub
        order = (
            "resource",
            "namespace",
            "name",
            "uid",
            "apiGroup",
            "apiVersion",
            "resourceVersion",
            "subresource",
        )
        self.object_ref = {key: self.object_ref[key] for key in order if key in self.object_ref}

    def process_stage(self, stage: str) -> None:
        """Send the event at ``stage`` (unless the policy omits it)."""
        config, sink = self.config, self.sink
        if config is None or sink is None or config.level == NONE or stage in config.omit_stages:
            return
        received = metadata.micro_time(self.received)
        event: dict[str, Any] = {
            "kind": "Event",
            "apiVersion": GROUP_VERSION,
            "level": config.level,
            "auditID": self.audit_id,
            "stage": stage,
            "requestURI": self.request["requestURI"],
            "verb": self.request["verb"],
            "user": self.user,
        }
        if self.impersonated_user is not None:
            event["impersonatedUser"] = self.impersonated_user
        if self.request.get("sourceIPs"):
            event["sourceIPs"] = self.request["sourceIPs"]
        if self.request.get("userAgent"):
            event["userAgent"] = self.request["userAgent"]
        if self.object_ref is not None:
            event["objectRef"] = self.object_ref
        if self.response_status is not None:
            event["responseStatus"] = self.response_status
        if self.request_object is not None and self.at_least(REQUEST):
            event["requestObject"] = self.request_object
        if self.response_object is not None and config.level == REQUEST_RESPONSE:
            event["responseObject"] = self.response_object
        event["requestReceivedTimestamp"] = received
        event["stageTimestamp"] = received if stage == REQUEST_RECEIVED else metadata.micro_time(time.time())
        if self.annotations:
            event["annotations"] = self.annotations
        sink.process_event(event)
