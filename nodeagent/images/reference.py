"""Image references as container runtimes read them (``[registry/]repository[:tag][@digest]``).

Docker's normalisation: the first path component is a registry when it looks like a host
(contains ``.`` or ``:``, or is ``localhost``), else the registry is ``docker.io``; a
one-component repository on ``docker.io`` is in ``library/``; without tag or digest the tag is
``latest``. So ``busybox``, ``busybox:latest`` and ``docker.io/library/busybox`` name one image.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_REGISTRY = "docker.io"
DEFAULT_TAG = "latest"


@dataclass(frozen=True)
class ImageReference:
    registry: str
    repository: str  # path inside the registry: "library/busybox", "e2e-test-images/busybox"
    tag: str  # "" when only a digest was given
    digest: str  # "sha256:..." or ""

    @property
    def name(self) -> str:
        """The repository's last component (``busybox`` for ``registry.k8s.io/e2e-test-images/busybox``)."""
        return self.repository.rsplit("/", 1)[-1]

    @classmethod
    def parse(cls, image: str) -> ImageReference:
        """Split ``image``; never fails (an odd string is a repository of that name)."""
        rest, _, digest = image.strip().partition("@")
        slash = rest.rfind("/")
        colon = rest.rfind(":")
        tag = ""
        if colon > slash:  # a colon before the last slash is a registry's port
            rest, tag = rest[:colon], rest[colon + 1 :]
        first, sep, remainder = rest.partition("/")
        if sep and ("." in first or ":" in first or first == "localhost"):
            registry, repository = first, remainder
        else:
            registry, repository = DEFAULT_REGISTRY, rest
        if registry == DEFAULT_REGISTRY and "/" not in repository:
            repository = f"library/{repository}"
        return cls(registry, repository, tag or ("" if digest else DEFAULT_TAG), digest)
