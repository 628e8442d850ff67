"""The core data types of the v3 spec and their fill value encodings.

Registered names: ``bool``, ``int8`` .. ``int64``, ``uint8`` .. ``uint64``,
``float16``, ``float32``, ``float64``, ``complex64``, ``complex128`` and the
raw-bits family ``r*`` (``r8``, ``r16``, ... any positive multiple of 8).

Fill values (spec, "Permitted fill values"):

* bool: ``true``/``false`` (``0``/``1`` read as a legacy spelling, never written);
* integers: a JSON integer within the type's range;
* floats: a number (rounded to the type), ``"NaN"``, ``"Infinity"``,
  ``"-Infinity"``, or ``"0x..."`` giving the bit pattern; NaNs other than the
  canonical quiet NaN are written as hex so no payload is lost;
* complex: a two-element list of float encodings;
* raw ``r<N>``: a list of N/8 integers in 0..255 (one per byte).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from zarrforge.abc.data_type import DataType
from zarrforge.errors import MetadataError

from ._config import is_int


def _fill_error(name: str, value: Any, valid: str) -> MetadataError:
    return MetadataError(
        f"invalid fill value {value!r} for data type {name!r}; expected {valid}",
        field="fill_value",
        value=value,
    )


class _Simple(DataType):
    """A fixed-size type without configuration."""

    dtype: ClassVar[np.dtype]

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> DataType:
        if configuration:
            raise MetadataError(
                f"data type {name!r} takes no configuration, got {configuration!r}",
                field="configuration",
                value=configuration,
            )
        return cls()

    @classmethod
    def from_numpy_dtype(cls, dtype: np.dtype) -> DataType | None:
        if dtype.kind == cls.dtype.kind and dtype.itemsize == cls.dtype.itemsize:
            return cls()
        return None

    def to_json(self) -> str:
        return self.name

    @property
    def numpy_dtype(self) -> np.dtype:
        return self.dtype

    def default_fill_value(self) -> Any:
        return self.dtype.type(0)


class Bool(_Simple):
    name = "bool"
    dtype = np.dtype(bool)

    def fill_value_from_json(self, value: Any) -> Any:
        # 0 and 1 are a legacy spelling (zarrita, early zarr-python 3), read
        # as false and true; fill_value_to_json writes true/false only.
        if not isinstance(value, bool) and not (is_int(value) and value in (0, 1)):
            raise _fill_error(self.name, value, "true or false (0 and 1 are read too)")
        return np.bool_(value)

    def fill_value_to_json(self, value: Any) -> Any:
        return bool(value)

    def from_user_value(self, value: Any) -> Any:
        if isinstance(value, (bool, np.bool_)) or (is_int(value) and value in (0, 1)):
            return np.bool_(value)
        raise _fill_error(self.name, value, "a boolean")


class _Integer(_Simple):
    def _check(self, value: Any) -> Any:
        info = np.iinfo(self.dtype)
        if not (is_int(value) or isinstance(value, np.integer)) or not info.min <= int(value) <= info.max:
            raise _fill_error(self.name, value, f"an integer in [{info.min}, {info.max}]")
        return self.dtype.type(int(value))

    def fill_value_from_json(self, value: Any) -> Any:
        return self._check(value)

    def fill_value_to_json(self, value: Any) -> Any:
        return int(value)

    def from_user_value(self, value: Any) -> Any:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return self._check(value)


def _uint_of(size: int) -> np.dtype:
    return np.dtype(f"<u{size}")


def _float_from_json(dtype: np.dtype, name: str, value: Any) -> Any:
    valid = (
        'a number, "NaN", "Infinity", "-Infinity" or a hex bit pattern '
        f'"0x" + {2 * dtype.itemsize} hex digits'
    )
    if isinstance(value, bool):
        raise _fill_error(name, value, valid)
    if isinstance(value, (int, float)):
        with np.errstate(over="ignore"):
            return dtype.type(value)
    if isinstance(value, str):
        if value == "NaN":
            return dtype.type(np.nan)
        if value == "Infinity":
            return dtype.type(np.inf)
        if value == "-Infinity":
            return dtype.type(-np.inf)
        if value.startswith("0x") and len(value) == 2 + 2 * dtype.itemsize:
            try:
                bits = int(value[2:], 16)
            except ValueError:
                raise _fill_error(name, value, valid) from None
            return (
                np.array([bits], dtype=_uint_of(dtype.itemsize))
                .view(dtype.newbyteorder("<"))[0]
                .astype(dtype)
            )
    raise _fill_error(name, value, valid)


def _float_to_json(dtype: np.dtype, value: Any) -> Any:
    value = dtype.type(value)
    if np.isnan(value):
        canonical = dtype.type(np.nan)
        if np.array(value, dtype).tobytes() == np.array(canonical, dtype).tobytes():
            return "NaN"
        bits = (
            np.array([value], dtype=dtype).astype(dtype.newbyteorder("<")).view(_uint_of(dtype.itemsize))[0]
        )
        return f"0x{int(bits):0{2 * dtype.itemsize}x}"
    if np.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return float(value)


class _Float(_Simple):
    def fill_value_from_json(self, value: Any) -> Any:
        return _float_from_json(self.dtype, self.name, value)

    def fill_value_to_json(self, value: Any) -> Any:
        return _float_to_json(self.dtype, value)

    def from_user_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.fill_value_from_json(value)
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise _fill_error(self.name, value, "a real number")
        return self.dtype.type(value)


class _Complex(_Simple):
    @property
    def _part(self) -> np.dtype:
        return np.dtype(f"f{self.dtype.itemsize // 2}")

    def fill_value_from_json(self, value: Any) -> Any:
        if not isinstance(value, list) or len(value) != 2:
            raise _fill_error(self.name, value, "a list [real, imaginary] of float encodings")
        real, imag = (_float_from_json(self._part, self.name, v) for v in value)
        out = np.zeros((), dtype=self.dtype)
        out.real, out.imag = real, imag
        return out[()]

    def fill_value_to_json(self, value: Any) -> Any:
        value = self.dtype.type(value)
        return [_float_to_json(self._part, value.real), _float_to_json(self._part, value.imag)]

    def from_user_value(self, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return self.fill_value_from_json(list(value))
        if isinstance(value, bool) or not isinstance(value, (int, float, complex, np.number)):
            raise _fill_error(self.name, value, "a number or [real, imaginary]")
        return self.dtype.type(value)


def _simple(cls_name: str, base: type, name: str, dtype: str) -> type:
    return type(cls_name, (base,), {"name": name, "dtype": np.dtype(dtype), "__module__": __name__})


Int8 = _simple("Int8", _Integer, "int8", "i1")
Int16 = _simple("Int16", _Integer, "int16", "i2")
Int32 = _simple("Int32", _Integer, "int32", "i4")
Int64 = _simple("Int64", _Integer, "int64", "i8")
UInt8 = _simple("UInt8", _Integer, "uint8", "u1")
UInt16 = _simple("UInt16", _Integer, "uint16", "u2")
UInt32 = _simple("UInt32", _Integer, "uint32", "u4")
UInt64 = _simple("UInt64", _Integer, "uint64", "u8")
Float16 = _simple("Float16", _Float, "float16", "f2")
Float32 = _simple("Float32", _Float, "float32", "f4")
Float64 = _simple("Float64", _Float, "float64", "f8")
Complex64 = _simple("Complex64", _Complex, "complex64", "c8")
Complex128 = _simple("Complex128", _Complex, "complex128", "c16")


class RawBits(DataType):
    """``r<N>``: N bits (a multiple of 8) of opaque data, held as numpy ``V<N/8>``."""

    name = "r*"

    def __init__(self, bits: int) -> None:
        self.bits = bits
        self._dtype = np.dtype(f"V{bits // 8}")

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> DataType:
        digits = name[1:]
        if not (
            name.startswith("r") and digits.isdigit() and not digits.startswith("0") and int(digits) % 8 == 0
        ):
            raise MetadataError(
                f"invalid raw data type {name!r}; expected 'r' followed by a "
                "positive multiple of 8 (r8, r16, ...)",
                field="data_type",
                value=name,
            )
        if configuration:
            raise MetadataError(
                f"data type {name!r} takes no configuration", field="configuration", value=configuration
            )
        return cls(int(digits))

    @classmethod
    def from_numpy_dtype(cls, dtype: np.dtype) -> DataType | None:
        # Only plain void: extension types such as ml_dtypes' floats also report kind "V".
        if dtype.type is np.void and dtype.fields is None and dtype.itemsize > 0:
            return cls(dtype.itemsize * 8)
        return None

    def to_json(self) -> str:
        return f"r{self.bits}"

    @property
    def numpy_dtype(self) -> np.dtype:
        return self._dtype

    @property
    def has_endianness(self) -> bool:
        return False

    def default_fill_value(self) -> Any:
        return np.zeros((), dtype=self._dtype)[()]

    def fill_value_from_json(self, value: Any) -> Any:
        n = self.bits // 8
        if (
            not isinstance(value, list)
            or len(value) != n
            or not all(is_int(v) and 0 <= v <= 255 for v in value)
        ):
            raise _fill_error(self.to_json(), value, f"a list of {n} integers in [0, 255]")
        return np.frombuffer(bytes(value), dtype=self._dtype)[0]

    def fill_value_to_json(self, value: Any) -> Any:
        return list(np.array(value, dtype=self._dtype).tobytes())

    def from_user_value(self, value: Any) -> Any:
        if isinstance(value, (bytes, bytearray)):
            value = list(value)
        if isinstance(value, np.void):
            value = list(value.tobytes())
        return self.fill_value_from_json(list(value) if isinstance(value, (list, tuple)) else value)
