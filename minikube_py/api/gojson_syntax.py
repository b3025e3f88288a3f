"""Go's ``encoding/json`` syntax errors, word for word: ``syntax_error(text)`` is the message
``json.Unmarshal`` (its ``checkValid`` scan) gives for ``text``, or None when ``text`` is one
valid JSON value. Upstream quotes these in validation messages (e.g. a Docker config Secret
whose data is not JSON), so a Python parser's wording would not match.
"""

from __future__ import annotations

END_OF_INPUT = "unexpected end of JSON input"
_WHITESPACE = " \t\n\r"
_HEX = "0123456789abcdefABCDEF"
_DIGITS = "0123456789"


class _SyntaxError(Exception):
    pass


def syntax_error(text: str) -> str | None:
    scan = _Scanner(text)
    try:
        scan.value()
        scan.skip_space()
        if scan.pos < len(text):
            scan.fail("after top-level value")
    except _SyntaxError as err:
        return str(err)
    return None


def quote_char(char: str) -> str:
    """Go's ``quoteChar``: ``'x'``, ``'\\''``, ``'"'``, escapes for the unprintable."""
    if char == "'":
        return "'\\''"
    if char == '"':
        return "'\"'"
    return repr(char) if not char.isprintable() else f"'{char}'"


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, context: str) -> None:
        raise _SyntaxError(f"invalid character {quote_char(self.text[self.pos])} {context}")

    def peek(self) -> str:
        if self.pos >= len(self.text):
            raise _SyntaxError(END_OF_INPUT)
        return self.text[self.pos]

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in _WHITESPACE:
            self.pos += 1

    def value(self) -> None:
        self.skip_space()
        char = self.peek()
        if char == "{":
            self.object()
        elif char == "[":
            self.array()
        elif char == '"':
            self.string()
        elif char == "-" or char in _DIGITS:
            self.number()
        elif char in "tfn":
            self.literal({"t": "true", "f": "false", "n": "null"}[char])
        else:
            self.fail("looking for beginning of value")

    def object(self) -> None:
        self.pos += 1
        self.skip_space()
        if self.peek() == "}":
            self.pos += 1
            return
        while True:
            if self.peek() != '"':
                self.fail("looking for beginning of object key string")
            self.string()
            self.skip_space()
            if self.peek() != ":":
                self.fail("after object key")
            self.pos += 1
            self.value()
            self.skip_space()
            char = self.peek()
            if char == "}":
                self.pos += 1
                return
            if char != ",":
                self.fail("after object key:value pair")
            self.pos += 1
            self.skip_space()

    def array(self) -> None:
        self.pos += 1
        self.skip_space()
        if self.peek() == "]":
            self.pos += 1
            return
        while True:
            self.value()
            self.skip_space()
            char = self.peek()
            if char == "]":
                self.pos += 1
                return
            if char != ",":
                self.fail("after array element")
            self.pos += 1

    def string(self) -> None:
        self.pos += 1
        while True:
            char = self.peek()
            if char == '"':
                self.pos += 1
                return
            if char == "\\":
                self.pos += 1
                escape = self.peek()
                if escape == "u":
                    for _ in range(4):
                        self.pos += 1
                        if self.peek() not in _HEX:
                            self.fail("in \\u hexadecimal character escape")
                elif escape not in 'bfnrt"\\/':
                    self.fail("in string escape code")
            elif char < " ":
                self.fail("in string literal")
            self.pos += 1

    def number(self) -> None:
        if self.peek() == "-":
            self.pos += 1
            if self.peek() not in _DIGITS:
                self.fail("in numeric literal")
        if self.peek() == "0":
            self.pos += 1
        else:
            self.digits()
        if self._at(".") and self._next():
            if self.peek() not in _DIGITS:
                self.fail("after decimal point in numeric literal")
            self.digits()
        if self._at("eE") and self._next():
            if self.peek() in "+-":
                self.pos += 1
            if self.peek() not in _DIGITS:
                self.fail("in exponent of numeric literal")
            self.digits()

    def digits(self) -> None:
        while self._at(_DIGITS):
            self.pos += 1

    def _at(self, chars: str) -> bool:
        return self.pos < len(self.text) and self.text[self.pos] in chars

    def _next(self) -> bool:
        self.pos += 1
        return True

    def literal(self, name: str) -> None:
        for expected in name[1:]:
            self.pos += 1
            if self.peek() != expected:
                self.fail(f"in literal {name} (expecting {quote_char(expected)})")
        self.pos += 1
