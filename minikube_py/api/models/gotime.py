"""Go's ``time.Parse`` for the two layouts API timestamps use, for its error messages.

``metav1.Time`` decodes with ``time.Parse(time.RFC3339, s)`` and ``metav1.MicroTime`` with the
microsecond layout; a timestamp they refuse makes the whole body fail to decode, with Go's
message (``parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"``).
``parse_error`` follows Go's parser element by element to produce the same message.
"""

from __future__ import annotations

import calendar

RFC3339 = "2006-01-02T15:04:05Z07:00"
RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"

# The layouts as Go's parser splits them: (literal prefix, element); apiserver's query
# parameter conversion walks the RFC3339 one too.
LAYOUT_CHUNKS = {
    RFC3339: (("", "2006"), ("-", "01"), ("-", "02"), ("T", "15"), (":", "04"), (":", "05"), ("", "Z07:00")),
    RFC3339_MICRO: (
        ("", "2006"),
        ("-", "01"),
        ("-", "02"),
        ("T", "15"),
        (":", "04"),
        (":", "05"),
        ("", ".000000"),
        ("", "Z07:00"),
    ),
}


class _Bad(Exception):
    pass


def _quote(text: str) -> str:
    out = ['"']
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif " " <= char < "\x7f":
            out.append(char)
        else:
            out.extend(f"\\x{byte:02x}" for byte in char.encode())
    out.append('"')
    return "".join(out)


def _getnum(value: str, fixed: bool) -> tuple[int, str]:
    if not value[:1].isdigit() or not value[:1].isascii():
        raise _Bad
    if len(value) < 2 or not ("0" <= value[1] <= "9"):
        if fixed:
            raise _Bad
        return int(value[0]), value[1:]
    return int(value[:2]), value[2:]


def parse_error(layout: str, text: str) -> str | None:
    """Go's error for ``time.Parse(layout, text)``, or None when it parses."""
    value, fields = text, {"year": 0, "month": 0, "day": 0}
    chunks = LAYOUT_CHUNKS[layout]
    for index, (prefix, element) in enumerate(chunks):
        if not value.startswith(prefix):
            rest = value
            for char in prefix:  # Go skips the prefix character by character
                if not rest.startswith(char):
                    break
                rest = rest[1:]
            return (
                f"parsing time {_quote(text)} as {_quote(layout)}: cannot parse {_quote(rest)} as "
                f"{_quote(prefix)}"
            )
        value = value[len(prefix) :]
        hold, out_of_range = value, ""
        try:
            value, out_of_range = _element(element, value, fields, chunks[index + 1 :])
        except _Bad:
            return (
                f"parsing time {_quote(text)} as {_quote(layout)}: cannot parse {_quote(hold)} as "
                f"{_quote(element)}"
            )
        if out_of_range:
            return f"parsing time {_quote(text)}: {out_of_range} out of range"
    if value:
        return f"parsing time {_quote(text)}: extra text: {_quote(value)}"
    year, month, day = fields["year"], fields["month"], fields["day"]
    if day < 1 or day > calendar.monthrange(year if year > 0 else 2000, month)[1]:
        return f"parsing time {_quote(text)}: day out of range"
    return None


def _element(
    element: str, value: str, fields: dict[str, int], rest: tuple[tuple[str, str], ...]
) -> tuple[str, str]:
    """Parse one layout element off ``value``: (what is left, the out-of-range word or "")."""
    if element == "2006":
        digits = value[:4]
        if len(digits) < 4 or not (digits.isdigit() and digits.isascii()):
            raise _Bad
        fields["year"] = int(digits)
        return value[4:], ""
    if element in ("01", "02"):
        number, value = _getnum(value, True)
        if element == "01":
            fields["month"] = number
            return value, "month" if not 1 <= number <= 12 else ""
        fields["day"] = number
        return value, ""
    if element == "15":
        number, value = _getnum(value, False)
        return value, "hour" if number >= 24 else ""
    if element == "04":
        number, value = _getnum(value, True)
        return value, "minute" if number >= 60 else ""
    if element == "05":
        number, value = _getnum(value, True)
        if number >= 60:
            return value, "second"
        next_is_fraction = bool(rest) and rest[0][1].startswith(".")
        if len(value) >= 2 and value[0] in ".," and value[1].isdigit() and not next_is_fraction:
            end = 2
            while end < len(value) and "0" <= value[end] <= "9":
                end += 1
            value = value[end:]  # a fraction the layout does not name is accepted
        return value, ""
    if element == ".000000":
        if len(value) < 7 or value[0] not in ".," or not value[1:7].isdigit():
            raise _Bad
        return value[7:], ""
    # Z07:00
    if value.startswith("Z"):
        return value[1:], ""
    if len(value) < 6 or value[3] != ":" or value[0] not in "+-":
        raise _Bad
    hours, _ = _getnum(value[1:3], True)
    minutes, _ = _getnum(value[4:6], True)
    if hours > 24:
        return value[6:], "time zone offset hour"
    if minutes > 60:
        return value[6:], "time zone offset minute"
    return value[6:], ""
