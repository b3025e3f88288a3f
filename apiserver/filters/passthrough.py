"""The seams the security issue fills: audit, flow control and authorization.

Each is already a stage of the chain (so the order is fixed and tested now); for now they let
every request through. Audit sits outside flow control, as upstream, so throttled requests are
audited too.
"""

from __future__ import annotations
