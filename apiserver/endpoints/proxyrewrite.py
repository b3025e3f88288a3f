"""Links in proxied responses made to go through the proxy again: upstream's proxy ``Transport``
(``k8s.io/apimachinery/pkg/util/proxy/transport.go``), which the pod, service and node proxies
wrap their transport in.

A ``Location`` header, and in an HTML page (``text/html``, plain, gzip or deflate) the URL
attributes of upstream's list of tags (``<a href>``, ``<img src>``, ``<link href>``, ``<form
action>``...), are rewritten when they point at the backend itself: an absolute path, or an
absolute URL whose host is the backend's or the request's ``Host``. They become
``<prefix><path>``, the prefix being the request's path up to the proxied path
(``/api/v1/namespaces/default/services/web:80/proxy``), so ``/static/app.css`` on a page opened
through ``kubectl proxy`` loads through the proxy too. Relative links and links to other hosts
stay as they are; a path that already carries the prefix is not prefixed twice.

Only the rewritten tags change (re-serialized as Go's ``Token.String`` writes them: lower-case
names, every value double-quoted and escaped); the rest of the page is copied byte for byte,
where upstream re-serializes every start tag.
"""

from __future__ import annotations

import gzip
import logging
import posixpath
import zlib
from collections.abc import Callable
from html.parser import HTMLParser
from urllib.parse import quote, unquote, urlsplit, urlunsplit

logger = logging.getLogger("apiserver")

# upstream's atomsToAttrs: which attributes of which tags hold URLs
URL_ATTRIBUTES: dict[str, frozenset[str]] = {
    "a": frozenset({"href"}),
    "applet": frozenset({"codebase"}),
    "area": frozenset({"href"}),
    "audio": frozenset({"src"}),
    "base": frozenset({"href"}),
    "blockquote": frozenset({"cite"}),
    "body": frozenset({"background"}),
    "button": frozenset({"formaction"}),
    "command": frozenset({"icon"}),
    "del": frozenset({"cite"}),
    "embed": frozenset({"src"}),
    "form": frozenset({"action"}),
    "frame": frozenset({"longdesc", "src"}),
    "head": frozenset({"profile"}),
    "html": frozenset({"manifest"}),
    "iframe": frozenset({"longdesc", "src"}),
    "img": frozenset({"longdesc", "src", "usemap"}),
    "input": frozenset({"src", "usemap", "formaction"}),
    "ins": frozenset({"cite"}),
    "link": frozenset({"href"}),
    "object": frozenset({"classid", "codebase", "data", "usemap"}),
    "q": frozenset({"cite"}),
    "script": frozenset({"src"}),
    "source": frozenset({"src"}),
    "video": frozenset({"poster", "src"}),
}
REWRITABLE_ENCODINGS = ("", "gzip", "deflate")
PATH_SAFE = "/$&+,:;=@"  # what Go leaves unescaped in a URL path
_GO_ESCAPES = {"&": "&amp;", "'": "&#39;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "\r": "&#13;"}


def rewrite_url(target: str, backend_host: str, request_host: str, prefix: str) -> str:
    """Upstream's ``rewriteURL``: ``target`` through the proxy when it points at the backend
    (``backend_host``) or at the host the client asked (``request_host``); else unchanged."""
    try:
        parts = urlsplit(target)
    except ValueError:
        return target
    other_host = parts.netloc != "" and parts.netloc not in (backend_host, request_host)
    if other_host or not parts.path.startswith("/"):
        return target
    scheme, netloc = (parts.scheme, parts.netloc) if parts.netloc == request_host else ("", "")
    path = parts.path
    if not unquote(path).startswith(prefix):
        joined = _clean(prefix + "/" + unquote(path))
        if path.endswith("/") and not joined.endswith("/"):
            joined += "/"
        path = quote(joined, safe=PATH_SAFE)
    # upstream's Transport has no scheme or host of its own: a link to the backend becomes
    # host-relative, one to the host the client asked keeps it
    return urlunsplit((scheme, netloc, path, parts.query, parts.fragment))


def _clean(path: str) -> str:
    cleaned = posixpath.normpath(path)
    return "/" + cleaned.lstrip("/") if cleaned.startswith("//") else cleaned


def rewrite_html(body: bytes, encoding: str, rewrite: Callable[[str], str]) -> bytes | None:
    """The page with its links rewritten, encoded as it came; None for an encoding upstream
    does not understand (then the page is passed on as it is)."""
    if encoding not in REWRITABLE_ENCODINGS:
        logger.warning("proxy got text/html in encoding %s: its links are not rewritten", encoding)
        return None
    try:
        if encoding == "gzip":
            plain = gzip.decompress(body)
        elif encoding == "deflate":  # upstream reads raw DEFLATE; accept zlib-wrapped too
            plain = _inflate(body)
        else:
            plain = body
    except (OSError, EOFError, zlib.error) as err:
        logger.warning("proxy could not decode a %s text/html body: %s", encoding, err)
        return None
    # UTF-8 as upstream assumes; bytes that are not survive unchanged (surrogateescape)
    text = plain.decode("utf-8", errors="surrogateescape")
    rewritten = _LinkRewriter(text, rewrite).result().encode("utf-8", errors="surrogateescape")
    if encoding == "gzip":
        return gzip.compress(rewritten)
    if encoding == "deflate":
        deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
        return deflate.compress(rewritten) + deflate.flush()
    return rewritten


def _inflate(body: bytes) -> bytes:
    try:
        return zlib.decompress(body, -zlib.MAX_WBITS)
    except zlib.error:
        return zlib.decompress(body)


class _LinkRewriter(HTMLParser):
    """Finds the start tags with URL attributes and splices rewritten tags into the text."""

    def __init__(self, text: str, rewrite: Callable[[str], str]) -> None:
        super().__init__(convert_charrefs=True)
        self._text = text
        self._rewrite = rewrite
        self._line_starts = [0]
        for index, char in enumerate(text):
            if char == "\n":
                self._line_starts.append(index + 1)
        self._edits: list[tuple[int, int, str]] = []

    def result(self) -> str:
        self.feed(self._text)
        self.close()
        out, position = [], 0
        for start, end, replacement in self._edits:
            out += [self._text[position:start], replacement]
            position = end
        out.append(self._text[position:])
        return "".join(out)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, closing=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, closing=True)

    def _tag(self, tag: str, attrs: list[tuple[str, str | None]], *, closing: bool) -> None:
        names = URL_ATTRIBUTES.get(tag)
        raw = self.get_starttag_text()
        if not names or raw is None:
            return
        values = [(key, value or "") for key, value in attrs]
        rewritten = [(key, self._rewrite(value) if key in names else value) for key, value in values]
        if rewritten == values:
            return
        line, column = self.getpos()
        start = self._line_starts[line - 1] + column
        if self._text[start : start + len(raw)] != raw:  # never expected: leave the tag alone
            return
        body = "".join(f' {key}="{_go_escape(value)}"' for key, value in rewritten)
        self._edits.append((start, start + len(raw), f"<{tag}{body}{'/>' if closing else '>'}"))


def _go_escape(value: str) -> str:
    return "".join(_GO_ESCAPES.get(char, char) for char in value)
