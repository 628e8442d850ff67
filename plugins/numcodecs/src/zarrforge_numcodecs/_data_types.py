"""Data types for the intermediate arrays numcodecs filters produce.

Contract: :func:`data_type_for` returns a
:class:`~zarrforge.abc.data_type.DataType` whose ``numpy_dtype`` equals the
given (native byte order) numpy dtype. It prefers, in order: the caller's
data type when it already has that dtype; the implementation installed for
the dtype's v3 core name (``int16`` -> the ``zarrforge.data_types`` entry
point, normally zarrforge-std); a small private stand-in. The stand-in only
describes a chunk between two codecs -- it is never written to metadata.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from zarrforge.abc.data_type import DataType
from zarrforge.errors import MetadataError

V3_CORE_NAMES = frozenset(
    {
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    }
)


def v3_name(dtype: np.dtype) -> str | None:
    name = np.dtype(dtype).name
    return name if name in V3_CORE_NAMES else None


def _installed(dtype: np.dtype) -> DataType | None:
    name = v3_name(dtype)
    if name is None:
        return None
    try:
        # Imported here, not at module level: the registry is only needed
        # once an array is actually being opened or created.
        from zarrforge.plugin_api.codecs import registry

        data_type = registry.data_types.get(name).from_json(name, None)
    except Exception:  # noqa: BLE001  # no provider installed, or a broken one: use the stand-in
        return None
    return data_type if data_type.numpy_dtype == dtype else None


def data_type_for(dtype: np.dtype, like: DataType | None = None) -> DataType:
    dtype = np.dtype(dtype).newbyteorder("=")
    if like is not None and like.numpy_dtype == dtype:
        return like
    return _installed(dtype) or IntermediateDataType(dtype)


class IntermediateDataType(DataType):
    """A numpy dtype dressed as a DataType, for chunks between two codecs."""

    name = "numcodecs.intermediate"

    def __init__(self, dtype: np.dtype) -> None:
        self._dtype = np.dtype(dtype)

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> IntermediateDataType:
        try:
            return cls(np.dtype(name))
        except TypeError as exc:
            raise MetadataError(f"not a numpy dtype: {name!r}", field="data_type", value=name) from exc

    def to_json(self) -> str:
        return v3_name(self._dtype) or self._dtype.str

    @property
    def numpy_dtype(self) -> np.dtype:
        return self._dtype

    def fill_value_from_json(self, value: Any) -> Any:
        if isinstance(value, list) and self._dtype.kind == "c":
            return self._dtype.type(complex(float(value[0]), float(value[1])))
        return self._dtype.type(value)

    def fill_value_to_json(self, value: Any) -> Any:
        value = value.item() if isinstance(value, np.generic) else value
        if isinstance(value, complex):
            return [self._float_json(value.real), self._float_json(value.imag)]
        if isinstance(value, float):
            return self._float_json(value)
        return value

    @staticmethod
    def _float_json(value: float) -> Any:
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value

    def default_fill_value(self) -> Any:
        return np.zeros((), dtype=self._dtype)[()]
