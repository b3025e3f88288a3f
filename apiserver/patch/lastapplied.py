"""Client-side apply's ``last-applied-configuration`` annotation, seen from server-side apply.

Upstream's field manager does two things for the manager ``kubectl`` only (a different
``--field-manager`` opts out):

- *upgrade without conflicts* (``lastAppliedManager``): a field that the annotation holds with
  the value the object still has was applied by client-side apply, so taking it over from
  ``kubectl-client-side-apply`` (or whoever) is not a conflict;
- *keep the annotation current* (``lastAppliedUpdater``): when the object carries the
  annotation, an apply rewrites it to the applied configuration, so a later client-side apply
  computes its three-way patch from the right base.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from apiserver.patch.compare import compare
from apiserver.patch.fieldpath import FieldSet
from apiserver.patch.fieldset import field_set
from apiserver.patch.schema import Fields
from minikube_py.api.unstructured import Object as JSONMap

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
KUBECTL = "kubectl"
MAX_ANNOTATIONS_BYTES = 256 * 1024  # upstream's TotalAnnotationSizeLimitB


def _annotations(obj: JSONMap) -> dict[str, Any]:
    meta = obj.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    return annotations if isinstance(annotations, dict) else {}


def allowed_conflicts(live: JSONMap, schema: Fields, api_version: str) -> FieldSet:
    """The fields of ``live``'s last-applied configuration that still hold the applied value
    (nothing when there is no usable annotation or it is for another API version)."""
    text = _annotations(live).get(LAST_APPLIED)
    if not isinstance(text, str) or not text:
        return set()
    try:
        last = json.loads(text)
    except ValueError:
        return set()
    if not isinstance(last, dict) or last.get("apiVersion") != api_version:
        return set()
    differences = compare(last, live, schema)
    return field_set(last, schema) - differences.added - differences.modified - differences.removed


def sync(obj: JSONMap, config: JSONMap) -> None:
    """Rewrite ``obj``'s annotation (if it has one) to ``config``, or drop it if the
    annotations would outgrow their size limit."""
    annotations = _annotations(obj)
    if not annotations.get(LAST_APPLIED):
        return
    annotations[LAST_APPLIED] = last_applied(config)
    if sum(len(k) + len(str(v)) for k, v in annotations.items()) > MAX_ANNOTATIONS_BYTES:
        del annotations[LAST_APPLIED]


def last_applied(config: JSONMap) -> str:
    """The annotation's value for ``config``: its JSON without the annotation itself, as Go's
    encoder writes it (sorted keys, HTML characters escaped, a final newline)."""
    config = copy.deepcopy(config)
    _annotations(config).pop(LAST_APPLIED, None)
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n"
