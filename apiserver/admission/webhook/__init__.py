"""Admission webhooks (upstream's ``k8s.io/apiserver/pkg/admission/plugin/webhook``).

Two admission plugins, ``MutatingAdmissionWebhook`` and ``ValidatingAdmissionWebhook``, call
the webhooks of the cluster's ``MutatingWebhookConfiguration`` and
``ValidatingWebhookConfiguration`` objects (read from the watch cache on every request, in
configuration-name order):

- ``source``: the configured webhooks, each with its configuration name and index.
- ``matching``: which webhooks a request goes to: rules (operations, groups, versions,
  resources with ``pods/*``-style subresources, scope), ``matchPolicy: Equivalent`` (another
  version of the same storage), the namespace selector (the namespace's labels) and the object
  selector (the object's or old object's labels). ``matchConditions`` (CEL) are stored but
  never evaluated: a webhook with conditions is called as if they all held.
- ``review``: the ``AdmissionReview`` (v1, or v1beta1 for webhooks accepting only that) sent,
  and upstream's checks of the one received.
- ``client``: the HTTPS POST, verified with the webhook's ``caBundle``, within its
  ``timeoutSeconds`` (``url`` as given; ``service`` through the Service's endpoints, see there).
- ``errors``: upstream's failures: ``failed calling webhook "x": ...`` (subject to
  ``failurePolicy``) and denials (``admission webhook "x" denied the request: ...``).
- ``mutating``/``validating``: the plugins (mutating webhooks one after the other, applying
  JSON patches, with ``reinvocationPolicy``; validating webhooks in parallel).

Webhook configurations themselves are never sent to webhooks (upstream exempts them, so a
broken webhook can always be removed).
"""
