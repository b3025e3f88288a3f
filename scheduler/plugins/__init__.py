"""The in-tree plugins (upstream ``pkg/scheduler/framework/plugins``): one module per plugin,
each a class with ``name``, a ``(args, handle)`` constructor, the extension-point Protocols it
implements as its bases (``framework.extensionpoints``; mypy checks the methods against them)
and ``events_to_register()``. ``registry.in_tree_registry()`` maps names to them."""
