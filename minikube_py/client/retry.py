"""When a failed request is sent again, and after how long (client-go's ``request.go`` retry).

A request is retried when:

* the server answered 429 TooManyRequests (it was turned away before being processed, so any
  method is safe, as client-go does);
* the server answered 5xx with a ``Retry-After`` (503 while starting or stopping, 504 Timeout)
  and the method is idempotent (GET, HEAD, PUT, DELETE, PATCH: a POST may have been applied);
* no answer came (``TransportError``: refused, reset, TLS failure, timed out) and the
  method is idempotent, or for a POST only when the connection was never established
  (``ConnectError``, ``ConnectTimeout``: nothing was sent). A server certificate
  that fails verification, or a body that does not decode, is not retried: neither will change.

The wait is the server's ``Retry-After`` seconds when given, else an exponential backoff
(``initial_backoff`` doubling per retry, at most ``max_backoff``). At most ``max_attempts``
tries in all, and no retry whose wait would pass ``max_total`` seconds since the first try.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass

from minikube_py.client.transport import TransportError

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH"})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Which failures are retried and how long to wait (see the module doc)."""

    max_attempts: int = 5
    initial_backoff: float = 0.1
    max_backoff: float = 5.0
    max_total: float = 10.0

    def retryable_status(self, method: str, status: int, retry_after: float | None) -> bool:
        """Whether an HTTP answer ``status`` (with its ``Retry-After``, if any) is worth a retry."""
        if status == 429:
            return True
        return status >= 500 and retry_after is not None and method.upper() in IDEMPOTENT_METHODS

    def retryable_error(self, method: str, error: TransportError) -> bool:
        """Whether a request that got no answer is worth a retry."""
        if not error.retryable or _caused_by(error, ssl.SSLCertVerificationError):
            return False
        return error.not_sent or method.upper() in IDEMPOTENT_METHODS

    def delay(self, attempt: int, elapsed: float, retry_after: float | None = None) -> float | None:
        """Seconds to wait before try ``attempt + 1`` (``attempt`` counts from 1), or None when
        the tries or the time budget (``elapsed`` seconds spent so far) are used up."""
        if attempt >= self.max_attempts:
            return None
        if retry_after is not None:
            wait = max(0.0, retry_after)
        else:
            wait = min(self.max_backoff, self.initial_backoff * 2 ** (attempt - 1))
        if elapsed + wait > self.max_total:
            return None
        return wait


def _caused_by(error: BaseException, kind: type[BaseException]) -> bool:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def parse_retry_after(value: str | None) -> float | None:
    """``Retry-After`` in seconds (client-go reads only the integer form; so do we)."""
    if not value:
        return None
    try:
        seconds = int(value.strip())
    except ValueError:
        return None
    return float(seconds) if seconds >= 0 else None
