"""The scheduler's backend (upstream ``pkg/scheduler/backend``): the scheduling queue of pods
waiting for a node, and the cache of nodes and placed pods (assumed ones included) from which
each cycle takes an incremental snapshot."""
