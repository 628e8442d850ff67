"""Differences between two models: :func:`diff` and :class:`Difference`.

``diff(expected, found)`` walks both hierarchies together and reports every
difference with the node's path (``"/a/b"``) and, inside a node, the field's
path (``"data_type"``, ``"attributes.units"``, ``"codecs[1].configuration.level"``):

* ``changed``: both have the field (or node) but the values differ;
* ``missing``: ``expected`` has it and ``found`` does not;
* ``extra``: ``found`` has it and ``expected`` does not.

A node whose kind or Zarr version differs is reported once (``node_type`` or
``zarr_format`` changed) without comparing its other properties or members.
Values are compared as JSON: ``1``, ``1.0`` and ``True`` all differ.

This module works on any :class:`~zarrforge_zom.protocols.ModelNode` and does not import
the models, which use it for ``spec.diff()`` and ``spec.validate()``.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Literal, cast

from .jsonvalues import canonical
from .protocols import ModelGroup, ModelNode

Kind = Literal["changed", "missing", "extra"]
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclasses.dataclass(frozen=True)
class Difference:
    """One difference: ``path`` of the node, ``field`` inside it (``None`` when a whole
    node is missing or extra), ``kind``, and the ``expected`` and ``found`` values.

    With ``field`` ``None``, ``expected`` and ``found`` are models (or ``None`` on the side
    that lacks the node); otherwise they are JSON values."""

    path: str
    kind: Kind
    field: str | None = None
    expected: Any = None
    found: Any = None

    def __str__(self) -> str:
        if self.field is None:
            what = self.expected if self.kind == "missing" else self.found
            noun = what.node_type if what is not None else "node"
            if self.kind == "missing":
                return f"{self.path}: {noun} missing (expected by the model)"
            return f"{self.path}: {noun} not in the model"
        if self.kind == "changed":
            return (
                f"{self.path}: {self.field} changed: expected {_show(self.expected)}, "
                f"found {_show(self.found)}"
            )
        if self.kind == "missing":
            return f"{self.path}: {self.field} missing (expected {_show(self.expected)})"
        return f"{self.path}: {self.field} not in the model (found {_show(self.found)})"

    def to_json(self) -> dict[str, Any]:
        def value(v: Any) -> Any:
            return v.to_json() if self.field is None and v is not None else v

        return {
            "path": self.path,
            "kind": self.kind,
            "field": self.field,
            "expected": value(self.expected),
            "found": value(self.found),
        }


def _show(value: Any) -> str:
    # whole, however long: a value cut short hides the very part that differs
    return canonical(value) if not isinstance(value, str) else repr(value)


def _key(field: str, key: str) -> str:
    if _IDENTIFIER.match(key):
        return f"{field}.{key}" if field else key
    return f"{field}[{key!r}]"


def _compare(expected: Any, found: Any, path: str, field: str, out: list[Difference]) -> None:
    if isinstance(expected, dict) and isinstance(found, dict):
        for key in list(expected) + [k for k in found if k not in expected]:
            where = _key(field, key)
            if key not in found:
                out.append(Difference(path, "missing", where, expected[key], None))
            elif key not in expected:
                out.append(Difference(path, "extra", where, None, found[key]))
            else:
                _compare(expected[key], found[key], path, where, out)
        return
    if (
        isinstance(expected, list)
        and isinstance(found, list)
        and len(expected) == len(found)
        and canonical(expected) != canonical(found)
    ):
        for i, (e, f) in enumerate(zip(expected, found, strict=True)):
            _compare(e, f, path, f"{field}[{i}]", out)
        return
    if canonical(expected) != canonical(found):
        out.append(Difference(path, "changed", field, expected, found))


def _child(path: str, name: str) -> str:
    return f"{path.rstrip('/')}/{name}"


def _diff_nodes(expected: ModelNode, found: ModelNode, path: str, out: list[Difference]) -> None:
    if expected.zarr_format != found.zarr_format:
        out.append(Difference(path, "changed", "zarr_format", expected.zarr_format, found.zarr_format))
        return
    if expected.node_type != found.node_type:
        out.append(Difference(path, "changed", "node_type", expected.node_type, found.node_type))
        return
    _compare(expected.properties(), found.properties(), path, "", out)
    if expected.node_type == "group":  # and so is found's
        expected, found = cast(ModelGroup, expected), cast(ModelGroup, found)
        names = list(expected.members) + [n for n in found.members if n not in expected.members]
        for name in names:
            where = _child(path, name)
            if name not in found.members:
                out.append(Difference(where, "missing", None, expected.members[name], None))
            elif name not in expected.members:
                out.append(Difference(where, "extra", None, None, found.members[name]))
            else:
                _diff_nodes(expected.members[name], found.members[name], where, out)


def diff(expected: ModelNode, found: ModelNode, *, root: str = "/") -> list[Difference]:
    """Every difference between the model ``expected`` and the model ``found``."""
    out: list[Difference] = []
    _diff_nodes(expected, found, root, out)
    return out
