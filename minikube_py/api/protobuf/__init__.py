"""Decode Kubernetes protobuf request bodies (``k8s\\x00`` + ``runtime.Unknown``) into JSON-shaped dicts."""
