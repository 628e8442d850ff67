"""The JSON Schemas of ZEP 6, and validation of ZOM documents against them.

Two versions of each schema are available:

* ``json_schema(3, verbatim=True)`` (and ``2``): the schema exactly as ZEP 6
  prints it, loaded from the files in ``schemas/``.
* ``json_schema(3)`` (the default, ``verbatim=False``): the same schema with
  the errata listed in :data:`ERRATA` applied. Each erratum fixes a place
  where the ZEP's schema rejects documents that its own examples, or the Zarr
  specification it models, allow (a typo in a ``required`` list, a null
  compressor, a codec without ``configuration``). Nothing else is changed,
  so every document the verbatim schema accepts is accepted by the corrected
  one.

:func:`schema_issues` validates a document node by node (each node against
the definition of its own kind), so an error inside a deeply nested array is
reported with that array's path rather than as "not valid under any of the
given schemas" at the root.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
from importlib import resources
from typing import Any

import jsonschema

from .errors import SchemaValidationError

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

#: Corrections applied to the ZEP's schemas by ``json_schema(..., verbatim=False)``.
ERRATA: dict[int, list[str]] = {
    3: [
        "NamedConfig: 'configuration' is optional (the v3 spec makes it optional, and "
        'zarr-python and zarrforge write {"name": "crc32c"}); \'must_understand\' '
        "(boolean) is allowed, as on every v3 extension object.",
        "ArraySpec.data_type: a string or a NamedConfig (v3 extension data types are named configurations).",
        "ArraySpec.dimension_names: items may be null (the v3 spec allows unnamed dimensions).",
        "ArraySpec and GroupSpec: an optional 'extensions' list of NamedConfig objects "
        "(ZEP 10 generic extensions).",
        "ArraySpec and GroupSpec: properties beyond those listed are allowed only as "
        'objects with "must_understand": false (the v3 spec\'s rule for unknown fields), '
        "instead of never.",
    ],
    2: [
        "Array.required lists 'attributess'; corrected to 'attributes', the property's name.",
        "Array and Group: 'zarr_format' (const 2) is allowed, as in the ZEP's own v2 example "
        "and the v2 spec's .zarray/.zgroup documents; 'zarr_version' stays allowed.",
        "Array.compressor: an object or null (null means no compressor in the v2 spec and "
        "in the ZEP's example).",
        "Array.filters: a list of objects or null (null means no filters in the v2 spec).",
        "Array.dtype: a string, or a structured data type: a list of [name, dtype] or "
        "[name, dtype, shape] entries (the v2 spec's form), instead of a list of strings.",
    ],
}


@functools.cache
def _verbatim(zarr_format: int) -> str:
    name = f"zep6-v{zarr_format}.schema.json"
    return resources.files("zarrforge_zom").joinpath("schemas", name).read_text("utf-8")


def _check_format(zarr_format: Any) -> int:
    try:
        value = int(zarr_format)
    except (TypeError, ValueError):
        value = None
    if value not in (2, 3):
        raise ValueError(f"ZEP 6 defines object models for Zarr versions 2 and 3, not {zarr_format!r}")
    return value


def _named_config_v3() -> dict[str, Any]:
    return {
        "additionalProperties": False,
        "properties": {
            "name": {"title": "Name", "type": "string"},
            "configuration": {"anyOf": [{"type": "object"}, {"type": "null"}], "title": "Configuration"},
            "must_understand": {"type": "boolean", "title": "Must Understand"},
        },
        "required": ["name"],
        "title": "NamedConfig",
        "type": "object",
    }


_IGNORABLE = {
    "type": "object",
    "properties": {"must_understand": {"const": False}},
    "required": ["must_understand"],
}


def _apply_errata_v3(schema: dict[str, Any]) -> dict[str, Any]:
    defs = schema["$defs"]
    defs["NamedConfig"] = _named_config_v3()
    array = defs["ArraySpec"]["properties"]
    array["data_type"] = {
        "anyOf": [{"type": "string"}, {"$ref": "#/$defs/NamedConfig"}],
        "title": "Data Type",
    }
    array["dimension_names"]["anyOf"][0]["items"] = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    extensions = {"items": {"$ref": "#/$defs/NamedConfig"}, "title": "Extensions", "type": "array"}
    for name in ("ArraySpec", "GroupSpec"):
        defs[name]["properties"]["extensions"] = copy.deepcopy(extensions)
        defs[name]["additionalProperties"] = copy.deepcopy(_IGNORABLE)
    return schema


def _apply_errata_v2(schema: dict[str, Any]) -> dict[str, Any]:
    defs = schema["definitions"]
    array = defs["Array"]
    array["required"] = ["attributes" if r == "attributess" else r for r in array["required"]]
    fmt = {"title": "Zarr Format", "const": 2}
    array["properties"]["zarr_format"] = dict(fmt)
    defs["Group"]["properties"]["zarr_format"] = dict(fmt)
    props = array["properties"]
    props["compressor"] = {"title": "Compressor", "anyOf": [{"type": "object"}, {"type": "null"}]}
    props["filters"] = {
        "title": "Filters",
        "anyOf": [{"type": "array", "items": {"type": "object"}}, {"type": "null"}],
    }
    field = {
        "type": "array",
        "minItems": 2,
        "maxItems": 3,
        "prefixItems": [
            {"type": "string"},
            {"$ref": "#/definitions/Array/properties/dtype"},
            {"type": "array", "items": {"type": "integer"}},
        ],
    }
    props["dtype"] = {"title": "Dtype", "anyOf": [{"type": "string"}, {"type": "array", "items": field}]}
    return schema


def json_schema(zarr_format: int = 3, *, verbatim: bool = False) -> dict[str, Any]:
    """The ZEP 6 JSON Schema of the ZOM for ``zarr_format`` (a new dict each call)."""
    zarr_format = _check_format(zarr_format)
    schema = json.loads(_verbatim(zarr_format))
    if verbatim:
        result: dict[str, Any] = schema
        return result
    schema = {"$schema": SCHEMA_DIALECT, **schema}
    return _apply_errata_v3(schema) if zarr_format == 3 else _apply_errata_v2(schema)


# --- validation ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SchemaIssue:
    """One way a ZOM document violates the schema: the node's path in the hierarchy,
    the JSON path of the offending value inside that node, and the message."""

    node: str
    location: str
    message: str

    def __str__(self) -> str:
        where = f"{self.node} {self.location}" if self.location else self.node
        return f"{where}: {self.message}"

    def to_json(self) -> dict[str, str]:
        return dataclasses.asdict(self)


@functools.cache
def _validator(zarr_format: int, kind: str, verbatim: bool) -> jsonschema.protocols.Validator:
    schema = json_schema(zarr_format, verbatim=verbatim)
    if zarr_format == 3:
        ref = {"array": "#/$defs/ArraySpec", "group": "#/$defs/GroupSpec"}[kind]
        schema.pop("allOf", None)
    else:
        ref = {"array": "#/definitions/Array", "group": "#/definitions/Group"}[kind]
    schema["$ref"] = ref
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    return cls(schema)


def _location(parts: Any) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def kind_of(document: Any, zarr_format: int) -> str:
    """``"array"`` or ``"group"``: v3 documents say so in ``node_type``; v2 ZOM nodes
    have no such field, so a v2 node with a ``shape`` is an array."""
    if zarr_format == 3:
        return "array" if document.get("node_type") == "array" else "group"
    return "array" if "shape" in document else "group"


def format_of(document: Any) -> int:
    """The Zarr version a ZOM document models (``zarr_format``, or v2's ``zarr_version``)."""
    if not isinstance(document, dict):
        raise SchemaValidationError(
            [SchemaIssue("/", "", f"a ZOM node is a JSON object, got {type(document).__name__}")]
        )
    value = document.get("zarr_format", document.get("zarr_version"))
    if value is None and "node_type" not in document:
        return 2  # the ZEP's v2 schema makes the version optional
    try:
        return _check_format(value if value is not None else 3)
    except ValueError as exc:
        raise SchemaValidationError([SchemaIssue("/", "zarr_format", str(exc))]) from None


def schema_issues(
    document: Any, *, zarr_format: int | None = None, verbatim: bool = False
) -> list[SchemaIssue]:
    """Every schema violation of ``document`` (a ZOM array or group, with its members)."""
    if zarr_format is None:
        try:
            zarr_format = format_of(document)
        except SchemaValidationError as exc:
            return list(exc.issues)
    zarr_format = _check_format(zarr_format)
    issues: list[SchemaIssue] = []

    def visit(node: Any, path: str) -> None:
        if not isinstance(node, dict):
            issues.append(SchemaIssue(path, "", f"a ZOM node is a JSON object, got {node!r}"))
            return
        kind = kind_of(node, zarr_format)
        members = node.get("members") if kind == "group" else None
        shallow = dict(node)
        if isinstance(members, dict):
            shallow["members"] = {}
        validator = _validator(zarr_format, kind, verbatim)
        for error in sorted(validator.iter_errors(shallow), key=lambda e: list(e.absolute_path)):
            issues.append(SchemaIssue(path, _location(error.absolute_path), error.message))
        if isinstance(members, dict):
            for name, child in members.items():
                visit(child, f"{path.rstrip('/')}/{name}")

    visit(document, "/")
    return issues


def validate_json(document: Any, *, zarr_format: int | None = None, verbatim: bool = False) -> None:
    """Raise :class:`SchemaValidationError` listing every issue, if there are any."""
    issues = schema_issues(document, zarr_format=zarr_format, verbatim=verbatim)
    if issues:
        raise SchemaValidationError(issues)
