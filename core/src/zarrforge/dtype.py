"""zarr-python 3's ``zarr.dtype`` names, giving zarrforge's data types (issue #43).

``dtype=zarrforge.dtype.Int16()`` is written as ``dtype=zarr.dtype.Int16()`` is, and
stores the same ``data_type`` in ``zarr.json`` (and, for a Zarr v2 array, the same
``dtype`` in ``.zarray``) as zarr-python 3.4 stores for its object of that name.

Contract:

* Each class of zarr-python's ``zarr.dtype`` that this module supplies takes zarr-python's
  keyword arguments (``Int16(endianness="little")``, ``FixedLengthUTF32(length=4)``,
  ``DateTime64(unit="s", scale_factor=1)``, ``Struct(fields=(("a", Int16()),))``) and
  returns a zarrforge data type (a :class:`~zarrforge.abc.data_type.DataType` of the plugin
  registered under the name zarr-python writes), not an instance of the class itself.
  It is built from that ``data_type`` JSON through the data type registry, so this module
  imports no plugin: a type whose plugin is missing raises
  :class:`~zarrforge.errors.UnknownExtensionError` naming the distribution to install, and
  the plugin checks the configuration (a bad ``unit`` is its ``MetadataError``).
* ``isinstance(x, zarrforge.dtype.Int16)`` is true for a zarrforge data type of the class
  registered as ``int16`` whose JSON name is ``int16`` (``Array.data_type``, say), so
  ``Struct`` and the legacy ``Structured`` are told apart, as are ``VariableLengthBytes``
  and zarrforge's own ``bytes``. It is false for zarr-python's objects.
* ``endianness`` is taken where zarr-python takes it. zarrforge's data types carry no byte
  order (the ``bytes`` codec does; no attribute is set on another plugin's data type), so
  only ``"little"``, what zarr-python 3.4 stores in Zarr v3 whatever it is given, is
  accepted; ``"big"`` is refused naming the argument that stores big-endian chunks
  (``serializer=``, in both formats).
* ``ZDType`` is zarrforge's ``DataType``; :func:`parse_data_type` (and its newer name
  :func:`parse_dtype`) reads anything ``dtype=`` takes.
* The names of zarr-python's ``zarr.dtype`` not supplied here (:data:`NOT_SUPPLIED`) raise
  ``AttributeError`` saying why and what to use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

import numpy as np

from .abc.data_type import DataType
from .errors import MetadataError
from .registries import registry
from .registries.resolution import data_type_from_json, data_type_from_user

Endianness = Literal["little", "big"]
ZDType = DataType

_TYPING_AID = (
    "a typing aid for zarr-python's own JSON form of a data type; zarrforge's "
    "data types write theirs with to_json()"
)
NOT_SUPPLIED: dict[str, str] = {
    "data_type_registry": "zarrforge's registry of data types is zarrforge.registry.data_types "
    "(filled from the 'zarrforge.data_types' entry points); its methods "
    "are not those of zarr-python's DataTypeRegistry",
    "DTypeSpec_V2": _TYPING_AID,
    "check_dtype_spec_v2": "zarr-python's check of its own v2 JSON form; zarrforge's v2 "
    "format checks a .zarray's dtype when it reads it",
    "check_dtype_spec_no_object_codec_v2": "zarr-python's check of its own v2 JSON form; "
    "zarrforge's v2 format checks a .zarray's dtype "
    "when it reads it",
    "DataTypeValidationError": "zarr-python's deprecated name; zarrforge raises "
    "zarrforge.errors.MetadataError for an invalid data type",
    **dict.fromkeys(  # zarr-python 3.4.2 spells one of them NullterminatedBytesJSON_V2
        (
            "DateTime64JSON_V2",
            "DateTime64JSON_V3",
            "FixedLengthUTF32JSON_V2",
            "FixedLengthUTF32JSON_V3",
            "NullTerminatedBytesJSON_V3",
            "NullterminatedBytesJSON_V2",
            "RawBytesJSON_V2",
            "RawBytesJSON_V3",
            "StructJSON_V3",
            "StructuredJSON_V2",
            "StructuredJSON_V3",
            "TimeDelta64JSON_V2",
            "TimeDelta64JSON_V3",
            "VariableLengthBytesJSON_V2",
            "VariableLengthUTF8JSON_V2",
        ),
        _TYPING_AID,
    ),
}


def _json_name(document: Any) -> Any:
    return document.get("name") if isinstance(document, dict) else document


class _FaceType(type):
    """The metaclass of the faces: ``isinstance`` asks the registered data type."""

    data_type_name: str

    def __instancecheck__(cls, instance: Any) -> bool:
        if not isinstance(instance, DataType) or cls.data_type_name not in registry.data_types:
            return False
        implementation = registry.data_types.get(cls.data_type_name)
        return isinstance(instance, implementation) and _json_name(instance.to_json()) == cls.data_type_name

    def __repr__(cls) -> str:
        return f"<zarrforge.dtype.{cls.__name__}: the data type {cls.data_type_name!r}>"


class _Face(metaclass=_FaceType):
    """A zarr-python data type class name; calling it returns a zarrforge data type."""

    # Each face's __new__ returns a DataType, not a face: mypy's [misc] "incompatible return
    # type for __new__" is that design, ignored on each of them.

    data_type_name: ClassVar[str]

    @classmethod
    def _build(
        cls, configuration: dict[str, Any] | None = None, endianness: Endianness = "little"
    ) -> DataType:
        if endianness != "little":
            raise MetadataError(
                f"zarrforge.dtype.{cls.__name__}: endianness must be 'little', got "
                f"{endianness!r}; zarrforge's data types carry no byte order: for big-endian "
                "chunks pass serializer={'name': 'bytes', 'configuration': {'endian': 'big'}} "
                "to create_array (Zarr v2 then stores a '>' dtype)",
                field="endianness",
                value=endianness,
            )
        document: Any = (
            cls.data_type_name
            if configuration is None
            else {"name": cls.data_type_name, "configuration": configuration}
        )
        return data_type_from_json(document, field=f"zarrforge.dtype.{cls.__name__}")


def _length(cls: type, length: Any) -> int:
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 1:
        raise MetadataError(
            f"zarrforge.dtype.{cls.__name__}: length must be a positive integer, got {length!r}",
            field="length",
            value=length,
        )
    return int(length)


class _Plain(_Face):
    def __new__(cls) -> DataType:  # type: ignore[misc]
        return cls._build()


class _Ordered(_Face):
    def __new__(cls, *, endianness: Endianness = "little") -> DataType:  # type: ignore[misc]
        return cls._build(endianness=endianness)


class Bool(_Plain):
    data_type_name = "bool"


class Int8(_Plain):
    data_type_name = "int8"


class UInt8(_Plain):
    data_type_name = "uint8"


class Int16(_Ordered):
    data_type_name = "int16"


class Int32(_Ordered):
    data_type_name = "int32"


class Int64(_Ordered):
    data_type_name = "int64"


class UInt16(_Ordered):
    data_type_name = "uint16"


class UInt32(_Ordered):
    data_type_name = "uint32"


class UInt64(_Ordered):
    data_type_name = "uint64"


class Float16(_Ordered):
    data_type_name = "float16"


class Float32(_Ordered):
    data_type_name = "float32"


class Float64(_Ordered):
    data_type_name = "float64"


class Complex64(_Ordered):
    data_type_name = "complex64"


class Complex128(_Ordered):
    data_type_name = "complex128"


class VariableLengthUTF8(_Plain):
    """Variable-length text: the data type ``string`` (zarrforge-dtypes)."""

    data_type_name = "string"


class VariableLengthBytes(_Plain):
    """Variable-length bytes, as zarr-python writes them: ``variable_length_bytes``."""

    data_type_name = "variable_length_bytes"


class FixedLengthUTF32(_Face):
    """numpy ``U<length>``: ``fixed_length_utf32`` of ``4 * length`` bytes."""

    data_type_name = "fixed_length_utf32"

    def __new__(  # type: ignore[misc]  # a face returns the data type, not an instance of itself
        cls,
        *,
        length: int,
        endianness: Endianness = "little",
    ) -> DataType:
        return cls._build({"length_bytes": 4 * _length(cls, length)}, endianness)


class NullTerminatedBytes(_Face):
    """numpy ``S<length>``: ``null_terminated_bytes``."""

    data_type_name = "null_terminated_bytes"

    def __new__(cls, *, length: int) -> DataType:  # type: ignore[misc]
        return cls._build({"length_bytes": _length(cls, length)})


class RawBytes(_Face):
    """numpy ``V<length>``: ``raw_bytes``."""

    data_type_name = "raw_bytes"

    def __new__(cls, *, length: int) -> DataType:  # type: ignore[misc]
        return cls._build({"length_bytes": _length(cls, length)})


class DateTime64(_Face):
    """numpy ``datetime64[<scale_factor><unit>]``: ``numpy.datetime64``."""

    data_type_name = "numpy.datetime64"

    def __new__(  # type: ignore[misc]  # a face returns the data type, not an instance of itself
        cls,
        *,
        endianness: Endianness = "little",
        scale_factor: int = 1,
        unit: str = "generic",
    ) -> DataType:
        return cls._build({"unit": unit, "scale_factor": scale_factor}, endianness)


class TimeDelta64(DateTime64):
    """numpy ``timedelta64[<scale_factor><unit>]``: ``numpy.timedelta64``."""

    data_type_name = "numpy.timedelta64"


def _fields(cls: type, fields: Any) -> list[tuple[str, Any]]:
    """``(name, data type JSON)`` of each of zarr-python's ``fields`` pairs."""
    if isinstance(fields, (str, bytes)) or not isinstance(fields, Sequence) or not fields:
        raise MetadataError(
            f"zarrforge.dtype.{cls.__name__}: fields must be a non-empty "
            f"sequence of (name, data type) pairs, got {fields!r}",
            field="fields",
            value=fields,
        )
    out = []
    for i, pair in enumerate(fields):
        if (
            isinstance(pair, (str, bytes))
            or not isinstance(pair, Sequence)
            or len(pair) != 2
            or not isinstance(pair[0], str)
        ):
            raise MetadataError(
                f"zarrforge.dtype.{cls.__name__}: each field must be a pair (name, data type), got {pair!r}",
                field=f"fields[{i}]",
                value=pair,
            )
        out.append((pair[0], data_type_from_user(pair[1]).to_json()))
    return out


class Struct(_Face):
    """A record of named fields: ``struct``, each field ``{"name", "data_type"}``."""

    data_type_name = "struct"

    def __new__(cls, *, fields: Sequence[tuple[str, Any]]) -> DataType:  # type: ignore[misc]
        return cls._build(
            {"fields": [{"name": name, "data_type": data_type} for name, data_type in _fields(cls, fields)]}
        )


class Structured(_Face):
    """zarr-python's legacy record spelling: ``structured``, each field ``[name, type]``."""

    data_type_name = "structured"

    def __new__(cls, *, fields: Sequence[tuple[str, Any]]) -> DataType:  # type: ignore[misc]
        return cls._build({"fields": [[name, data_type] for name, data_type in _fields(cls, fields)]})


def parse_data_type(dtype_spec: Any, *, zarr_format: int | None = None) -> DataType:
    """The zarrforge data type for anything ``dtype=`` takes (a numpy dtype, a name, a data
    type of this module or of zarr-python). ``zarr_format`` (2, 3 or ``None``) is checked
    and changes nothing: a data type is the same for both formats (a numpy dtype's byte
    order is not part of it)."""
    if zarr_format not in (None, 2, 3):
        raise MetadataError(
            f"zarr_format must be 2, 3 or None, got {zarr_format!r}", field="zarr_format", value=zarr_format
        )
    return data_type_from_user(dtype_spec)


parse_dtype = parse_data_type

__all__ = [
    "Bool",
    "Complex64",
    "Complex128",
    "DateTime64",
    "FixedLengthUTF32",
    "Float16",
    "Float32",
    "Float64",
    "Int8",
    "Int16",
    "Int32",
    "Int64",
    "NullTerminatedBytes",
    "RawBytes",
    "Struct",
    "Structured",
    "TimeDelta64",
    "UInt8",
    "UInt16",
    "UInt32",
    "UInt64",
    "VariableLengthBytes",
    "VariableLengthUTF8",
    "ZDType",
    "parse_data_type",
    "parse_dtype",
]


def __getattr__(name: str) -> Any:
    if name in NOT_SUPPLIED:
        raise AttributeError(f"zarrforge.dtype does not supply zarr-python's {name!r}: {NOT_SUPPLIED[name]}")
    raise AttributeError(f"module 'zarrforge.dtype' has no attribute {name!r}")
