"""The link rewriting of the proxy subresources (upstream's proxy ``Transport``), the path
joining and the name segment split, as functions."""

from __future__ import annotations

import gzip
import zlib

import pytest

from apiserver.endpoints.proxy import join_preserving_trailing_slash
from apiserver.endpoints.proxylocation import split_scheme_name_port
from apiserver.endpoints.proxyrewrite import rewrite_html, rewrite_url

PREFIX = "/api/v1/namespaces/default/services/web:80/proxy"
BACKEND = "127.128.0.5:8080"
HOST = "127.0.0.1:8001"


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ("/login", f"{PREFIX}/login"),
        ("/a/b/", f"{PREFIX}/a/b/"),
        ("/q?x=1#top", f"{PREFIX}/q?x=1#top"),
        (f"http://{BACKEND}/x", f"{PREFIX}/x"),  # the backend itself: made host-relative
        (f"http://{HOST}/x", f"http://{HOST}{PREFIX}/x"),  # the host the client asked: kept
        ("http://example.com/x", "http://example.com/x"),
        ("relative/page", "relative/page"),
        ("", ""),
        (f"{PREFIX}/already", f"{PREFIX}/already"),
        ("/a b", f"{PREFIX}/a%20b"),
    ],
)
def test_links_to_the_backend_go_through_the_proxy(link: str, expected: str) -> None:
    assert rewrite_url(link, BACKEND, HOST, PREFIX) == expected


def rewrite(link: str) -> str:
    return rewrite_url(link, BACKEND, HOST, PREFIX)


def test_only_url_attributes_of_upstreams_tags_change_and_the_rest_is_kept_byte_for_byte() -> None:
    page = (
        "<!DOCTYPE html>\n<HTML><Body>\n<A HREF='/x' class=c>x</A><div data-href=\"/no\">é</div>\n"
        '<script>var s = \'<a href="/inside">\';</script><!-- <a href="/comment"> -->'
        '<form action="/post" method=post><input type=image src=/i.png></form></Body></HTML>'
    )
    out = rewrite_html(page.encode(), "", rewrite)
    assert out is not None
    expected = (
        f'<!DOCTYPE html>\n<HTML><Body>\n<a href="{PREFIX}/x" class="c">x</A><div data-href="/no">é</div>\n'
        '<script>var s = \'<a href="/inside">\';</script><!-- <a href="/comment"> -->'
        f'<form action="{PREFIX}/post" method="post"><input type="image" src="{PREFIX}/i.png"></form>'
        "</Body></HTML>"
    )
    assert out.decode() == expected


def test_gzip_and_deflate_pages_are_rewritten_and_reencoded() -> None:
    page = b'<a href="/x">x</a>'
    zipped = rewrite_html(gzip.compress(page), "gzip", rewrite)
    assert zipped is not None and gzip.decompress(zipped) == f'<a href="{PREFIX}/x">x</a>'.encode()
    raw = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    deflated = rewrite_html(raw.compress(page) + raw.flush(), "deflate", rewrite)
    assert deflated is not None
    assert zlib.decompress(deflated, -zlib.MAX_WBITS) == f'<a href="{PREFIX}/x">x</a>'.encode()


def test_a_page_in_an_unknown_or_broken_encoding_is_passed_on(caplog: pytest.LogCaptureFixture) -> None:
    assert rewrite_html(b"whatever", "br", rewrite) is None
    assert rewrite_html(b"not gzip", "gzip", rewrite) is None
    assert len(caplog.records) == 2


def test_invalid_utf8_survives_unchanged() -> None:
    page = b'\xff\xfe<a href="/x">\xc3</a>'
    assert rewrite_html(page, "", rewrite) == b'\xff\xfe<a href="' + PREFIX.encode() + b'/x">\xc3</a>'


@pytest.mark.parametrize(
    ("path", "joined"),
    [
        ("", ""),
        ("/", "/"),
        ("/a/../b", "/b"),
        ("/a//b/", "/a/b/"),
        ("/../x", "/x"),
        ("//a", "/a"),
        ("/a/.", "/a"),
    ],
)
def test_paths_are_joined_as_go_joins_them(path: str, joined: str) -> None:
    assert join_preserving_trailing_slash(path) == joined


@pytest.mark.parametrize(
    ("segment", "split"),
    [
        ("web", ("", "web", "")),
        ("web:80", ("", "web", "80")),
        ("https:web:443", ("https", "web", "443")),
        ("http:web:", ("http", "web", "")),
        ("ftp:web:80", None),
        (":80", None),
        ("a:b:c:d", None),
    ],
)
def test_name_segments_split_as_upstream(segment: str, split: tuple[str, str, str] | None) -> None:
    assert split_scheme_name_port(segment) == split
