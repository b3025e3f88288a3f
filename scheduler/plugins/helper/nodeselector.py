"""Node selectors: the shared ``minikube_py.scheduling.nodeaffinity`` (the DaemonSet controller
decides eligibility with the same code, as upstream's share component-helpers)."""

from minikube_py.scheduling.nodeaffinity import (
    NodeSelector,
    NodeSelectorTerm,
    RequiredNodeAffinity,
    compile_term,
    node_labels,
)

__all__ = ["NodeSelector", "NodeSelectorTerm", "RequiredNodeAffinity", "compile_term", "node_labels"]
