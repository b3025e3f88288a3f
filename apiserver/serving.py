"""``ServingOptions``: the apiserver's request limits (upstream's ``ServerRunOptions`` and its
``http.Server`` settings): how long requests may take and how large their heads may be.

Every field has upstream's default; tests pass short timeouts so that nothing waits long.
Request bodies have a fixed limit (``apiserver.endpoints.requestbody``).
"""

from __future__ import annotations

from dataclasses import dataclass

from minikube_py.httphead import MAX_HEADER_BYTES, READ_HEADER_TIMEOUT

REQUEST_TIMEOUT = 60.0  # upstream --request-timeout
MIN_REQUEST_TIMEOUT = 1800.0  # upstream --min-request-timeout


@dataclass(frozen=True)
class ServingOptions:
    """``request_timeout`` (``--request-timeout``, seconds; 0: none) bounds every request but
    the long-running ones (``filters.timeout``); ``min_request_timeout``
    (``--min-request-timeout``) is the least a watch without ``timeoutSeconds`` lasts (it
    lasts a random time in ``[min, 2*min)``); a request head must arrive within
    ``read_header_timeout`` and be at most ``max_header_bytes`` (``minikube_py.httphead``)."""

    request_timeout: float = REQUEST_TIMEOUT
    min_request_timeout: float = MIN_REQUEST_TIMEOUT
    read_header_timeout: float = READ_HEADER_TIMEOUT
    max_header_bytes: int = MAX_HEADER_BYTES
