"""Pod volumes: preparation (``VolumeManager``), the ``AtomicWriter``, hostPath checks,
bound service account tokens and a container's mounts (``make_mounts``)."""

from nodeagent.volumes.atomicwriter import FileProjection, write_payload
from nodeagent.volumes.hostpath import HostPathTypeError, check_host_path_type
from nodeagent.volumes.manager import PLUGINS, VolumeManager, VolumeSetupError, volume_plugin
from nodeagent.volumes.mounts import expand_sub_path_expr, make_mounts
from nodeagent.volumes.tokens import ServiceAccountTokens

__all__ = [
    "PLUGINS",
    "FileProjection",
    "HostPathTypeError",
    "ServiceAccountTokens",
    "VolumeManager",
    "VolumeSetupError",
    "check_host_path_type",
    "expand_sub_path_expr",
    "make_mounts",
    "volume_plugin",
    "write_payload",
]
