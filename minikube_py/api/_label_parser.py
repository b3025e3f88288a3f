"""The label selector grammar (upstream's lexer and recursive-descent parser, same error texts).

::

    <selector>    ::= <requirement> | <requirement> "," <selector>
    <requirement> ::= [!] KEY [ ("in" | "notin") "(" <values> ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
"""

from __future__ import annotations

from enum import Enum, auto

from minikube_py.api._label_requirement import (
    BINARY_OPERATORS,
    Operator,
    Requirement,
    SelectorError,
    new_requirement,
)
from minikube_py.api.field_errors import invalid
from minikube_py.api.validation import is_qualified_name

_WHITESPACE = " \t\r\n"
_SPECIAL = "=!(),><"
_END = "\x00"  # upstream's lexer reads a NUL byte as the end of input, and so does this one


class Tok(Enum):
    END = auto()
    CLOSE = auto()
    COMMA = auto()
    NOT = auto()
    DOUBLE_EQUALS = auto()
    EQUALS = auto()
    GREATER = auto()
    IDENT = auto()
    IN = auto()
    LESS = auto()
    NOT_EQUALS = auto()
    NOT_IN = auto()
    OPEN = auto()


_TOKENS = {
    ")": Tok.CLOSE,
    ",": Tok.COMMA,
    "!": Tok.NOT,
    "==": Tok.DOUBLE_EQUALS,
    "=": Tok.EQUALS,
    ">": Tok.GREATER,
    "in": Tok.IN,
    "<": Tok.LESS,
    "!=": Tok.NOT_EQUALS,
    "notin": Tok.NOT_IN,
    "(": Tok.OPEN,
}
_OPERATORS = {
    Tok.IN: Operator.IN,
    Tok.EQUALS: Operator.EQUALS,
    Tok.DOUBLE_EQUALS: Operator.DOUBLE_EQUALS,
    Tok.GREATER: Operator.GREATER_THAN,
    Tok.LESS: Operator.LESS_THAN,
    Tok.NOT_IN: Operator.NOT_IN,
    Tok.NOT_EQUALS: Operator.NOT_EQUALS,
}
Item = tuple[Tok, str]


def tokenize(text: str) -> list[Item]:
    """All tokens of ``text``, ending with ``Tok.END``."""
    items: list[Item] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos] in _WHITESPACE:
            pos += 1
        if pos >= len(text) or text[pos] == _END:
            items.append((Tok.END, ""))
            return items
        scan = _scan_symbol if text[pos] in _SPECIAL else _scan_word
        item, pos = scan(text, pos)
        items.append(item)


def _scan_word(text: str, pos: int) -> tuple[Item, int]:
    start = pos
    while pos < len(text) and text[pos] not in _SPECIAL + _WHITESPACE + _END:
        pos += 1
    word = text[start:pos]
    if pos < len(text) and text[pos] == _END:
        pos += 1  # upstream consumes the NUL that ends an identifier
    return (_TOKENS.get(word, Tok.IDENT), word), pos


def _scan_symbol(text: str, pos: int) -> tuple[Item, int]:
    # the longest run of special characters that is still a token: "!=" but "!" then "("
    end = pos + 1
    while end < len(text) and text[end] in _SPECIAL and text[pos : end + 1] in _TOKENS:
        end += 1
    symbol = text[pos:end]
    if end < len(text) and text[end] == _END:
        end += 1  # upstream consumes a NUL right after an operator too
    return (_TOKENS[symbol], symbol), end


class Parser:
    """Upstream's parser: ``in``/``notin`` read as identifiers where a value is expected."""

    def __init__(self, text: str) -> None:
        self._items = tokenize(text)
        self._pos = 0

    def _peek(self, values: bool = True) -> Item:
        return self._as_context(self._items[min(self._pos, len(self._items) - 1)], values)

    def _next(self, values: bool = True) -> Item:
        item = self._peek(values)
        self._pos += 1
        return item

    @staticmethod
    def _as_context(item: Item, values: bool) -> Item:
        if values and item[0] in (Tok.IN, Tok.NOT_IN):
            return Tok.IDENT, item[1]
        return item

    def parse(self) -> list[Requirement]:
        """The requirements in input order."""
        requirements: list[Requirement] = []
        while True:
            tok, lit = self._peek()
            if tok is Tok.END:
                return requirements
            if tok not in (Tok.IDENT, Tok.NOT):
                raise SelectorError(f"found '{lit}', expected: !, identifier, or 'end of string'")
            try:
                requirements.append(self._requirement())
            except SelectorError as err:
                raise SelectorError(f"unable to parse requirement: {err}") from None
            self._after_requirement()

    def _after_requirement(self) -> None:
        tok, lit = self._next()
        if tok is Tok.COMMA:
            tok, lit = self._peek()
            if tok not in (Tok.IDENT, Tok.NOT):
                raise SelectorError(f"found '{lit}', expected: identifier after ','")
        elif tok is not Tok.END:  # (reading past END keeps yielding END)
            raise SelectorError(f"found '{lit}', expected: ',' or 'end of string'")

    def _requirement(self) -> Requirement:
        key, operator = self._key_and_inferred_operator()
        if operator is not None:
            return new_requirement(key, operator, [])
        operator = self._operator()
        values = self._value_set() if operator in (Operator.IN, Operator.NOT_IN) else self._exact_value()
        return new_requirement(key, operator, sorted(values))

    def _key_and_inferred_operator(self) -> tuple[str, Operator | None]:
        operator = None
        tok, lit = self._next()
        if tok is Tok.NOT:
            operator = Operator.DOES_NOT_EXIST
            tok, lit = self._next()
        if tok is not Tok.IDENT:
            raise SelectorError(f"found '{lit}', expected: identifier")
        if msgs := is_qualified_name(lit):
            raise SelectorError(str(invalid("<nil>", lit, "; ".join(msgs))))
        if operator is None and self._peek()[0] in (Tok.END, Tok.COMMA):
            operator = Operator.EXISTS
        return lit, operator

    def _operator(self) -> Operator:
        tok, lit = self._next(values=False)
        if tok not in _OPERATORS:
            raise SelectorError(f"found '{lit}', expected: {', '.join(BINARY_OPERATORS)}")
        return _OPERATORS[tok]

    def _value_set(self) -> set[str]:
        tok, lit = self._next()
        if tok is not Tok.OPEN:
            raise SelectorError(f"found '{lit}' expected: '('")
        tok, lit = self._peek()
        if tok is Tok.CLOSE:  # "()" is the set holding the empty string
            self._next()
            return {""}
        if tok not in (Tok.IDENT, Tok.COMMA):
            raise SelectorError(f"found '{lit}', expected: ',', ')' or identifier")
        values = self._identifiers()
        self._next()  # the ")" that _identifiers() saw
        return values

    def _identifiers(self) -> set[str]:
        values: set[str] = set()
        while True:
            tok, lit = self._next()
            if tok is Tok.IDENT:
                values.add(lit)
                tok, lit = self._peek()
                if tok is Tok.CLOSE:
                    return values
                if tok is not Tok.COMMA:
                    raise SelectorError(f"found '{lit}', expected: ',' or ')'")
            elif tok is Tok.COMMA:  # a leading, trailing or doubled comma stands for the empty value
                if not values:
                    values.add("")
                tok, _ = self._peek()
                if tok is Tok.CLOSE:
                    values.add("")
                    return values
                if tok is Tok.COMMA:
                    values.add("")
            else:
                raise SelectorError(f"found '{lit}', expected: ',', or identifier")

    def _exact_value(self) -> set[str]:
        if self._peek()[0] in (Tok.END, Tok.COMMA):
            return {""}
        tok, lit = self._next()
        if tok is not Tok.IDENT:
            raise SelectorError(f"found '{lit}', expected: identifier")
        return {lit}
