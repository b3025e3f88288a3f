"""The WebSocket port-forward channel protocols' pieces: the ``port`` query, subprotocol
negotiation and the binary and base64 framings (served end to end in
``tests/nodeagent/e2e/test_portforward_clients.py``)."""

from __future__ import annotations

import pytest

from nodeagent.node.streams.channelforward import ChannelCodec, negotiate, parse_ports, refusal
from nodeagent.node.streams.websocket import BINARY, TEXT


@pytest.mark.parametrize(
    ("values", "ports"),
    [
        (["80"], [80]),
        (["80,8080", "9"], [80, 8080, 9]),
        (["00443"], [443]),
        (["65535"], [65535]),
        ([",".join(["80"] * 100)], [80] * 100),
    ],
)
def test_ports_repeat_and_split_at_commas(values: list[str], ports: list[int]) -> None:
    assert parse_ports(values) == ports


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([], 'query parameter "port" is required'),
        ([""], 'query parameter "port" cannot be empty'),
        (["80,"], 'unable to parse "80," as a port: strconv.ParseUint: parsing "": invalid syntax'),
        (["http"], 'unable to parse "http" as a port: strconv.ParseUint: parsing "http": invalid syntax'),
        (["+80"], 'unable to parse "+80" as a port: strconv.ParseUint: parsing "+80": invalid syntax'),
        (["8_0"], 'unable to parse "8_0" as a port: strconv.ParseUint: parsing "8_0": invalid syntax'),
        (
            ["65536"],
            'unable to parse "65536" as a port: strconv.ParseUint: parsing "65536": value out of range',
        ),
        (["9" * 5000], "value out of range"),
        (["80,0"], 'port "80,0" must be > 0'),
        ([",".join(["80"] * 101)], "at most 100 ports can be forwarded over one WebSocket connection"),
    ],
)
def test_bad_ports_get_the_kubelets_messages(values: list[str], message: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_ports(values)
    assert message in str(refused.value)


@pytest.mark.parametrize(
    ("offered", "chosen"),
    [
        ([], ""),
        (["v5.channel.k8s.io", "v4.channel.k8s.io"], "v4.channel.k8s.io"),
        (["v4.base64.channel.k8s.io", "v4.channel.k8s.io"], "v4.base64.channel.k8s.io"),
        (["channel.k8s.io", "base64.channel.k8s.io"], None),  # the kubelet serves only the v4 names
        (["v5.channel.k8s.io"], None),
    ],
)
def test_the_first_offered_protocol_served_wins(offered: list[str], chosen: str | None) -> None:
    assert negotiate(offered) == chosen


def test_the_refusal_names_both_lists() -> None:
    assert refusal(["v5.channel.k8s.io"]) == (
        "requested protocol(s) are not supported: [v5.channel.k8s.io]; "
        "supports [ v4.channel.k8s.io v4.base64.channel.k8s.io]"
    )


def test_binary_framing() -> None:
    codec = ChannelCodec.for_protocol("v4.channel.k8s.io")
    assert codec.encode(3, b"\x50\x00") == (BINARY, b"\x03\x50\x00")
    assert codec.decode(b"\x02data") == (2, b"data")
    assert codec.decode(b"\x00") == (0, b"")
    assert codec.decode(b"") is None


def test_base64_framing() -> None:
    codec = ChannelCodec.for_protocol("v4.base64.channel.k8s.io")
    assert codec.encode(1, b"\x50\x00") == (TEXT, b"1UAA=")
    assert codec.decode(b"0aGk=") == (0, b"hi")
    assert codec.decode(b"0aG\r\nk=") == (0, b"hi")  # line breaks ignored, as Go's decoder does
    assert codec.decode(b"0aGk") is None  # padding required
    assert codec.decode(b"0not base64!") is None
