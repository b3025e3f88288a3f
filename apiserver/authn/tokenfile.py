"""Static tokens (``--token-auth-file``): a CSV file read once at start-up, one token a line,
``token,user,uid[,"group1,group2"]`` (upstream's ``tokenfile``). Extra columns are ignored,
a row with an empty token is skipped, a later duplicate wins."""

from __future__ import annotations

import csv
import logging
from collections.abc import Sequence
from pathlib import Path

from apiserver.authn.authenticator import TokenResult
from apiserver.request.user import UserInfo

log = logging.getLogger("apiserver")


class TokenFileError(Exception):
    """The token file cannot be read or has a row with fewer than three columns."""


class StaticTokens:
    def __init__(self, users: dict[str, UserInfo]) -> None:
        self.users = users

    @classmethod
    def from_csv(cls, path: Path) -> StaticTokens:
        try:
            with path.open(newline="") as f:
                rows = list(csv.reader(f))
        except (OSError, UnicodeDecodeError, csv.Error) as err:
            raise TokenFileError(f"cannot read token file '{path}': {err}") from err
        users: dict[str, UserInfo] = {}
        for number, row in enumerate((r for r in rows if r), start=1):
            if len(row) < 3:
                raise TokenFileError(
                    f"token file '{path}' must have at least 3 columns (token, user name, unique user ID), "
                    f"found {len(row)}"
                )
            token, name, uid = row[0], row[1], row[2]
            if not token:
                log.warning("empty token has been found in token file '%s', record number '%d'", path, number)
                continue
            if token in users:
                log.warning(
                    "duplicate token has been found in token file '%s', record number '%d'", path, number
                )
            groups = tuple(row[3].split(",")) if len(row) >= 4 else ()
            users[token] = UserInfo(name, groups, uid)
        return cls(users)

    async def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        user = self.users.get(token)
        return TokenResult(user) if user is not None else None
