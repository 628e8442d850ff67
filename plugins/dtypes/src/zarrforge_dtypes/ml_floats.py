"""Small floating-point data types, held in memory as ml_dtypes scalar types.

Registered names (each a zarr-extensions data type that ml_dtypes implements):
``bfloat16``, ``float8_e3m4``, ``float8_e4m3``, ``float8_e4m3b11fnuz``,
``float8_e4m3fnuz``, ``float8_e5m2``, ``float8_e5m2fnuz``,
``float8_e8m0fnu``, ``float6_e2m3fn``, ``float6_e3m2fn``, ``float4_e2m1fn``.
None takes a configuration (``{}`` or an absent one is accepted); the name
alone is written.

In memory: the ml_dtypes type of the same name. ``bfloat16`` has two bytes
and so endianness (the ``bytes`` codec needs ``endian``); the others occupy
one byte each and have none. ``float6_*`` and ``float4_e2m1fn`` use the low
6 or 4 bits of their byte. ml_dtypes is imported when one of these types is
first used, not with this module, so resolving ``dtype="f4"`` (which asks
every data type) does not load it; until it is loaded ``from_numpy_dtype``
answers ``None``, since no ml_dtypes dtype can exist before.

Fill values (the core spec's rules for IEEE floats, restricted per type by
its spec):

* a JSON number, rounded to the nearest value of the type. A finite number
  the type cannot hold is refused: one beyond the largest finite value of a
  type without infinities, or one that would become NaN (any number below
  2**-127 for ``float8_e8m0fnu``, which has neither zero nor sign);
  types with infinities round overflow to infinity, as IEEE floats do;
* ``"NaN"`` (the spec's canonical NaN bit pattern), ``"Infinity"``,
  ``"-Infinity"``, each only for types that have it;
* ``"0x"`` followed by two hex digits per byte (4 for ``bfloat16``, else 2):
  the bit pattern, which must fit the type's width (``0x00``..``0x3f`` for
  ``float6_*``, ``0x00``..``0x0f`` for ``float4_e2m1fn``).

Written as a number, ``"Infinity"``/``"-Infinity"``, ``"NaN"`` for the
canonical NaN and the hex form for any other NaN bit pattern. The default
fill value is the all-zero bit pattern (zero; ``2**-127`` for
``float8_e8m0fnu``, whose zero bits do not mean zero).

``float8_e8m0fnu`` deviates in two places, for tensorstore's sake (see
:class:`_UnsignedExponentOnly`): its fill values are written as hex (or
``"NaN"``), and a JSON ``0`` reads as the all-zero bit pattern. Through the Python
API, numbers (Python, numpy, ml_dtypes) and the JSON strings above are
accepted.

Mapping from numpy: each type's own numpy dtype (``dtype=ml_dtypes.bfloat16``).
"""

from __future__ import annotations

import functools
import math
import sys
from typing import Any, ClassVar, cast

import numpy as np

from ._bases import Unconfigured
from ._util import fill_error


@functools.cache
def _numpy_dtype(name: str) -> np.dtype:
    import ml_dtypes  # imported on first use: resolving other dtypes need not load it

    dtype: np.dtype = np.dtype(getattr(ml_dtypes, name))
    return dtype


@functools.cache
def _finite_max(name: str) -> float:
    import ml_dtypes

    return float(ml_dtypes.finfo(_numpy_dtype(name)).max)


class _MLFloat(Unconfigured):
    bits: ClassVar[int]  # significant bits of the stored byte(s)
    nan_bits: ClassVar[int | None]  # the spec's canonical NaN; None: no NaN
    has_inf: ClassVar[bool]

    @classmethod
    def from_numpy_dtype(cls, dtype: np.dtype) -> _MLFloat | None:
        if "ml_dtypes" not in sys.modules:  # then no ml_dtypes dtype can exist yet
            return None
        return cls() if dtype == _numpy_dtype(cls.name) else None

    @property
    def numpy_dtype(self) -> np.dtype:
        return _numpy_dtype(self.name)

    # A native-order unsigned integer of the same width holds the bit pattern as
    # its value on any machine, so no byte order is involved here.
    def _uint(self) -> np.dtype:
        return np.dtype(f"u{self.numpy_dtype.itemsize}")

    def _from_bits(self, bits: int) -> Any:
        return np.array(bits, dtype=self._uint()).view(self.numpy_dtype)[()]

    def _bits_of(self, value: Any) -> int:
        return int(np.array(value, dtype=self.numpy_dtype).view(self._uint()))

    def default_fill_value(self) -> Any:
        return self._from_bits(0)

    def _valid(self) -> str:
        words = ["a number"]
        if self.nan_bits is not None:
            words.append('"NaN"')
        if self.has_inf:
            words.append('"Infinity", "-Infinity"')
        digits = 2 * self.numpy_dtype.itemsize
        return ", ".join(words) + f' or "0x" + {digits} hex digits (a bit pattern below 2**{self.bits})'

    def _from_number(self, number: float, original: Any) -> Any:
        if math.isnan(number):
            if self.nan_bits is None:
                raise fill_error(self.name, original, self._valid())
            return self._from_bits(self.nan_bits)
        if math.isinf(number):
            if not self.has_inf:
                raise fill_error(self.name, original, self._valid())
            return self.numpy_dtype.type(number)
        if not self.has_inf and abs(number) > _finite_max(self.name):
            raise fill_error(self.name, original, f"{self._valid()}; {number!r} is out of range")
        with np.errstate(over="ignore", invalid="ignore"):
            value = np.array(number, dtype=np.float64).astype(self.numpy_dtype)[()]
        if math.isnan(float(value)):
            raise fill_error(self.name, original, f"{self._valid()}; {number!r} is not representable")
        return value

    def fill_value_from_json(self, value: Any) -> Any:
        if isinstance(value, bool):
            raise fill_error(self.name, value, self._valid())
        if isinstance(value, (int, float)):
            try:
                number = float(value)
            except OverflowError:
                raise fill_error(self.name, value, f"{self._valid()}; out of range") from None
            return self._from_number(number, value)
        if isinstance(value, str):
            special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
            if value in special:
                return self._from_number(special[value], value)
            digits = 2 * self.numpy_dtype.itemsize
            if value.startswith("0x") and len(value) == 2 + digits:
                try:
                    bits = int(value[2:], 16)
                except ValueError:
                    bits = None
                if bits is not None and bits < 2**self.bits:
                    return self._from_bits(bits)
        raise fill_error(self.name, value, self._valid())

    def fill_value_to_json(self, value: Any) -> Any:
        number = float(self.numpy_dtype.type(value))
        if math.isnan(number):
            bits = self._bits_of(value)
            if bits == self.nan_bits:
                return "NaN"
            return f"0x{bits:0{2 * self.numpy_dtype.itemsize}x}"
        if math.isinf(number):
            return "Infinity" if number > 0 else "-Infinity"
        return number

    def from_user_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.fill_value_from_json(value)
        if isinstance(value, (bool, np.bool_)):
            raise fill_error(self.name, value, self._valid())
        if isinstance(value, np.generic) and value.dtype == self.numpy_dtype:
            return value  # already of this type: keep its exact bits (NaN payloads)
        if isinstance(value, (int, float, np.integer, np.floating)) or _is_ml_scalar(value):
            try:
                number = float(value)
            except (OverflowError, TypeError, ValueError):
                raise fill_error(self.name, value, self._valid()) from None
            return self._from_number(number, value)
        raise fill_error(self.name, value, self._valid())


_SMALLEST_E8M0 = 2.0**-127


class _UnsignedExponentOnly(_MLFloat):
    """``float8_e8m0fnu``: powers of two from 2**-127 to 2**127 and NaN; no zero, no sign.

    Two interoperability rules (tensorstore 0.1.86 converts this type to and
    from JSON numbers wrongly, e.g. it writes the bit pattern 0x80, the value
    2.0, as -3.7e19, and reads 2.0 as 0x40; it reads hex patterns right):

    * fill values other than the canonical NaN are written as hex bit patterns;
    * a JSON ``0`` (which the type cannot represent) reads as the all-zero
      bit pattern, 2**-127: that is what tensorstore means by the ``0.0`` it
      writes as its default fill value.
    """

    def fill_value_from_json(self, value: Any) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0:
            return self._from_bits(0)
        return super().fill_value_from_json(value)

    def _from_number(self, number: float, original: Any) -> Any:
        # below the smallest power of two, or negative: not representable. Said here, as
        # ml_dtypes' own answer changed (0.5 gave NaN, 0.7 rounds up to 2**-127)
        if not math.isnan(number) and number < _SMALLEST_E8M0:
            raise fill_error(
                self.name, original, f"{self._valid()}; {number!r} is below the smallest value, 2**-127"
            )
        return super()._from_number(number, original)

    def fill_value_to_json(self, value: Any) -> Any:
        bits = self._bits_of(value)
        return "NaN" if bits == self.nan_bits else f"0x{bits:02x}"


def _define(
    cls_name: str, name: str, bits: int, nan_bits: int | None, has_inf: bool, base: type[_MLFloat] = _MLFloat
) -> type[_MLFloat]:
    # type() builds a subclass of base, which the checker sees only as a type
    return cast(
        "type[_MLFloat]",
        type(
            cls_name,
            (base,),
            {
                "name": name,
                "bits": bits,
                "nan_bits": nan_bits,
                "has_inf": has_inf,
                "__module__": __name__,
                "__doc__": f"The ``{name}`` data type (ml_dtypes.{name}).",
            },
        ),
    )


# name, significant bits, canonical NaN bits (spec), infinities?
BFloat16 = _define("BFloat16", "bfloat16", 16, 0x7FC0, True)
Float8E3M4 = _define("Float8E3M4", "float8_e3m4", 8, 0x78, True)
Float8E4M3 = _define("Float8E4M3", "float8_e4m3", 8, 0x7C, True)
Float8E4M3B11FNUZ = _define("Float8E4M3B11FNUZ", "float8_e4m3b11fnuz", 8, 0x80, False)
Float8E4M3FNUZ = _define("Float8E4M3FNUZ", "float8_e4m3fnuz", 8, 0x80, False)
Float8E5M2 = _define("Float8E5M2", "float8_e5m2", 8, 0x7E, True)
Float8E5M2FNUZ = _define("Float8E5M2FNUZ", "float8_e5m2fnuz", 8, 0x80, False)
Float8E8M0FNU = _define("Float8E8M0FNU", "float8_e8m0fnu", 8, 0xFF, False, _UnsignedExponentOnly)
Float6E2M3FN = _define("Float6E2M3FN", "float6_e2m3fn", 6, None, False)
Float6E3M2FN = _define("Float6E3M2FN", "float6_e3m2fn", 6, None, False)
Float4E2M1FN = _define("Float4E2M1FN", "float4_e2m1fn", 4, None, False)

ALL = (
    BFloat16,
    Float8E3M4,
    Float8E4M3,
    Float8E4M3B11FNUZ,
    Float8E4M3FNUZ,
    Float8E5M2,
    Float8E5M2FNUZ,
    Float8E8M0FNU,
    Float6E2M3FN,
    Float6E3M2FN,
    Float4E2M1FN,
)


def _is_ml_scalar(value: Any) -> bool:
    """Is ``value`` a scalar of one of these types (accepted as a fill value of any of them)?"""
    return isinstance(value, np.generic) and any(value.dtype == _numpy_dtype(cls.name) for cls in ALL)
