"""What the apiserver keeps in the store for itself, through the registry (upstream's
post-start hooks): the system namespaces and the ``kubernetes`` Service (``objects``), the
bootstrap RBAC policy (``rbac``), the system priority classes (``priorityclasses``), and the
aggregation of labelled ClusterRoles (``aggregation``, upstream's controller of that name)."""
