"""Stand-ins for the names the core and the suites ask for when no plugin provides them.

Some names cannot be the kit's own: the core opens every array in the memory layout
``config.order`` names (``"C"``), and the suites' defaults, and plugin authors' own
suite settings, name the spec's data types (``data_type = "float64"``, the format suite's
``"int32"`` arrays). Where no installed plugin provides such a name (zarrforge-std
does), the kit registers a stand-in under it while a suite's test runs
(:mod:`zarrforge.testing.scaffolding`), and only then: a name a plugin provides is
always that plugin's, so a suite never tests a stand-in in place of the real thing.

The stand-ins follow the v3 spec for what they are (they are what a scratch array
needs, not a second implementation to rely on):

* data types ``bool``, ``int8`` .. ``int64``, ``uint8`` .. ``uint64``, ``float16``,
  ``float32``, ``float64``, ``complex64`` and ``complex128`` (:data:`DATA_TYPES`), with
  the spec's fill values: ``true``/``false``; an integer in range; a number,
  ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` or ``"0x"`` and the hex bits (NaNs other
  than the canonical one are written so); a list ``[real, imaginary]`` of those;
* the memory layout ``C`` (:class:`CStandIn`): chunks as numpy's C order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ..errors import MetadataError
from ..plugin_api import DataType, MemoryLayout


def _refused(name: str, value: Any, expected: str) -> MetadataError:
    return MetadataError(
        f"fill value {value!r} is not one of data type {name!r}: expected {expected}",
        field="fill_value",
        value=value,
    )


def _is_integer(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


class _StandIn(DataType):
    """A fixed-size type without configuration, held as :attr:`dtype`."""

    dtype: ClassVar[np.dtype]

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> DataType:
        if configuration:
            raise MetadataError(
                f"data type {name!r} takes no configuration", field="configuration", value=configuration
            )
        return cls()

    @classmethod
    def from_numpy_dtype(cls, np_dtype: np.dtype) -> DataType | None:
        same = np_dtype.kind == cls.dtype.kind and np_dtype.itemsize == cls.dtype.itemsize
        return cls() if same else None

    def to_json(self) -> str:
        return self.name

    @property
    def numpy_dtype(self) -> np.dtype:
        return self.dtype

    def default_fill_value(self) -> Any:
        return self.dtype.type(0)

    def from_user_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.fill_value_from_json(value)
        return self.fill_value_from_json(value.item() if isinstance(value, np.generic) else value)


class _Bool(_StandIn):
    def fill_value_from_json(self, value: Any) -> Any:
        if not isinstance(value, (bool, np.bool_)):
            raise _refused(self.name, value, "true or false")
        return np.bool_(value)

    def fill_value_to_json(self, value: Any) -> Any:
        return bool(value)


class _Integer(_StandIn):
    def fill_value_from_json(self, value: Any) -> Any:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        info = np.iinfo(self.dtype)
        if not _is_integer(value) or not info.min <= int(value) <= info.max:
            raise _refused(self.name, value, f"an integer in [{info.min}, {info.max}]")
        return self.dtype.type(int(value))

    def fill_value_to_json(self, value: Any) -> Any:
        return int(value)


def _bits_type(dtype: np.dtype) -> np.dtype:
    return np.dtype(f"<u{dtype.itemsize}")


def _float_from_json(dtype: np.dtype, name: str, value: Any) -> Any:
    special = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}
    if isinstance(value, str) and value in special:
        return dtype.type(special[value])
    if isinstance(value, str) and value.startswith("0x") and len(value) == 2 + 2 * dtype.itemsize:
        try:
            bits = np.array(int(value[2:], 16), dtype=_bits_type(dtype))
        except ValueError:
            raise _refused(name, value, "hex digits after '0x'") from None
        return bits.view(dtype.newbyteorder("<")).astype(dtype)[()]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        with np.errstate(over="ignore"):
            return dtype.type(value)
    raise _refused(
        name, value, f'a number, "NaN", "Infinity", "-Infinity" or "0x" and {2 * dtype.itemsize} hex digits'
    )


def _float_to_json(dtype: np.dtype, value: Any) -> Any:
    value = dtype.type(value)
    if np.isnan(value):
        held = np.array(value, dtype=dtype.newbyteorder("<"))
        if held.tobytes() == np.array(np.nan, dtype=dtype.newbyteorder("<")).tobytes():
            return "NaN"
        return f"0x{int(held.view(_bits_type(dtype))):0{2 * dtype.itemsize}x}"
    if np.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return float(value)


class _Float(_StandIn):
    def fill_value_from_json(self, value: Any) -> Any:
        return _float_from_json(self.dtype, self.name, value)

    def fill_value_to_json(self, value: Any) -> Any:
        return _float_to_json(self.dtype, value)


class _Complex(_StandIn):
    @property
    def _part(self) -> np.dtype:
        return np.dtype(f"f{self.dtype.itemsize // 2}")

    def fill_value_from_json(self, value: Any) -> Any:
        if not isinstance(value, list) or len(value) != 2:
            raise _refused(self.name, value, "a list [real, imaginary]")
        real, imaginary = (_float_from_json(self._part, self.name, part) for part in value)
        out = np.zeros((), dtype=self.dtype)
        out.real, out.imag = real, imaginary
        return out[()]

    def fill_value_to_json(self, value: Any) -> Any:
        value = self.dtype.type(value)
        return [_float_to_json(self._part, value.real), _float_to_json(self._part, value.imag)]

    def from_user_value(self, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return self.fill_value_from_json(list(value))
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, complex, np.number)):
            raise _refused(self.name, value, "a number or [real, imaginary]")
        return self.dtype.type(value)


def _stand_in(base: type[_StandIn], name: str, dtype: str) -> type[DataType]:
    title = "".join(part.capitalize() for part in name.split("_"))
    return type(
        f"{title}StandIn",
        (base,),
        {
            "name": name,
            "dtype": np.dtype(dtype),
            "__module__": __name__,
            "__doc__": f"The kit's stand-in for {name!r}.",
        },
    )


#: name -> the stand-in registered under it where no plugin provides the name
DATA_TYPES: dict[str, type[DataType]] = {
    "bool": _stand_in(_Bool, "bool", "?"),
    **{f"int{8 * n}": _stand_in(_Integer, f"int{8 * n}", f"i{n}") for n in (1, 2, 4, 8)},
    **{f"uint{8 * n}": _stand_in(_Integer, f"uint{8 * n}", f"u{n}") for n in (1, 2, 4, 8)},
    **{f"float{8 * n}": _stand_in(_Float, f"float{8 * n}", f"f{n}") for n in (2, 4, 8)},
    "complex64": _stand_in(_Complex, "complex64", "c8"),
    "complex128": _stand_in(_Complex, "complex128", "c16"),
}


class CStandIn(MemoryLayout):
    """The kit's stand-in for the memory layout ``C``: numpy's C order."""

    name = "C"

    def empty(self, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
        return np.empty(tuple(shape), dtype=dtype)

    def linearize(self, array: np.ndarray) -> np.ndarray:
        return np.ravel(array, order="C")

    def delinearize(self, flat: np.ndarray, shape: Sequence[int]) -> np.ndarray:
        return np.reshape(flat, tuple(shape))

    def codec_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        return tuple(shape)

    def for_codecs(self, array: np.ndarray) -> np.ndarray:
        return array

    def from_codecs(self, array: np.ndarray, shape: Sequence[int]) -> np.ndarray:
        return np.reshape(array, tuple(shape))


#: name -> the stand-in registered under it where no plugin provides the name
MEMORY_LAYOUTS: dict[str, type[MemoryLayout]] = {"C": CStandIn}

__all__ = ["CStandIn", "DATA_TYPES", "MEMORY_LAYOUTS"]
