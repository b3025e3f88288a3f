"""The DaemonSet controller (upstream's pkg/controller/daemon): ``controller.DaemonSetsController``."""
