"""The ``minikube-py`` command line: the only place that imports and assembles components."""
