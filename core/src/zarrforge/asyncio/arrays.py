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
    """The async face of a :class:`zarrforge.Array`: zarr-python 3's ``AsyncArray`` on the zarrforge engine.

    Its properties (``shape``, ``dtype``, ``chunks``...) are the blocking array's and read
    nothing; reads and writes are coroutines run off the event loop, cancellable at their next
    store request (``zarrforge.asyncio.offload``), and reads asked for in one pass of the loop
    are gathered into one engine call. Get one from :func:`zarrforge.asyncio.open_array`,
    :func:`zarrforge.asyncio.create_array` or :func:`zarrforge.asyncio.from_node`.

    Parameters
    ----------
    array : zarrforge.Array
        The blocking array to wrap (over the same store object).
    """

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
        """``array[selection]``, any selection ``Array.__getitem__`` takes.

        Parameters
        ----------
        selection : Any
            The selection, as for ``Array.__getitem__``.

        Returns
        -------
        Any
            The values selected (a numpy array, or a scalar for a single element).
        """
        return await self._reads.read(selection_kind(selection, self.ndim), selection)

    async def get_basic_selection(self, selection: Any = Ellipsis) -> Any:
        """``Array.get_basic_selection``, off the loop (reads asked for in one pass of the loop are gathered).

        Parameters
        ----------
        selection : Any
            Slices, integers and ``...``, as ``array[selection]``. Default: all.

        Returns
        -------
        Any
            The values selected (a numpy array, or a scalar for a single element).
        """
        return await self._reads.read("basic", selection)

    async def get_orthogonal_selection(self, selection: Any) -> Any:
        """``Array.get_orthogonal_selection``, off the loop (reads asked for in one pass of the
        loop are gathered).

        Parameters
        ----------
        selection : Any
            One integer, slice, integer array or boolean array per dimension, as ``array.oindex[selection]``.

        Returns
        -------
        Any
            The values selected (a numpy array, or a scalar for a single element).
        """
        return await self._reads.read("orthogonal", selection)

    async def get_coordinate_selection(self, selection: Any) -> Any:
        """``Array.get_coordinate_selection``, off the loop (reads asked for in one pass of the
        loop are gathered).

        Parameters
        ----------
        selection : Any
            One integer array per dimension (the points' coordinates), as ``array.vindex[selection]``.

        Returns
        -------
        Any
            The values selected (a numpy array, or a scalar for a single element).
        """
        return await self._reads.read("coordinate", selection)

    async def get_mask_selection(self, mask: Any) -> Any:
        """``Array.get_mask_selection``, off the loop (reads asked for in one pass of the loop are gathered).

        Parameters
        ----------
        mask : Any
            A boolean mask of the array's shape.

        Returns
        -------
        Any
            The values selected (a numpy array, or a scalar for a single element).
        """
        return await self._reads.read("mask", mask)

    async def get_block_selection(self, selection: Any) -> Any:
        """``Array.get_block_selection``, off the loop (reads asked for in one pass of the loop are gathered).

        Parameters
        ----------
        selection : Any
            Slices or integers of chunk-grid coordinates, as ``array.blocks[selection]``.

        Returns
        -------
        Any
            The values selected (a numpy array, or a scalar for a single element).
        """
        return await self._reads.read("block", selection)

    def _selection_view(self, via: str) -> AsyncSelector:
        return AsyncSelector(self, via)

    # --- writing -------------------------------------------------------------------------

    async def _write(self, kind: str, selection: Any, value: Any) -> None:
        array = self._node
        await run_blocking(f"a write to {array.name!r}", lambda: array._write(kind, selection, value))

    async def setitem(self, selection: Any, value: Any) -> None:
        """``array[selection] = value``, any selection ``Array.__setitem__`` takes.

        Parameters
        ----------
        selection : Any
            The selection, as for ``Array.__setitem__``.
        value : Any
            The values to write, broadcast to the selection's shape.
        """
        await self._write(selection_kind(selection, self.ndim), selection, value)

    async def set_basic_selection(self, selection: Any, value: Any) -> None:
        """``Array.set_basic_selection``, off the loop; cancellable, leaving every chunk old or new.

        Parameters
        ----------
        selection : Any
            Slices, integers and ``...``, as ``array[selection]``.
        value : Any
            The values to write, broadcast to the selection's shape.
        """
        await self._write("basic", selection, value)

    async def set_orthogonal_selection(self, selection: Any, value: Any) -> None:
        """``Array.set_orthogonal_selection``, off the loop; cancellable, leaving every chunk old or new.

        Parameters
        ----------
        selection : Any
            One integer, slice, integer array or boolean array per dimension, as ``array.oindex[selection]``.
        value : Any
            The values to write, broadcast to the selection's shape.
        """
        await self._write("orthogonal", selection, value)

    async def set_coordinate_selection(self, selection: Any, value: Any) -> None:
        """``Array.set_coordinate_selection``, off the loop; cancellable, leaving every chunk old or new.

        Parameters
        ----------
        selection : Any
            One integer array per dimension (the points' coordinates), as ``array.vindex[selection]``.
        value : Any
            The values to write, broadcast to the selection's shape.
        """
        await self._write("coordinate", selection, value)

    async def set_mask_selection(self, mask: Any, value: Any) -> None:
        """``Array.set_mask_selection``, off the loop; cancellable, leaving every chunk old or new.

        Parameters
        ----------
        mask : Any
            A boolean mask of the array's shape.
        value : Any
            The values to write, broadcast to the selection's shape.
        """
        await self._write("mask", mask, value)

    async def set_block_selection(self, selection: Any, value: Any) -> None:
        """``Array.set_block_selection``, off the loop; cancellable, leaving every chunk old or new.

        Parameters
        ----------
        selection : Any
            Slices or integers of chunk-grid coordinates, as ``array.blocks[selection]``.
        value : Any
            The values to write, broadcast to the selection's shape.
        """
        await self._write("block", selection, value)

    # --- shape, what is stored -----------------------------------------------------------

    async def resize(self, *shape: Any) -> None:
        """``Array.resize``: ``resize((4, 8))`` or ``resize(4, 8)``.

        Parameters
        ----------
        *shape : Any
            The new shape, as for :meth:`zarrforge.Array.resize`.

        Raises
        ------
        zarrforge.errors.SelectionError
            Not one valid length per dimension.
        zarrforge.errors.ReadOnlyError
            The array is read-only.
        """
        await self._call("resize", lambda: self._node.resize(*shape))

    async def append(self, data: Any, axis: int = 0) -> tuple[int, ...]:
        """``Array.append``: grow along ``axis`` and write ``data``; the new shape. A
        cancelled append keeps the old shape, as a failed one does.

        Parameters
        ----------
        data : Any
            The values to append, as for :meth:`zarrforge.Array.append`.
        axis : int
            The dimension to grow.

        Returns
        -------
        tuple of int
            The new shape.

        Raises
        ------
        zarrforge.errors.SelectionError
            ``data``'s dimensions or shape do not fit, or ``axis`` is out of range.
        """
        array = self._node
        return await run_blocking(f"append to {array.name!r}", lambda: array.append(data, axis=axis))

    async def nchunks_initialized(self) -> int:
        """``Array.nchunks_initialized``, off the loop: how many chunks are stored.

        Returns
        -------
        int
            The number of stored chunks.
        """
        return await self._call("nchunks_initialized", lambda: self._node.nchunks_initialized)

    async def nbytes_stored(self) -> int:
        """``Array.nbytes_stored``, off the loop: the bytes stored under the array's path.

        Returns
        -------
        int
            The number of bytes.
        """
        return await self._call("nbytes_stored", self._node.nbytes_stored)

    async def info_complete(self) -> Summary:
        """:attr:`info` with what is stored (bytes, chunks written).

        Returns
        -------
        zarrforge.user_api.info.Summary
            The summary.
        """
        return await self._call("info_complete", self._node.info_complete)


class AsyncSelector(SelectionView):
    """``AsyncArray.oindex``, ``.vindex`` and ``.blocks``: ``await a.oindex.getitem(sel)``,
    ``await a.vindex.setitem(sel, value)`` (zarr-python's ``AsyncOIndex``/``AsyncVIndex``)."""

    _array: AsyncArray

    async def getitem(self, selection: Any) -> Any:
        return await self._array._reads.read(self._kind_of(selection), selection)

    async def setitem(self, selection: Any, value: Any) -> None:
        await self._array._write(self._kind_of(selection), selection, value)
