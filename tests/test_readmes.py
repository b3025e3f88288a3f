"""Every Python file a README names in backticks exists (a README once credited a ``tls.py``
that did not).

A name is looked up relative to the README's directory, then the repository root; a bare or
partial path (``kv.py`` in the ``storage/`` section, ``resources/pod.py``) must be the end of
some file's path under the README's directory.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMED = re.compile(r"`([A-Za-z0-9_./-]+\.py)`")


def tracked_files() -> list[str]:
    """The repository's files, as paths from its root (virtualenvs, caches and dot dirs aside)."""
    skip = {"node_modules", "__pycache__"}
    found = []
    for directory, subdirectories, files in os.walk(ROOT):
        subdirectories[:] = [d for d in subdirectories if d not in skip and not d.startswith(".")]
        found += [os.path.relpath(os.path.join(directory, f), ROOT) for f in files]
    return found


def missing_names(readme: str, text: str, files: list[str]) -> list[str]:
    """The names ``text`` (the README at repository path ``readme``) gives to files that do not exist."""
    directory = str(Path(readme).parent)
    under = [f for f in files if directory == "." or f.startswith(directory + "/")]
    missing = []
    for name in sorted(set(NAMED.findall(text))):
        if (ROOT / directory / name).exists() or (ROOT / name).exists():
            continue
        if any(f == name or f.endswith("/" + name) for f in under):
            continue
        missing.append(name)
    return missing


def test_every_python_file_a_readme_names_exists() -> None:
    files = tracked_files()
    readmes = [f for f in files if Path(f).name == "README.md"]
    assert readmes
    missing = {r: m for r in readmes if (m := missing_names(r, (ROOT / r).read_text(), files))}
    assert missing == {}


def test_the_check_sees_a_module_that_does_not_exist() -> None:
    text = "`server.py` runs it, with `tls.py` and `storage/kv.py`."
    assert missing_names("apiserver/README.md", text, tracked_files()) == ["tls.py"]
