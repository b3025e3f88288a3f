"""Storage: the etcd-shaped ``KV`` contract, its backends, ``ObjectStorage`` and the cacher."""
