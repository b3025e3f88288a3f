"""The in-tree plugins (upstream ``pkg/scheduler/framework/plugins``): one module per plugin,
each a class with ``name``, a ``(args, handle)`` constructor, the methods of its extension
points and ``events_to_register()``. ``registry.in_tree_registry()`` maps names to them."""
