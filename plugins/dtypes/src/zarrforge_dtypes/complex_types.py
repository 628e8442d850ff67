"""Complex numbers over any real float type: the ``complex_<float>`` data types of zarr-extensions.

Registered names: ``complex_float16``, ``complex_float32``, ``complex_float64``,
``complex_bfloat16`` and ``complex_<f>`` for each small float ``<f>`` of
:mod:`.ml_floats` (``complex_float8_e4m3``, ``complex_float4_e2m1fn``, ...).
None takes a configuration.

In memory: ``complex_float32`` and ``complex_float64`` are numpy's
``complex64`` and ``complex128``. numpy has no complex type over the others,
so they are held as a packed numpy structured dtype with two fields
``real`` and ``imag`` of the component's numpy dtype (``a["real"]``,
``a["imag"]``). Either way an element is the real component followed by the
imaginary one, which is the ``bytes`` codec's layout; byte order matters when
the component has more than one byte.

Fill values: ``[real, imag]``, each in the component type's own encoding
(a number, ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` or a hex bit pattern,
as the component allows). The default is ``[0, 0]`` in bits (the all-zero
pattern). Through the Python API a complex number, a pair or a scalar of the
in-memory dtype is accepted.

Mapping from numpy: none. ``complex64``/``complex128`` belong to the core
``complex64``/``complex128`` types, and a structured dtype to ``struct``; these
types are chosen by name.
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

import numpy as np

from zarrforge.abc.data_type import DataType
from zarrforge.plugin_api.data_types import registry

from ._bases import Unconfigured
from ._util import fill_error
from .ml_floats import ALL as _ML_FLOATS

_NATIVE: dict[str, np.dtype] = {"float32": np.dtype("c8"), "float64": np.dtype("c16")}


class _ComplexOf(Unconfigured):
    component: ClassVar[str]  # name of the real data type of each part

    def _part(self) -> DataType:
        part: DataType | None = self.__dict__.get("_part_type")
        if part is None:
            part = registry.data_types.get(self.component).from_json(self.component, None)
            self.__dict__["_part_type"] = part
        return part

    @property
    def numpy_dtype(self) -> np.dtype:
        native = _NATIVE.get(self.component)
        if native is not None:
            return native
        part = self._part().numpy_dtype
        return np.dtype([("real", part), ("imag", part)])

    @property
    def has_endianness(self) -> bool:
        return self._part().numpy_dtype.itemsize > 1

    def _split(self, value: Any) -> tuple[Any, Any]:
        value = np.asarray(value, dtype=self.numpy_dtype)[()]
        if self.component in _NATIVE:
            return value.real, value.imag
        return value["real"], value["imag"]

    def _join(self, real: Any, imag: Any) -> Any:
        out = np.zeros((), dtype=self.numpy_dtype)
        if self.component in _NATIVE:
            out.real, out.imag = real, imag
        else:
            out["real"], out["imag"] = real, imag
        return out[()]

    def default_fill_value(self) -> Any:
        return np.zeros((), dtype=self.numpy_dtype)[()]

    def _valid(self) -> str:
        return f"a list [real, imaginary] of two {self.component} fill values"

    def fill_value_from_json(self, value: Any) -> Any:
        if not isinstance(value, list) or len(value) != 2:
            raise fill_error(self.name, value, self._valid())
        part = self._part()
        return self._join(part.fill_value_from_json(value[0]), part.fill_value_from_json(value[1]))

    def fill_value_to_json(self, value: Any) -> Any:
        part = self._part()
        return [part.fill_value_to_json(v) for v in self._split(value)]

    def from_user_value(self, value: Any) -> Any:
        part = self._part()
        if isinstance(value, np.generic) and value.dtype == self.numpy_dtype:
            return value
        if isinstance(value, (list, tuple)) and len(value) == 2:
            return self._join(part.from_user_value(value[0]), part.from_user_value(value[1]))
        if isinstance(value, (complex, np.complexfloating)):
            return self._join(
                part.from_user_value(float(value.real)), part.from_user_value(float(value.imag))
            )
        if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
            return self._join(part.from_user_value(value), part.from_user_value(0))
        raise fill_error(self.name, value, "a complex number, a pair [real, imaginary] or " + self._valid())


def _define(component: str) -> type[_ComplexOf]:
    name = f"complex_{component}"
    cls_name = "Complex" + "".join(p.capitalize() for p in component.split("_"))
    # type() builds a subclass of _ComplexOf, which the checker sees only as a type
    return cast(
        "type[_ComplexOf]",
        type(
            cls_name,
            (_ComplexOf,),
            {
                "name": name,
                "component": component,
                "__module__": __name__,
                "__doc__": f"The ``{name}`` data type: real and imaginary ``{component}`` parts.",
            },
        ),
    )


ComplexFloat16 = _define("float16")
ComplexFloat32 = _define("float32")
ComplexFloat64 = _define("float64")
_BY_COMPONENT = {cls.name: _define(cls.name) for cls in _ML_FLOATS}
ComplexBfloat16 = _BY_COMPONENT["bfloat16"]
ComplexFloat8E3m4 = _BY_COMPONENT["float8_e3m4"]
ComplexFloat8E4m3 = _BY_COMPONENT["float8_e4m3"]
ComplexFloat8E4m3b11fnuz = _BY_COMPONENT["float8_e4m3b11fnuz"]
ComplexFloat8E4m3fnuz = _BY_COMPONENT["float8_e4m3fnuz"]
ComplexFloat8E5m2 = _BY_COMPONENT["float8_e5m2"]
ComplexFloat8E5m2fnuz = _BY_COMPONENT["float8_e5m2fnuz"]
ComplexFloat8E8m0fnu = _BY_COMPONENT["float8_e8m0fnu"]
ComplexFloat6E2m3fn = _BY_COMPONENT["float6_e2m3fn"]
ComplexFloat6E3m2fn = _BY_COMPONENT["float6_e3m2fn"]
ComplexFloat4E2m1fn = _BY_COMPONENT["float4_e2m1fn"]

ALL = (ComplexFloat16, ComplexFloat32, ComplexFloat64, *_BY_COMPONENT.values())
