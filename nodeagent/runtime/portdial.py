"""The process runtime's CRI ``PortForward``: a TCP connection to a port of a sandbox.

Pods share the host's network on loopback pod IPs (``podip``), so reaching a port "inside the
pod" is dialling the pod IP. A failure carries Go's wording, as containerd's does
(``failed to connect to ... inside the pod: dial tcp4 127.128.0.5:9: connect: connection refused``).
"""

from __future__ import annotations

import asyncio
import os

from nodeagent.runtime.interface import PortForwardError

DIAL_TIMEOUT = 5.0


async def dial_pod(pod_ip: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect to ``pod_ip:port``; raises ``PortForwardError``."""
    try:
        return await asyncio.wait_for(asyncio.open_connection(pod_ip, port), DIAL_TIMEOUT)
    except (OSError, TimeoutError) as err:
        why = os.strerror(err.errno).lower() if isinstance(err, OSError) and err.errno else "i/o timeout"
        address = f"{pod_ip}:{port}"
        raise PortForwardError(
            f"failed to connect to {address} inside the pod: dial tcp4 {address}: connect: {why}"
        ) from None
