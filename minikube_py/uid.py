"""Random (version 4) UUIDs for object uids and request ids.

Upstream draws uids from a cryptographic source; they must be unique, not secret. Python's
``uuid4`` reads ``os.urandom`` for every uid, a system call that lets other threads take the
GIL on every create; this draws the 122 random bits from ``random`` (Mersenne Twister, seeded
from the OS and reseeded in forked children), about four times cheaper.
"""

from __future__ import annotations

import random

_CLEAR = ~((0xF000 << 64) | (0xC000 << 48))  # the version nibble and the variant bits
_SET = (0x4000 << 64) | (0x8000 << 48)  # version 4, RFC 4122 variant


def new_uuid() -> str:
    """A random UUID in its canonical form (``xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx``)."""
    h = "%032x" % ((random.getrandbits(128) & _CLEAR) | _SET)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
