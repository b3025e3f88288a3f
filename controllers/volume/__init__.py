"""The volume controllers: the PersistentVolume binder, the local-path provisioner and the
pvc-protection and pv-protection finalizer controllers."""
