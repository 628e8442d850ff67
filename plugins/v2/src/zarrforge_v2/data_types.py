"""Zarr v2 ``dtype`` strings and ``fill_value`` encodings <-> the model's data types.

A ``dtype`` is a numpy type string; it maps to the registered data type for
that numpy dtype (its byte order goes to the ``bytes`` codec), ``"|O"`` with a
``vlen-utf8`` / ``vlen-bytes`` filter to the ``string`` / ``bytes`` data type.
Fill values use v2's encodings (base64 for raw bytes, ``"NaN"`` strings; any
``"0x..."`` float is a NaN, as v2 has no NaN bit patterns).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import numpy as np

from zarrforge.errors import MetadataError, UnknownExtensionError
from zarrforge.plugin_api import formats as c
from zarrforge.plugin_api.formats import DataType, registry

from ._util import _byteorder, _in_order, _is_int
from .codecs import OBJECT_CODECS, OTHER_OBJECT_CODECS


def _object_codec(filters: list[dict[str, Any]]) -> tuple[int, str] | None:
    for i, f in enumerate(filters):
        if f["id"] in OBJECT_CODECS or f["id"] in OTHER_OBJECT_CODECS:
            return i, f["id"]
    return None


# What a v2 ``dtype`` may be, for error messages about ones zarrforge cannot read.
V2_DTYPES = (
    "'|b1'; '|i1', '<i2', '<i4', '<i8' and the unsigned '|u1'..'<u8'; '<f2', '<f4', "
    "'<f8'; '<c8', '<c16'; '<M8[unit]', '<m8[unit]'; '<U<n>'; '|S<n>'; '|V<n>'; '|O' "
    "with a vlen-utf8, vlen-bytes or json2 filter; structured lists such as "
    '[["a", "<i4"], ["b", "<f8"]] (any of these as \'>\' for big-endian, '
    "ml_dtypes names such as 'bfloat16' where zarrforge-dtypes is installed)"
)
_MAX_FIELD_DEPTH = 32


def _structured_descr(value: Any, field: str, depth: int = 0) -> list[tuple[str, Any]]:
    """A v2 structured ``dtype`` (``[[name, type], ...]``, types nested lists or strings)
    as a numpy descr, after checking its shape; shaped fields are refused (``struct``
    has no spelling for them)."""
    if depth > _MAX_FIELD_DEPTH:
        raise MetadataError(
            f"structured dtype nested more than {_MAX_FIELD_DEPTH} deep", field=field, value=None
        )
    if not isinstance(value, list) or not value:
        raise MetadataError(
            f"a structured dtype must be a non-empty list of [name, type] fields, got {value!r}",
            field=field,
            value=value,
        )
    descr: list[tuple[str, Any]] = []
    for i, entry in enumerate(value):
        where = f"{field}[{i}]"
        if isinstance(entry, list) and len(entry) == 3:
            raise MetadataError(
                f"field {entry[0]!r} has a shape {entry[2]!r}; zarrforge reads "
                "structured dtypes whose fields are scalars (the v3 'struct' "
                "type has no shaped fields)",
                field=where,
                value=entry,
            )
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str) and entry[0]):
            raise MetadataError(
                f"a structured dtype field must be [name, type] with a non-empty name, got {entry!r}",
                field=where,
                value=entry,
            )
        name, kind = entry
        if isinstance(kind, list):
            descr.append((name, _structured_descr(kind, f"{where}[1]", depth + 1)))
        elif isinstance(kind, str):
            descr.append((name, kind))
        else:
            raise MetadataError(
                f"field {name!r}: the type must be a numpy type string or a list of fields, got {kind!r}",
                field=f"{where}[1]",
                value=kind,
            )
    return descr


def leaf_byteorders(np_dtype: np.dtype) -> set[str]:
    """The byte orders ('<', '>') of the multi-byte scalars in a (structured) numpy dtype."""
    if np_dtype.fields is None:
        order = np_dtype.str[0]
        return set() if order == "|" else {order}
    return set().union(*(leaf_byteorders(np_dtype.fields[n][0]) for n in np_dtype.names or ()))


def dtype_byteorder(value: Any) -> str:
    """The byte order ('<', '>' or '|') of a v2 ``dtype`` (a string or a structured list);
    a structured dtype mixing byte orders is refused (one ``bytes`` codec serialises it)."""
    if isinstance(value, list):
        orders = leaf_byteorders(np.dtype(_structured_descr(value, "dtype")))
        if len(orders) > 1:
            raise MetadataError(
                "a structured dtype mixing little- and big-endian fields is not "
                "supported; its fields must share one byte order",
                field="dtype",
                value=value,
            )
        return orders.pop() if orders else "|"
    return _byteorder(value) or "|"


def data_type_from_v2(value: Any, filters: list[dict[str, Any]]) -> tuple[DataType, str | None]:
    """The data type of a ``dtype`` field, and the object codec id for ``"|O"``."""
    if isinstance(value, list):
        descr = _structured_descr(value, "dtype")
        try:
            np_dtype = np.dtype(descr)
        except Exception as exc:  # noqa: BLE001  # numpy raises several types for a descr that is no dtype
            raise MetadataError(
                f"{value!r} is not a valid structured dtype: {exc}", field="dtype", value=value
            ) from None
        return _registered(np_dtype, value), None
    if not isinstance(value, str):
        raise MetadataError(
            f"must be a numpy type string such as '<f8' or '|u1', got {value!r}", field="dtype", value=value
        )
    try:
        np_dtype = np.dtype(value)
    except Exception:  # noqa: BLE001  # numpy raises several types for a descr that is no dtype
        raise MetadataError(
            f"{value!r} is not a numpy type string; v2 dtypes zarrforge reads: {V2_DTYPES}",
            field="dtype",
            value=value,
        ) from None
    if np_dtype.fields is not None:
        raise MetadataError(
            f"a structured dtype is written as a list of [name, type] fields, not as the string {value!r}",
            field="dtype",
            value=value,
        )
    if np_dtype.kind == "O":
        found = _object_codec(filters)
        if found is None:
            raise MetadataError(
                "an object array ('|O') needs an object codec in 'filters' "
                f"(vlen-utf8 or vlen-bytes); none found in {filters!r}",
                field="dtype",
                value=value,
            )
        index, codec_id = found
        if codec_id not in OBJECT_CODECS:
            raise MetadataError(
                f"object arrays encoded with {codec_id!r} are not supported; "
                "zarrforge reads '|O' arrays with vlen-utf8 (strings) or "
                "vlen-bytes (bytes)",
                field=f"filters[{index}].id",
                value=codec_id,
            )
        type_name = OBJECT_CODECS[codec_id][0]
        implementation = registry.data_types.get(type_name, field="dtype")
        return implementation.from_json(type_name, None), codec_id
    if np_dtype.kind == "V" and np_dtype.subdtype is not None:
        raise MetadataError(
            f"sub-array dtype {value!r} is not supported; v2 dtypes zarrforge reads: {V2_DTYPES}",
            field="dtype",
            value=value,
        )
    return _registered(np_dtype, value), None


def _registered(np_dtype: np.dtype, value: Any) -> DataType:
    try:
        return c.data_type_from_user(np_dtype)
    except UnknownExtensionError:
        raise MetadataError(
            f"no installed data type holds the v2 dtype {value!r}; v2 dtypes zarrforge reads: {V2_DTYPES}",
            field="dtype",
            value=value,
        ) from None
    except MetadataError as exc:
        raise exc.relocated("dtype") from None


def _descr_in(np_dtype: np.dtype, byteorder: str) -> Any:
    """The v2 spelling of a (possibly structured) numpy dtype with multi-byte leaves in
    ``byteorder``: a type string, or a list of [name, type] fields."""
    if np_dtype.fields is None:
        if np_dtype.str[0] in "<>=":
            return _in_order(np_dtype, byteorder).str
        return np_dtype.str
    return [[n, _descr_in(np_dtype.fields[n][0], byteorder)] for n in np_dtype.names or ()]


def dtype_string(data_type: DataType, byteorder: str) -> Any:
    """The v2 ``dtype`` of a fixed-size data type with byte order ``'<'`` or ``'>'``: a type
    string, or for a structured type a list of ``[name, type]`` fields."""
    np_dtype = data_type.numpy_dtype
    if np_dtype.fields is not None:
        return _descr_in(np_dtype, byteorder)
    if data_type.has_endianness:
        return _in_order(np_dtype, byteorder).str
    return np_dtype.str


def fill_value_from_v2(data_type: DataType, value: Any, byteorder: str = "<") -> Any:
    """The in-memory fill value for a non-null v2 ``fill_value``; ``byteorder`` is the
    ``dtype``'s (structured fill values are the packed bytes in that order)."""
    dtype = data_type.numpy_dtype
    kind = dtype.kind
    try:
        if kind in "SU" and _is_int(value):
            # older zarr-python 2 releases wrote 0 as the fill value of '<U4' / '|S1' arrays
            # (the public zarr-python fixtures hold it), and zarr-python 2 reads it as numpy
            # casts it: the text "0", cut to the dtype's length. Read what the writer reads
            # (docs/formats.md)
            return data_type.from_user_value(np.array(value, dtype=dtype)[()])
        if kind in "VS":
            if not isinstance(value, str):
                raise MetadataError(
                    f"expected a base64 string for dtype {dtype.str!r}, got {value!r}",
                    field="fill_value",
                    value=value,
                )
            try:
                raw = base64.b64decode(value.encode("ascii"), validate=True)
            except (UnicodeEncodeError, binascii.Error):
                raise MetadataError(
                    f"{value!r} is not valid base64", field="fill_value", value=value
                ) from None
            if kind == "V":
                if len(raw) != dtype.itemsize:
                    raise MetadataError(
                        f"decodes to {len(raw)} bytes; dtype {dtype.str!r} needs {dtype.itemsize}",
                        field="fill_value",
                        value=value,
                    )
                if dtype.fields is not None:
                    stored = _in_order(dtype, byteorder if byteorder in "<>" else "<")
                    return data_type.from_user_value(np.frombuffer(raw, dtype=stored).astype(dtype)[0])
                return data_type.from_user_value(raw)
            return data_type.from_user_value(raw)
        if kind in "iu" and isinstance(value, float) and value.is_integer():
            value = int(value)  # some writers stored integer fill values as floats
        if kind == "b" and _is_int(value) and value in (0, 1):
            value = bool(value)
        if kind == "T" and isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)  # zarr-python 2 wrote numbers for string arrays; read as zarr-python 3
        if kind == "c" and isinstance(value, (int, float, str)) and not isinstance(value, bool):
            value = [value, 0.0]
        return data_type.fill_value_from_json(value)
    except MetadataError as exc:
        raise exc.relocated("fill_value") from None
    except (TypeError, ValueError, OverflowError) as exc:
        raise MetadataError(
            f"{value!r} is not a valid fill value for dtype {dtype.str!r}: {exc}",
            field="fill_value",
            value=value,
        ) from None


def _nan_strings(value: Any) -> Any:
    """v2 has no NaN bit patterns: any ``"0x..."`` float encoding is a NaN."""
    if isinstance(value, str) and value.startswith("0x"):
        return "NaN"
    if isinstance(value, list):
        return [_nan_strings(v) for v in value]
    return value


def fill_value_to_v2(data_type: DataType, value: Any, byteorder: str = "<") -> Any:
    dtype = data_type.numpy_dtype
    if dtype.kind in "VS":
        stored = _in_order(dtype, byteorder) if dtype.fields is not None else dtype
        raw = np.array(value, dtype=dtype).astype(stored).tobytes()
        return base64.b64encode(raw).decode("ascii")
    encoded = data_type.fill_value_to_json(value)
    if dtype.kind in "fc":
        encoded = _nan_strings(encoded)
    return encoded
