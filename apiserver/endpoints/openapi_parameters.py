"""The parameters of the OpenAPI operations (``openapi_paths``), with upstream's names and types:
path parameters, and the query parameters of each verb (list and watch, writes, patch, delete)
and of the streaming subresources (upstream's PodLogOptions, PodExecOptions, PodAttachOptions
and PodPortForwardOptions).
"""

from __future__ import annotations

from typing import Any

Parameter = dict[str, Any]


def query(name: str, kind: str, description: str) -> Parameter:
    return {
        "name": name,
        "in": "query",
        "description": description,
        "schema": {"type": kind, "uniqueItems": True},
    }


PRETTY = query("pretty", "string", "If 'true', the output is pretty printed.")
DRY_RUN = query(
    "dryRun",
    "string",
    "When present, modifications are not persisted. 'All' is the only valid value: every stage "
    "of the dry run is processed.",
)
FIELD_MANAGER = query(
    "fieldManager", "string", "The name of the actor or entity making these changes (at most 128 characters)."
)
FIELD_VALIDATION = query(
    "fieldValidation",
    "string",
    "How the server treats unknown and duplicate fields in the body: Ignore, Warn (the default) or Strict.",
)
FORCE = query("force", "boolean", "Force an apply request to take fields owned by other managers.")
LIST_PARAMETERS = (
    query("allowWatchBookmarks", "boolean", "Ask for BOOKMARK events on a watch."),
    query("continue", "string", "The continue token of the previous page of a paginated list."),
    query("fieldSelector", "string", "Restrict the returned objects by their fields."),
    query("labelSelector", "string", "Restrict the returned objects by their labels."),
    query("limit", "integer", "The maximum number of objects to return in one page of a list."),
    query("resourceVersion", "string", "Which version of the objects to serve (see resourceVersionMatch)."),
    query("resourceVersionMatch", "string", "How resourceVersion applies: Exact or NotOlderThan."),
    query("sendInitialEvents", "boolean", "Start a watch with the current objects as ADDED events."),
    query("timeoutSeconds", "integer", "Timeout of the list or watch call, in seconds."),
    query("watch", "boolean", "Watch for changes to the described objects and stream them."),
)
DELETE_PARAMETERS = (
    DRY_RUN,
    query("gracePeriodSeconds", "integer", "Seconds before the object should be deleted; 0: immediately."),
    query(
        "ignoreStoreReadErrorWithClusterBreakingPotential",
        "boolean",
        "Delete an object whose stored data cannot be read. Dangerous: it bypasses finalizers.",
    ),
    query("orphanDependents", "boolean", "Deprecated: use propagationPolicy."),
    query(
        "propagationPolicy",
        "string",
        "Whether and how garbage collection runs: Orphan, Background, Foreground.",
    ),
)
WRITE_PARAMETERS = (DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION)
LOG_PARAMETERS = (
    query("container", "string", "The container to stream the log of (may be omitted with one container)."),
    query("follow", "boolean", "Follow the log stream."),
    query(
        "insecureSkipTLSVerifyBackend", "boolean", "Skip verifying the serving certificate of the kubelet."
    ),
    query("limitBytes", "integer", "The number of bytes to read from the server before ending the log."),
    query("previous", "boolean", "The log of the container's previous instance."),
    query("sinceSeconds", "integer", "Relative time in seconds before now from which to show the log."),
    query("tailLines", "integer", "The number of lines from the end of the log to show."),
    query("timestamps", "boolean", "Prefix every line with an RFC 3339 timestamp."),
)
_STREAMS = (
    query("container", "string", "The container to run in (may be omitted with one container)."),
    query("stderr", "boolean", "Redirect the standard error stream."),
    query("stdin", "boolean", "Redirect the standard input stream."),
    query("stdout", "boolean", "Redirect the standard output stream."),
    query("tty", "boolean", "Allocate a terminal."),
)
CONNECT_PARAMETERS: dict[str, tuple[Parameter, ...]] = {
    "exec": (query("command", "string", "The command to run, one argument per value."), *_STREAMS),
    "attach": _STREAMS,
    "portforward": (query("ports", "integer", "The ports to forward, one per value."),),
}


def path_parameter(name: str, description: str) -> Parameter:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": {"type": "string", "uniqueItems": True},
    }


NAMESPACE = path_parameter("namespace", "object name and auth scope, such as for teams and projects")
