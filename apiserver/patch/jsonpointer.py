"""JSON Pointer (RFC 6901) parsing and lookup, as JSON Patch uses it.

Every failure is a ``PatchError`` 422: the pointer came from a well-formed patch document but
does not fit the document it is applied to.
"""

from __future__ import annotations

import re
from typing import Any

from apiserver.patch.errors import PatchError

ABSENT: Any = object()
"""What ``child`` returns for a member or element that does not exist."""

_INDEX = re.compile(r"0|[1-9][0-9]*")
_BAD_ESCAPE = re.compile(r"~(?![01])")


def tokens(pointer: str) -> list[str]:
    """Split ``pointer`` into unescaped reference tokens; ``""`` (the root) has none."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(f"JSON pointer must be empty or start with '/': {pointer!r}", code=422)
    parts = pointer[1:].split("/")
    if any(_BAD_ESCAPE.search(part) for part in parts):
        raise PatchError(f"JSON pointer has an invalid '~' escape: {pointer!r}", code=422)
    return [part.replace("~1", "/").replace("~0", "~") for part in parts]


def array_index(token: str, length: int, *, append: bool) -> int:
    """The array position ``token`` names; ``append`` admits ``-`` and ``length`` (for adding)."""
    if token == "-" and append:
        return length
    if not _INDEX.fullmatch(token):
        raise PatchError(f"value was not a proper array index: '{token}': invalid index referenced", code=422)
    index = int(token)
    if index > length or (index == length and not append):
        raise PatchError(f"Unable to access invalid index: {index}: invalid index referenced", code=422)
    return index


def child(container: Any, token: str) -> Any:
    """The member or element ``token`` of ``container``, or ``ABSENT``."""
    if isinstance(container, dict):
        return container.get(token, ABSENT)
    if isinstance(container, list) and _INDEX.fullmatch(token) and int(token) < len(container):
        return container[int(token)]
    return ABSENT


def resolve(root: Any, path: list[str], missing: str) -> Any:
    """The value at ``path`` below ``root``; a 422 with message ``missing`` if there is none."""
    node = root
    for token in path:
        node = child(node, token)
        if node is ABSENT:
            raise PatchError(missing, code=422)
    return node
