"""hostPath volumes: used in place, after upstream's type check (``hostpath.checkType``)."""

from __future__ import annotations

import os
import stat
from pathlib import Path


class HostPathTypeError(ValueError):
    """The host path is not what ``type`` requires (upstream's message)."""


_CHECKS = {
    "Directory": (stat.S_ISDIR, "is not a directory"),
    "File": (stat.S_ISREG, "is not a file"),
    "Socket": (stat.S_ISSOCK, "is not a socket file"),
    "CharDevice": (stat.S_ISCHR, "is not a character device"),
    "BlockDevice": (stat.S_ISBLK, "is not a block device"),
}


def check_host_path_type(path: str, path_type: str | None) -> None:
    """Check (and for the ``...OrCreate`` types create) ``path``; raises ``HostPathTypeError``.

    ``""``/None: no check. ``DirectoryOrCreate`` creates missing directories (0755, with
    parents); ``FileOrCreate`` creates an empty file (0644; its directory must exist).
    """
    if not path_type:
        return
    if path_type == "DirectoryOrCreate":
        if not os.path.lexists(path):
            os.makedirs(path, mode=0o755, exist_ok=True)
            return
        path_type = "Directory"
    elif path_type == "FileOrCreate":
        if not os.path.lexists(path):
            try:
                Path(path).touch(mode=0o644)
            except OSError as err:
                raise HostPathTypeError(f"hostPath type check failed: {path}: {err.strerror}") from err
            return
        path_type = "File"
    if path_type not in _CHECKS:
        raise HostPathTypeError(f"{path_type} is an invalid volume type")
    is_type, what = _CHECKS[path_type]
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = 0
    if not is_type(mode):
        raise HostPathTypeError(f"hostPath type check failed: {path} {what}")
