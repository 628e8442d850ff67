"""The ``C`` (row-major) and ``F`` (column-major) memory layouts.

As the 2022 draft defines them, ``C`` hands the codecs the chunk as it is and ``F``
the chunk with its dimensions reversed (whose C order is the chunk's Fortran order).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Literal

import numpy as np

from zarrforge.abc.memory_layout import MemoryLayout


class _NumpyOrder(MemoryLayout):
    order: ClassVar[Literal["C", "F"]]

    def empty(self, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
        return np.empty(tuple(shape), dtype=dtype, order=self.order)

    def linearize(self, array: np.ndarray) -> np.ndarray:
        return np.ravel(array, order=self.order)

    def delinearize(self, flat: np.ndarray, shape: Sequence[int]) -> np.ndarray:
        return np.reshape(flat, tuple(shape), order=self.order)


class COrder(_NumpyOrder):
    name = "C"
    order = "C"

    def codec_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        return tuple(shape)

    def for_codecs(self, array: np.ndarray) -> np.ndarray:
        return array

    def from_codecs(self, array: np.ndarray, shape: Sequence[int]) -> np.ndarray:
        return np.reshape(array, tuple(shape))


class FOrder(_NumpyOrder):
    name = "F"
    order = "F"

    def codec_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        return tuple(shape)[::-1]

    def for_codecs(self, array: np.ndarray) -> np.ndarray:
        return np.transpose(array)

    def from_codecs(self, array: np.ndarray, shape: Sequence[int]) -> np.ndarray:
        return np.reshape(np.transpose(array), tuple(shape))
