"""The ``example.scale`` extension (ZEP 10, arrays of float32 or float64).

An entry ``{"name": "example.scale", "configuration": {"factor": 0.01}}`` makes the array
store ``values / factor`` and read ``stored * factor``, in the array's own data type, on
every path that reads or writes elements (the core's value stage:
:meth:`~zarrforge.abc.extension.Extension.encode_values` and
:meth:`~zarrforge.abc.extension.Extension.decode_values`). The document's ``fill_value``
is a stored value: an element never written reads as ``fill_value * factor``.

``factor`` is a finite, non-zero JSON number. The entry must be understood (a reader
that skipped it would hand out the stored values as the data), so the core refuses it
with ``"must_understand": false``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from zarrforge.abc.extension import ArrayHandle, Extension
from zarrforge.errors import MetadataError

FLOAT_TYPES = ("float32", "float64")


class Scale(Extension):
    name = "example.scale"
    node_types = frozenset({"array"})

    def __init__(self, factor: float) -> None:
        self.factor = factor

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> Scale:
        configuration = configuration or {}
        unknown = sorted(set(configuration) - {"factor"})
        if unknown:
            raise MetadataError(
                f"unknown configuration key(s) {unknown}; valid: ['factor']",
                field="configuration",
                value=configuration,
            )
        factor = configuration.get("factor")
        if (
            isinstance(factor, bool)
            or not isinstance(factor, (int, float))
            or not math.isfinite(factor)
            or factor == 0
        ):
            raise MetadataError(
                f"factor must be a finite, non-zero number, got {factor!r}",
                field="configuration.factor",
                value=factor,
            )
        return cls(factor)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"factor": self.factor}}

    def validate(self, metadata: Any) -> None:
        found = np.dtype(metadata.data_type.numpy_dtype).name
        if found not in FLOAT_TYPES:
            raise MetadataError(f"{self.name} scales float32 or float64 arrays, not {found}")

    def encode_values(self, array: ArrayHandle, values: Any) -> Any:
        return np.divide(values, values.dtype.type(self.factor), dtype=values.dtype)

    def decode_values(self, array: ArrayHandle, values: Any) -> Any:
        values *= values.dtype.type(self.factor)  # in place: the engine made this array for the read
        return values
