"""Check every described message against upstream's ``generated.proto`` (a maintenance tool, not a test).

    python -m tests.api.protobuf.check_upstream PATH/TO/k8s.io/api PATH/TO/k8s.io/apimachinery

For each message in ``REGISTRY`` it finds the same-named proto message and compares, field by field,
the number, the name (case-insensitively: upstream's proto says ``uID`` where the JSON says ``uid``),
repeated/optional/map, and the type; it also reports proto fields that are not described. Exit 1 on
any difference. Run it after adding messages or moving to a newer upstream release.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from minikube_py.api.protobuf.messages import REGISTRY
from minikube_py.api.protobuf.schema import Field, Message, Shape

API_DIRS = [
    "core/v1",
    "apps/v1",
    "batch/v1",
    "authorization/v1",
    "authentication/v1",
    "rbac/v1",
    "policy/v1",
    "scheduling/v1",
    "networking/v1",
]
MACHINERY_DIRS = ["pkg/apis/meta/v1"]
SCALARS = {
    "string": "string",
    "bytes": "bytes",
    "int32": "int32",
    "int64": "int64",
    "bool": "bool",
    "float64": "double",
}
SPECIALS = {
    "Time": {"Time"},
    "MicroTime": {"MicroTime"},
    "Quantity": {"Quantity"},
    "IntOrString": {"IntOrString"},
    "Duration": {"Duration"},
    "RawJSON": {"RawExtension", "FieldsV1"},
}
_FIELD = re.compile(r"\s*(optional|repeated)\s+(\S+)\s+(\w+)\s*=\s*(\d+);")
_MAP = re.compile(r"\s*()map<\s*string\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+);")

ProtoFields = dict[int, tuple[str, str, str]]  # number -> (label, last part of the type, name)


def parse_protos(files: list[Path]) -> dict[str, list[ProtoFields]]:
    """Proto messages by name (a name may appear in several packages)."""
    found: dict[str, list[ProtoFields]] = {}
    for path in files:
        text = re.sub(r"//.*", "", path.read_text())
        for match in re.finditer(r"message (\w+) \{(.*?)\n\}", text, re.S):
            fields: ProtoFields = {}
            for line in match.group(2).splitlines():
                parsed = _FIELD.match(line) or _MAP.match(line)
                if parsed:
                    label, type_name, name, number = parsed.groups()
                    fields[int(number)] = (label or "map", type_name.split(".")[-1], name)
            found.setdefault(match.group(1), []).append(fields)
    return found


def _expected(field: Field) -> tuple[str, set[str]]:
    label = {Shape.LIST: "repeated", Shape.MAP: "map", Shape.MAP_OF_LISTS: "map"}.get(field.shape, "optional")
    if field.shape is Shape.MAP_OF_LISTS:
        return label, {"ExtraValue"}
    if field.type in SCALARS:
        return label, {SCALARS[field.type]}
    return label, SPECIALS.get(field.type, {field.type})


def differences(message: Message, proto: ProtoFields) -> list[str]:
    """What differs between a described message and one proto message."""
    out = []
    for field in message.fields:
        if field.number not in proto:
            out.append(f"{field.number} {field.name}: not in the proto")
            continue
        label, type_name, name = proto[field.number]
        want_label, want_types = _expected(field)
        if name.lower() != field.name.lower() or label != want_label or type_name not in want_types:
            out.append(f"{field.number} {field.name}: proto says {label} {type_name} {name}")
    out += [f"proto field {n} {proto[n][2]} is not described" for n in proto if n not in message.by_number]
    return out


def main(api: Path, machinery: Path) -> int:
    """Compare ``REGISTRY`` with the protos under the two checkouts; print differences."""
    files = [api / d / "generated.proto" for d in API_DIRS] + [
        machinery / d / "generated.proto" for d in MACHINERY_DIRS
    ]
    protos = parse_protos(files)
    failures = 0
    for name, message in REGISTRY.items():
        candidates = [differences(message, fields) for fields in protos.get(name, [])]
        best = min(candidates, key=len) if candidates else ["no proto message of this name"]
        if best:
            failures += 1
            print(f"{name}: {'; '.join(best)}")
    print(
        f"{len(REGISTRY)} messages, {sum(len(m.fields) for m in REGISTRY.values())} fields, {failures} differ"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1]), Path(sys.argv[2])))
