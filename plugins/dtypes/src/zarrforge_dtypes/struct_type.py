"""Records of named, typed fields: the ``struct`` data type and its legacy alias ``structured``.

Metadata (zarr-extensions ``struct``)::

    {"name": "struct", "configuration": {"fields": [
        {"name": "x", "data_type": "float32"},
        {"name": "p", "data_type": {"name": "struct", "configuration": {...}}}]}}

Each field names a fixed-size data type (any registered one, nested
``struct`` included; variable-size types are refused). Field names are
non-empty and unique; there is at least one field.

``structured`` is the legacy name zarr-python 3.1 writes. Such documents may
hold ``[name, data_type]`` pairs and base64 fill values, and their ``bytes``
codec usually has no ``endian``; the registry says to read them as
little-endian, so a ``structured`` type is always little-endian and declares no
byte order to the codec (an ``endian: "big"`` on such an array is not
honoured). New arrays are never made ``structured`` (``dtype=`` a numpy
structured dtype gives ``struct``); a ``structured`` array opened and
rewritten (attributes, resize) keeps its legacy document, fill value in
base64, so zarr-python 3.1 can still read it.

In memory: a packed (unaligned) numpy structured dtype whose fields are the
field types' numpy dtypes, in declaration order; that is also the ``bytes``
codec's layout (fields concatenated, no padding). Byte order matters when any
field's does, and then applies to every field.

Fill values: a JSON object with one entry per field, each the field type's
own encoding (``{"x": 1.5, "p": {...}}``); ``structured`` documents may instead
hold a base64 string of the packed little-endian bytes. The default fill
value is every field's default.

Mapping from numpy: any structured numpy dtype (``[("x", "<f4"), ...]``)
whose fields all map to data types and that no other registered type claims
as a whole (a plugin's record type such as an RGB pixel wins, whatever its
name); an aligned (padded) dtype maps to its packed equivalent. Shaped
fields have no ``struct`` spelling: such dtypes map to nothing.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from zarrforge.abc.data_type import DataType
from zarrforge.errors import MetadataError
from zarrforge.plugin_api.data_types import registry

from ._util import config_keys, fill_error

_MAX_DEPTH = 32  # nesting deeper than this is refused rather than recursed into


def _field_type(document: Any, where: str, depth: int) -> DataType:
    if isinstance(document, str):
        name, configuration = document, None
    elif (
        isinstance(document, dict)
        and isinstance(document.get("name"), str)
        and set(document) <= {"name", "configuration"}
    ):
        name, configuration = document["name"], document.get("configuration")
    else:
        raise MetadataError(
            f"{where}: a field's data_type must be a name or an object "
            f"{{'name', 'configuration'}}, got {document!r}",
            field=where,
            value=document,
        )
    if name in ("struct", "structured"):
        found: DataType = Struct._parse(name, configuration, depth + 1)
    else:
        # an unknown name raises UnknownExtensionError (a MetadataError) naming ``where``
        implementation = registry.data_types.get(name, field=where)
        found = implementation.from_json(name, configuration)
    if found.item_size is None:
        raise MetadataError(
            f"{where}: the variable-size data type {found.to_json()!r} cannot be "
            "a struct field; fields need a fixed size",
            field=where,
            value=document,
        )
    return found


class Struct(DataType):
    """A record type; ``fields`` is a tuple of ``(name, DataType)``."""

    name = "struct"

    def __init__(self, fields: tuple[tuple[str, DataType], ...], legacy: bool = False) -> None:
        self.fields = fields
        self._legacy = legacy
        dtype = np.dtype([(n, t.numpy_dtype) for n, t in fields])
        # legacy arrays are little-endian whatever their bytes codec says (see module doc)
        self._dtype = dtype.newbyteorder("<") if legacy else dtype

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> Struct:
        return cls._parse(name, configuration, 0)

    @classmethod
    def _parse(cls, name: str, configuration: Any, depth: int) -> Struct:
        if depth > _MAX_DEPTH:
            raise MetadataError(
                f"{name}: struct types nested more than {_MAX_DEPTH} deep", field="configuration", value=None
            )
        config = config_keys(name, configuration, {"fields"}, {"fields"})
        fields = config["fields"]
        if not isinstance(fields, list) or not fields:
            raise MetadataError(
                f"{name}: 'fields' must be a non-empty list of field objects, got {fields!r}",
                field="configuration.fields",
                value=fields,
            )
        parsed: list[tuple[str, DataType]] = []
        for i, field in enumerate(fields):
            where = f"configuration.fields[{i}]"
            if name == "structured" and isinstance(field, list) and len(field) == 2:
                field = {"name": field[0], "data_type": field[1]}  # legacy pair form
            if not isinstance(field, dict) or set(field) != {"name", "data_type"}:
                raise MetadataError(
                    f"{name}: field {i} must be an object with exactly 'name' and 'data_type', got {field!r}",
                    field=where,
                    value=field,
                )
            field_name = field["name"]
            if not isinstance(field_name, str) or not field_name:
                raise MetadataError(
                    f"{name}: field {i} needs a non-empty string name, got {field_name!r}",
                    field=where + ".name",
                    value=field_name,
                )
            if any(field_name == seen for seen, _ in parsed):
                raise MetadataError(
                    f"{name}: duplicate field name {field_name!r}; names must be unique",
                    field=where + ".name",
                    value=field_name,
                )
            parsed.append((field_name, _field_type(field["data_type"], where + ".data_type", depth)))
        return cls(tuple(parsed), legacy=name == "structured")

    @classmethod
    def from_numpy_dtype(cls, np_dtype: np.dtype) -> Struct | None:
        if np_dtype.fields is None or not np_dtype.names:
            return None
        if _data_type_of(np_dtype, skip=cls) is not None:
            return None  # a more specific type owns this record dtype (an RGB pixel, say)
        fields = []
        for field_name in np_dtype.names:
            sub = np_dtype.fields[field_name][0]
            if sub.subdtype is not None:  # shaped fields have no struct spelling
                return None
            found = _data_type_of(sub)
            if found is None:
                return None
            fields.append((field_name, found))
        return cls(tuple(fields))

    def to_json(self) -> dict[str, Any]:
        if self._legacy:
            return {
                "name": "structured",
                "configuration": {"fields": [[n, t.to_json()] for n, t in self.fields]},
            }
        return {
            "name": "struct",
            "configuration": {"fields": [{"name": n, "data_type": t.to_json()} for n, t in self.fields]},
        }

    @property
    def numpy_dtype(self) -> np.dtype:
        return self._dtype

    @property
    def has_endianness(self) -> bool:
        return not self._legacy and self._fields_have_endianness()

    def _fields_have_endianness(self) -> bool:
        return any(t.has_endianness for _, t in self.fields)

    def default_fill_value(self) -> Any:
        return self._assemble({n: t.default_fill_value() for n, t in self.fields})

    def _assemble(self, values: dict[str, Any]) -> Any:
        out = np.zeros((), dtype=self._dtype)
        for field_name, _ in self.fields:
            out[field_name] = values[field_name]
        return out[()]

    def _valid(self) -> str:
        return "an object with one fill value per field: " + ", ".join(n for n, _ in self.fields)

    def fill_value_from_json(self, value: Any) -> Any:
        if isinstance(value, str) and self._legacy:
            return self._from_base64(value)
        if not isinstance(value, dict) or set(value) != {n for n, _ in self.fields}:
            raise fill_error("struct", value, self._valid())
        return self._assemble({n: t.fill_value_from_json(value[n]) for n, t in self.fields})

    def _from_base64(self, value: str) -> Any:
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raw = None
        if raw is None or len(raw) != self._dtype.itemsize:
            raise fill_error(
                "structured", value, f"{self._valid()}, or base64 of {self._dtype.itemsize} bytes"
            )
        return np.frombuffer(raw, dtype=self._dtype.newbyteorder("<")).astype(self._dtype)[0]

    def fill_value_to_json(self, value: Any) -> Any:
        value = np.asarray(value, dtype=self._dtype)[()]
        if self._legacy:  # as zarr-python 3.1 writes it, so it can still read the array
            packed = np.asarray(value, dtype=self._dtype.newbyteorder("<")).tobytes()
            return base64.b64encode(packed).decode("ascii")
        return {n: t.fill_value_to_json(value[n]) for n, t in self.fields}

    def from_user_value(self, value: Any) -> Any:
        if isinstance(value, np.void) and value.dtype == self._dtype:
            return value
        if isinstance(value, dict):
            if set(value) != {n for n, _ in self.fields}:
                raise fill_error("struct", value, self._valid())
            return self._assemble({n: t.from_user_value(value[n]) for n, t in self.fields})
        if isinstance(value, (tuple, list, np.void)):
            items = cast("Sequence[Any]", value)  # numpy's stubs give np.void neither len() nor iter()
            if len(items) == len(self.fields):
                return self._assemble({n: t.from_user_value(v) for (n, t), v in zip(self.fields, items)})
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0:
            return self.default_fill_value()
        raise fill_error("struct", value, self._valid() + " (or a tuple in field order)")


def _data_type_of(np_dtype: np.dtype, skip: type | None = None) -> DataType | None:
    """The data type a numpy dtype maps to (the first registered type other than ``skip``
    that claims it); a data type plugin failing unexpectedly is left out."""

    def answer(implementation: type[DataType]) -> DataType | None:
        if skip is not None and isinstance(implementation, type) and issubclass(implementation, skip):
            return None
        return implementation.from_numpy_dtype(np_dtype)

    found: DataType | None = registry.data_types.first_answer(
        answer, doing=f"asked whether it is the numpy dtype {np_dtype} (a struct field)"
    )
    return found


class LegacyStructured(Struct):
    """The ``structured`` spelling zarr-python 3.1 writes: read (and written back as read),
    never chosen for a new array (a numpy record dtype gives ``struct``)."""

    name = "structured"

    @classmethod
    def from_numpy_dtype(cls, np_dtype: np.dtype) -> None:
        return None
