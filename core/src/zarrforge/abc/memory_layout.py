"""Contract for memory layouts (the ``memory_layouts`` extension point).

A memory layout decides how the elements of a chunk are ordered when a
multi-dimensional array is turned into a flat sequence and back. The final v3
format records no layout (the ``bytes`` codec always serialises in C order and
``transpose`` expresses other orders), so there the layout is a runtime choice:
the order of the numpy arrays zarrforge hands to the user. Formats that do
record it (Zarr v2's ``order``, the 2022 draft's ``chunk_memory_layout``)
resolve the recorded name through this registry and use ``linearize`` /
``delinearize`` to (de)serialise chunks.

A layout is a strategy: its class is constructed with no arguments, and the
engine shares one instance of it among all arrays, so it must keep no state.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Sequence

import numpy as np


class MemoryLayout(ABC):
    name: ClassVar[str]

    @abstractmethod
    def empty(self, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
        """An uninitialised array of ``shape`` in this layout."""

    def full(self, shape: Sequence[int], fill_value: Any, dtype: np.dtype) -> np.ndarray:
        out = self.empty(shape, dtype)
        out[...] = fill_value
        return out

    @abstractmethod
    def linearize(self, array: np.ndarray) -> np.ndarray:
        """The elements of ``array`` as a contiguous 1-D array, in this layout's order."""

    @abstractmethod
    def delinearize(self, flat: np.ndarray, shape: Sequence[int]) -> np.ndarray:
        """Inverse of :meth:`linearize`: a 1-D array back to ``shape``."""

    def __repr__(self) -> str:
        return f"<memory layout {self.name!r}>"
