"""Test aids for the storage layer (upstream's ``apiserver/pkg/storage/testing``): a real etcd
to run the ``etcd://`` backend against, for the tests and ``benchmarks/storage.py``."""
