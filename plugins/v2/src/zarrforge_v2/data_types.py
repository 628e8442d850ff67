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

from zarrforge import plugin_api as c
from zarrforge.errors import MetadataError
from zarrforge.plugin_api import DataType, registry

from ._util import _is_int, refield
from .codecs import OBJECT_CODECS, OTHER_OBJECT_CODECS

def _object_codec(filters: list[dict[str, Any]]) -> tuple[int, str] | None:
    for i, f in enumerate(filters):
        if f["id"] in OBJECT_CODECS or f["id"] in OTHER_OBJECT_CODECS:
            return i, f["id"]
    return None


def data_type_from_v2(value: Any, filters: list[dict[str, Any]]) -> tuple[DataType, str | None]:
    """The data type of a ``dtype`` field, and the object codec id for ``"|O"``."""
    if isinstance(value, list):
        raise MetadataError("structured data types (a list of fields) are not supported by "
                            "zarrforge", field="dtype", value=value)
    if not isinstance(value, str):
        raise MetadataError(f"must be a numpy type string such as '<f8' or '|u1', got {value!r}",
                            field="dtype", value=value)
    try:
        np_dtype = np.dtype(value)
    except Exception as exc:
        raise MetadataError(f"{value!r} is not a numpy type string (such as '<f8', '|u1', "
                            f"'<M8[ns]'): {exc}", field="dtype", value=value) from None
    if np_dtype.fields is not None:
        raise MetadataError("structured data types are not supported by zarrforge",
                            field="dtype", value=value)
    if np_dtype.kind == "O":
        found = _object_codec(filters)
        if found is None:
            raise MetadataError("an object array ('|O') needs an object codec in 'filters' "
                                f"(vlen-utf8 or vlen-bytes); none found in {filters!r}",
                                field="dtype", value=value)
        index, codec_id = found
        if codec_id not in OBJECT_CODECS:
            raise MetadataError(f"object arrays encoded with {codec_id!r} are not supported; "
                                "zarrforge reads '|O' arrays with vlen-utf8 (strings) or "
                                "vlen-bytes (bytes)", field=f"filters[{index}].id", value=codec_id)
        type_name = OBJECT_CODECS[codec_id][0]
        implementation = registry.data_types.get(type_name, field="dtype")
        return implementation.from_json(type_name, None), codec_id
    if np_dtype.kind == "V" and np_dtype.subdtype is not None:
        raise MetadataError("sub-array data types are not supported", field="dtype", value=value)
    try:
        return c.data_type_from_user(np_dtype), None
    except MetadataError as exc:
        raise refield(exc, "dtype") from None


def dtype_string(data_type: DataType, byteorder: str) -> str:
    """The v2 type string of a fixed-size data type with byte order ``'<'`` or ``'>'``."""
    np_dtype = data_type.numpy_dtype
    if data_type.has_endianness:
        return np_dtype.newbyteorder(byteorder).str
    return np_dtype.str


def fill_value_from_v2(data_type: DataType, value: Any) -> Any:
    """The in-memory fill value for a non-null v2 ``fill_value``."""
    dtype = data_type.numpy_dtype
    kind = dtype.kind
    try:
        if kind in "VS":
            if not isinstance(value, str):
                raise MetadataError(f"expected a base64 string for dtype {dtype.str!r}, got "
                                    f"{value!r}", field="fill_value", value=value)
            try:
                raw = base64.b64decode(value.encode("ascii"), validate=True)
            except (UnicodeEncodeError, binascii.Error):
                raise MetadataError(f"{value!r} is not valid base64", field="fill_value",
                                    value=value) from None
            if kind == "V":
                if len(raw) != dtype.itemsize:
                    raise MetadataError(f"decodes to {len(raw)} bytes; dtype {dtype.str!r} "
                                        f"needs {dtype.itemsize}", field="fill_value", value=value)
                return data_type.from_user_value(raw)
            return data_type.from_user_value(raw)
        if kind in "iu" and isinstance(value, float) and value.is_integer():
            value = int(value)  # some writers stored integer fill values as floats
        if kind == "b" and _is_int(value) and value in (0, 1):
            value = bool(value)
        if (kind == "T" and isinstance(value, (int, float)) and not isinstance(value, bool)):
            value = str(value)  # zarr-python 2 wrote numbers for string arrays; read as zarr-python 3
        if kind == "U" and _is_int(value) and value == 0:
            # zarr-python 2 wrote 0 as the fill value of fixed-length text arrays: the
            # dtype's zero, the empty string, is what it meant
            return data_type.default_fill_value()
        if kind == "c" and isinstance(value, (int, float, str)) and not isinstance(value, bool):
            value = [value, 0.0]
        return data_type.fill_value_from_json(value)
    except MetadataError as exc:
        raise refield(exc, "fill_value") from None
    except (TypeError, ValueError, OverflowError) as exc:
        raise MetadataError(f"{value!r} is not a valid fill value for dtype {dtype.str!r}: {exc}",
                            field="fill_value", value=value) from None


def _nan_strings(value: Any) -> Any:
    """v2 has no NaN bit patterns: any ``"0x..."`` float encoding is a NaN."""
    if isinstance(value, str) and value.startswith("0x"):
        return "NaN"
    if isinstance(value, list):
        return [_nan_strings(v) for v in value]
    return value


def fill_value_to_v2(data_type: DataType, value: Any) -> Any:
    dtype = data_type.numpy_dtype
    if dtype.kind in "VS":
        raw = np.array(value, dtype=dtype).tobytes()
        return base64.b64encode(raw).decode("ascii")
    encoded = data_type.fill_value_to_json(value)
    if dtype.kind in "fc":
        encoded = _nan_strings(encoded)
    return encoded
