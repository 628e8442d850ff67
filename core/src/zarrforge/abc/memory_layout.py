"""Contract for memory layouts (the ``memory_layouts`` extension point).

A memory layout decides how the elements of a chunk are ordered when a
multi-dimensional array is turned into a flat sequence and back. The final v3
format records no layout (the ``bytes`` codec always serialises in C order and
``transpose`` expresses other orders), so there the layout is a runtime choice:
the order of the numpy arrays zarrforge hands to the user; creating a v3 array
with a layout other than ``C`` or ``F`` is refused. The 2022 draft records it
(``chunk_memory_layout``) and encodes every chunk through it.

The draft (seed 000, "Chunk encoding") lets the layout decide the array the codecs
receive -- its shape too: ``C`` hands over the chunk as it is, ``F`` the chunk with
its dimensions reversed. So a layout answers, besides the flat order:

* :meth:`MemoryLayout.codec_shape`: the shape of the array the codecs receive for a chunk of a
  shape (the draft's first decoded representation);
* :meth:`MemoryLayout.for_codecs` / :meth:`MemoryLayout.from_codecs`: the chunk as that array, and back.

Their defaults follow from :meth:`MemoryLayout.linearize`: the codecs receive the 1-D
linearized chunk. Whatever the shape, the elements of ``for_codecs(a)`` in C order
are exactly ``linearize(a)``, so with the draft's default ``bytes`` conversion the
stored bytes are the chunk's elements in the layout's order. Array -> array codecs
after a layout see that array: a ``transpose`` written for the chunk's dimensions
does not fit a 1-D representation and is refused when the array is created.

A layout is a strategy: its class is constructed with no arguments, and the
engine shares one instance of it among all arrays, so it must keep no state.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from .extension_point import ExtensionPoint


class MemoryLayout(ExtensionPoint):
    name: ClassVar[str]

    @abstractmethod
    def empty(self, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
        """An uninitialised array of ``shape`` in this layout.

        Parameters
        ----------
        shape : Sequence[int]
            The array's shape.
        dtype : numpy.dtype
            Its dtype.

        Returns
        -------
        numpy.ndarray
            The array.
        """

    def full(self, shape: Sequence[int], fill_value: Any, dtype: np.dtype) -> np.ndarray:
        """An array of ``shape`` in this layout, every element ``fill_value``.

        Parameters
        ----------
        shape : Sequence[int]
            The array's shape.
        fill_value : Any
            The value of every element.
        dtype : numpy.dtype
            The array's dtype.

        Returns
        -------
        numpy.ndarray
            The array.
        """
        out = self.empty(shape, dtype)
        out[...] = fill_value
        return out

    @abstractmethod
    def linearize(self, array: np.ndarray) -> np.ndarray:
        """The elements of ``array`` as a contiguous 1-D array, in this layout's order.

        Parameters
        ----------
        array : numpy.ndarray
            A chunk.

        Returns
        -------
        numpy.ndarray
            Its elements, 1-D and contiguous.
        """

    @abstractmethod
    def delinearize(self, flat: np.ndarray, shape: Sequence[int]) -> np.ndarray:
        """Inverse of :meth:`linearize`: a 1-D array back to ``shape``.

        Parameters
        ----------
        flat : numpy.ndarray
            The elements, 1-D, in this layout's order.
        shape : Sequence[int]
            The chunk's shape.

        Returns
        -------
        numpy.ndarray
            The chunk.
        """

    def codec_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        """The shape of the array the codecs receive for a chunk of ``shape``; the same
        number of elements. Default: 1-D, the linearized chunk.

        Parameters
        ----------
        shape : Sequence[int]
            The chunk's shape.

        Returns
        -------
        tuple[int, ...]
            The shape the codecs receive.
        """
        return (math.prod(shape),)

    def for_codecs(self, array: np.ndarray) -> np.ndarray:
        """``array`` (a chunk) as the codecs receive it: shaped ``codec_shape(array.shape)``,
        its elements in C order exactly ``linearize(array)``.

        Parameters
        ----------
        array : numpy.ndarray
            The chunk.

        Returns
        -------
        numpy.ndarray
            The array the codecs receive.
        """
        return self.linearize(array).reshape(self.codec_shape(array.shape))

    def from_codecs(self, array: np.ndarray, shape: Sequence[int]) -> np.ndarray:
        """Inverse of :meth:`for_codecs`: what the codecs decoded back to a chunk of
        ``shape``.

        Parameters
        ----------
        array : numpy.ndarray
            What the codecs decoded.
        shape : Sequence[int]
            The chunk's shape.

        Returns
        -------
        numpy.ndarray
            The chunk.
        """
        return self.delinearize(np.ravel(array, order="C"), shape)

    def __repr__(self) -> str:
        return f"<memory layout {self.name!r}>"
