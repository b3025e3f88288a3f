"""Admission: the plugins a write passes through once its object is decoded (upstream's
``k8s.io/apiserver/pkg/admission``).

- ``attributes``: what a plugin sees (operation, resource, names, object, old object, user).
- ``interfaces``: a plugin is a name, ``handles(operation)``, and a mutating ``admit`` and/or a
  validating ``validate`` (both async: webhooks will call out over HTTP).
- ``chain``: every mutating plugin in order, then (after the registry's own validation) every
  validating plugin; each mutation is recorded as a JSON patch audit annotation.
- ``registry``: plugin name -> factory, upstream's execution order and default-on set, and the
  ``--enable-admission-plugins``/``--disable-admission-plugins`` semantics.
- ``plugins/``: the built-in plugins, one file each.

The ``GenericStore`` runs the chain (``install.install_admission`` hands it to every store).
"""
