"""One small file per resource: its ``Strategy`` (policy only; the engine is ``GenericStore``)."""
