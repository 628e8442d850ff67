"""The asynchronous array: :class:`AsyncArray`, zarr-python 3's ``AsyncArray`` on the
zarrforge engine.

An ``AsyncArray`` stands for one :class:`~zarrforge.Array` (``.array``, the blocking
handle, over the same store object). What reads nothing from the store is a plain
property, the blocking array's own: shape, dtype, chunks, ``info``... are
:class:`~zarrforge.user_api.array_properties.ArrayProperties` computed from the wrapped array, and
``attrs`` (a copy) and ``update_attributes`` come from
:class:`~zarrforge.asyncio.nodes.AsyncNode`. Everything that reads the store is a
coroutine whose work runs off the event loop:

* reads (``getitem`` and the ``get_*_selection`` methods, ``oindex``/``vindex``/``blocks``
  ``.getitem``) are gathered with the other reads of the same array asked for in the same
  pass of the loop and read as one engine call (:mod:`zarrforge.asyncio.gathering`);
* writes and metadata changes (``setitem``, ``set_*_selection``, ``resize``, ``append``,
  ``update_attributes``) and store queries (``nchunks_initialized``, ``nbytes_stored``,
  ``info_complete``) each run as one blocking call on the pool for blocking calls, and
  stop at their next store request when their coroutine is cancelled
  (:mod:`zarrforge.asyncio.offload`): a cancelled write leaves every chunk old or new, as
  a failed one does.

``getitem`` takes every selection kind ``Array.__getitem__`` does (basic, or numpy's
reading of integer arrays and masks as orthogonal or point selections); the others name
their kind. Values are numpy arrays (a scalar for a 0-d result).
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from ..user_api.array_properties import ArrayProperties
from ..user_api.array_selections import SelectionView, SelectionViews, selection_kind
from ..user_api.arrays import Array
from ..user_api.info import Summary
from .gathering import ReadGatherer
from .nodes import AsyncNode
from .offload import run_blocking


def data_argument(kwargs: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray | None]:
    """Creation arguments without ``data=``/``write_data=`` (the array's shape and dtype
    taken from the data unless given), and the data to write once the array exists
    (``None``: none)."""
    kwargs = dict(kwargs)
    data, write_data = kwargs.pop("data", None), kwargs.pop("write_data", True)
    if data is None:
        return kwargs, None
    values = np.asarray(data)
    kwargs.setdefault("shape", values.shape)
    kwargs.setdefault("dtype", values.dtype)
    return kwargs, values if write_data else None


class AsyncArray(AsyncNode, ArrayProperties, SelectionViews["AsyncSelector"]):
    _node: Array

    # zarr-python's annotations write AsyncArray[Any]
    def __class_getitem__(cls, item: Any) -> types.GenericAlias:
        return types.GenericAlias(cls, item)

    def __init__(self, array: Array) -> None:
        super().__init__(array)
        self._reads = ReadGatherer(array)

    @property
    def array(self) -> Array:
        """The blocking :class:`~zarrforge.Array` behind this one (same store object)."""
        return self._node

    def __repr__(self) -> str:
        return f"<zarrforge.asyncio.AsyncArray {self.name!r} shape={self.shape} dtype={self.dtype}>"

    # --- reading -------------------------------------------------------------------------

    async def getitem(self, selection: Any) -> Any:
        """``array[selection]``, any selection ``Array.__getitem__`` takes."""
        return await self._reads.read(selection_kind(selection, self.ndim), selection)

    async def get_basic_selection(self, selection: Any = Ellipsis) -> Any:
        return await self._reads.read("basic", selection)

    async def get_orthogonal_selection(self, selection: Any) -> Any:
        return await self._reads.read("orthogonal", selection)

    async def get_coordinate_selection(self, selection: Any) -> Any:
        return await self._reads.read("coordinate", selection)

    async def get_mask_selection(self, mask: Any) -> Any:
        return await self._reads.read("mask", mask)

    async def get_block_selection(self, selection: Any) -> Any:
        return await self._reads.read("block", selection)

    def _selection_view(self, via: str) -> AsyncSelector:
        return AsyncSelector(self, via)

    # --- writing -------------------------------------------------------------------------

    async def _write(self, kind: str, selection: Any, value: Any) -> None:
        array = self._node
        await run_blocking(f"a write to {array.name!r}", lambda: array._write(kind, selection, value))

    async def setitem(self, selection: Any, value: Any) -> None:
        """``array[selection] = value``, any selection ``Array.__setitem__`` takes."""
        await self._write(selection_kind(selection, self.ndim), selection, value)

    async def set_basic_selection(self, selection: Any, value: Any) -> None:
        await self._write("basic", selection, value)

    async def set_orthogonal_selection(self, selection: Any, value: Any) -> None:
        await self._write("orthogonal", selection, value)

    async def set_coordinate_selection(self, selection: Any, value: Any) -> None:
        await self._write("coordinate", selection, value)

    async def set_mask_selection(self, mask: Any, value: Any) -> None:
        await self._write("mask", mask, value)

    async def set_block_selection(self, selection: Any, value: Any) -> None:
        await self._write("block", selection, value)

    # --- shape, what is stored -----------------------------------------------------------

    async def resize(self, *shape: Any) -> None:
        """``Array.resize``: ``resize((4, 8))`` or ``resize(4, 8)``."""
        await self._call("resize", lambda: self._node.resize(*shape))

    async def append(self, data: Any, axis: int = 0) -> tuple[int, ...]:
        """``Array.append``: grow along ``axis`` and write ``data``; the new shape. A
        cancelled append keeps the old shape, as a failed one does."""
        array = self._node
        return await run_blocking(f"append to {array.name!r}", lambda: array.append(data, axis=axis))

    async def nchunks_initialized(self) -> int:
        return await self._call("nchunks_initialized", lambda: self._node.nchunks_initialized)

    async def nbytes_stored(self) -> int:
        return await self._call("nbytes_stored", self._node.nbytes_stored)

    async def info_complete(self) -> Summary:
        """:attr:`info` with what is stored (bytes, chunks written)."""
        return await self._call("info_complete", self._node.info_complete)


class AsyncSelector(SelectionView):
    """``AsyncArray.oindex``, ``.vindex`` and ``.blocks``: ``await a.oindex.getitem(sel)``,
    ``await a.vindex.setitem(sel, value)`` (zarr-python's ``AsyncOIndex``/``AsyncVIndex``)."""

    _array: AsyncArray

    async def getitem(self, selection: Any) -> Any:
        return await self._array._reads.read(self._kind_of(selection), selection)

    async def setitem(self, selection: Any, value: Any) -> None:
        await self._array._write(self._kind_of(selection), selection, value)
