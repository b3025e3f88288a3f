"""``Warning`` response headers as upstream's apiserver writes them (its warning recorder
filter and apimachinery's ``NewWarningHeader``).

Each text becomes ``299 - "<text>"`` with ``"`` and ``\\`` escaped and everything else, non-ASCII
included, written as UTF-8 bytes: Go's ``net/http`` sends header bytes as they are, and clients
read them back (Go as UTF-8, Python's ``http.client`` as Latin-1, which keeps the bytes). A text
upstream would refuse (control characters; a Python string that is not valid Unicode) is
dropped, never an error: warnings are written after the request's work is done, so a header must
never turn a committed write into a failure.

Upstream's recorder also bounds the total: texts are deduplicated, empty ones dropped, and once
their characters (runes) exceed 4096 every warning is cut to 256 characters and those past the
budget are dropped.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from starlette.responses import Response

WARNING_HEADER = b"warning"
TRUNCATE_AT_TOTAL_RUNES = 4 * 1024
TRUNCATE_ITEM_RUNES = 256


def warning_header(text: str) -> bytes | None:
    """One ``Warning`` header value (code 299, agent ``-``), or None when upstream's
    ``NewWarningHeader`` would refuse ``text``."""
    if any(_is_control(char) for char in text):
        return None
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    try:
        return f'299 - "{escaped}"'.encode()
    except UnicodeEncodeError:  # lone surrogates: not valid UTF-8, as Go's check would find
        return None


def warning_headers(texts: Iterable[str]) -> list[bytes]:
    """The header values for ``texts`` in order, as upstream's recorder adds them one by one."""
    recorded: list[str] = []
    seen: set[str] = set()
    values: list[bytes] = []
    written, truncating = 0, False
    for text in texts:
        if not text or text in seen:
            continue
        if truncating and written >= TRUNCATE_AT_TOTAL_RUNES:
            break  # upstream returns early for every later warning
        seen.add(text)
        recorded.append(text)
        length = len(text)
        if truncating and length > TRUNCATE_ITEM_RUNES:
            text, length = text[:TRUNCATE_ITEM_RUNES], TRUNCATE_ITEM_RUNES
        value = warning_header(text)
        if value is None:
            continue
        if written + length <= TRUNCATE_AT_TOTAL_RUNES or truncating:
            written += length
            values.append(value)
            continue
        # over budget: start truncating, and replay every warning so far cut to size
        truncating, written, values = True, 0, []
        for earlier in recorded:
            cut = earlier[:TRUNCATE_ITEM_RUNES]
            replayed = warning_header(cut)
            if replayed is not None:
                written += len(cut)
                values.append(replayed)
    return values


def add_warnings(response: Response, texts: Iterable[str]) -> Response:
    """``response`` with the ``Warning`` headers of ``texts`` appended (as raw bytes: Starlette's
    own header API encodes Latin-1, which fails on other characters)."""
    response.raw_headers.extend((WARNING_HEADER, value) for value in warning_headers(texts))
    return response


def _is_control(char: str) -> bool:
    """Go's ``unicode.IsControl``: the C0 and C1 control characters (``Cc``)."""
    return unicodedata.category(char) == "Cc"
