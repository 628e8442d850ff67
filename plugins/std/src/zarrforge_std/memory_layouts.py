"""The ``C`` (row-major) and ``F`` (column-major) memory layouts."""

from __future__ import annotations

from typing import ClassVar, Sequence

import numpy as np

from zarrforge.abc.memory_layout import MemoryLayout


class _NumpyOrder(MemoryLayout):
    order: ClassVar[str]

    def empty(self, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
        return np.empty(tuple(shape), dtype=dtype, order=self.order)

    def linearize(self, array: np.ndarray) -> np.ndarray:
        return np.ravel(array, order=self.order)

    def delinearize(self, flat: np.ndarray, shape: Sequence[int]) -> np.ndarray:
        return np.reshape(flat, tuple(shape), order=self.order)


class COrder(_NumpyOrder):
    name = "C"
    order = "C"


class FOrder(_NumpyOrder):
    name = "F"
    order = "F"
