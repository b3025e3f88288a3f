"""The pod side of the node agent: actions, sync, workers, PLEG, status and backoff."""
