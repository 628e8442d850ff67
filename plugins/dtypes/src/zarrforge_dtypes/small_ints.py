"""Sub-byte integers: the ``int2``, ``int4``, ``uint2`` and ``uint4`` data types.

None takes a configuration (``{}`` or an absent one is accepted); the name
alone is written. Ranges: ``int2`` [-2, 1], ``int4`` [-8, 7], ``uint2``
[0, 3], ``uint4`` [0, 15].

In memory: the ml_dtypes type of the same name (``ml_dtypes.int4`` ...), one
byte per element, the value in the low 2 or 4 bits. That is exactly the
``bytes`` codec's encoding in zarr-extensions (one byte, upper bits arbitrary,
no endianness), and ml_dtypes reads such a byte by its low bits alone
(sign-extending the signed types), so chunks whose writers left other upper
bits read right. numpy has no native sub-byte integers; an ``int8``/``uint8``
representation would have made the upper bits significant. What numpy does
with out-of-range values cast into these dtypes (``astype``, assignment) is
ml_dtypes' behaviour: they wrap modulo 2**bits, as numpy's own integer casts
do. Fill values, which the format checks, are range-checked. The
``packbits`` codec stores the low bits only.

Fill values: a JSON integer within the range (core integer rules). Through
the Python API, integers (Python, numpy, ml_dtypes) and integral floats.

Mapping from numpy: each type's own ml_dtypes dtype (``dtype=ml_dtypes.int4``);
until ml_dtypes is loaded ``from_numpy_dtype`` answers ``None``.
"""

from __future__ import annotations

import functools
import sys
from typing import Any, ClassVar

import numpy as np

from ._bases import Unconfigured
from ._util import fill_error, is_int


@functools.cache
def _numpy_dtype(name: str) -> np.dtype:
    import ml_dtypes  # on first use only, as in .ml_floats

    dtype: np.dtype = np.dtype(getattr(ml_dtypes, name))
    return dtype


class _SmallInt(Unconfigured):
    low: ClassVar[int]
    high: ClassVar[int]

    @classmethod
    def from_numpy_dtype(cls, np_dtype: np.dtype) -> _SmallInt | None:
        if "ml_dtypes" not in sys.modules:
            return None
        return cls() if np_dtype == _numpy_dtype(cls.name) else None

    @property
    def numpy_dtype(self) -> np.dtype:
        return _numpy_dtype(self.name)

    @property
    def has_endianness(self) -> bool:
        return False

    def default_fill_value(self) -> Any:
        return self.numpy_dtype.type(0)

    def _checked(self, value: Any) -> Any:
        if not (is_int(value) or isinstance(value, np.integer)) or not self.low <= int(value) <= self.high:
            raise fill_error(self.name, value, f"an integer in [{self.low}, {self.high}]")
        return self.numpy_dtype.type(int(value))

    def fill_value_from_json(self, value: Any) -> Any:
        return self._checked(value)

    def fill_value_to_json(self, value: Any) -> int:
        return int(self.numpy_dtype.type(value))

    def from_user_value(self, value: Any) -> Any:
        if isinstance(value, np.generic) and value.dtype == self.numpy_dtype:
            return value
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        elif isinstance(value, np.generic) and value.dtype.kind == "V":  # other ml_dtypes ints
            try:
                value = int(value)
            except (TypeError, ValueError):
                pass
        return self._checked(value)


def _define(cls_name: str, name: str, low: int, high: int) -> type[_SmallInt]:
    return type(
        cls_name,
        (_SmallInt,),
        {
            "name": name,
            "low": low,
            "high": high,
            "__module__": __name__,
            "__doc__": f"The ``{name}`` data type: integers in [{low}, {high}] (ml_dtypes.{name}).",
        },
    )


Int2 = _define("Int2", "int2", -2, 1)
Int4 = _define("Int4", "int4", -8, 7)
UInt2 = _define("UInt2", "uint2", 0, 3)
UInt4 = _define("UInt4", "uint4", 0, 15)

ALL = (Int2, Int4, UInt2, UInt4)
