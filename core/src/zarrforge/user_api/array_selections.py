"""Selections of an :class:`~zarrforge.Array` beyond ``a[...]``: what kind each selection
is, the ``oindex`` / ``vindex`` / ``blocks`` views (:class:`SelectionViews`, shared with
:class:`zarrforge.asyncio.AsyncArray`), and zarr-python's ``get_*_selection`` /
``set_*_selection`` names for them.

:class:`Selections` is a mixin of ``Array``: its methods read and write through the
array's ``_read(kind, selection)`` and ``_write(kind, selection, value)``, the one path
every selection takes. :func:`selection_kind` says which indexer reads a selection (the
asyncio API asks it too); :func:`as_value` converts and broadcasts what is written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from ..engine import indexing
from ..errors import SelectionError

View = TypeVar("View")


class SelectionViews(Generic[View]):
    """``oindex``, ``vindex`` and ``blocks`` of an array's face (blocking or async): the
    face's ``_selection_view(via)`` for each, ``via`` the view's name, as
    :func:`selection_kind` takes it."""

    def _selection_view(self, via: str) -> View:
        raise NotImplementedError

    @property
    def oindex(self) -> View:
        """Orthogonal selection. ``a.oindex[rows, cols]`` selects the outer product of one
        index (an integer array, a boolean mask, a slice or an integer) per axis; also assignable."""
        return self._selection_view("oindex")

    @property
    def vindex(self) -> View:
        """Vectorised (coordinate) selection. ``a.vindex[ii, jj]`` selects the points
        ``(ii[k], jj[k])``, or the elements where a boolean mask of the array's shape is true; also
        assignable."""
        return self._selection_view("vindex")

    @property
    def blocks(self) -> View:
        """Block selection. ``a.blocks[i, j]`` is the region of chunk ``(i, j)`` (slices select
        runs of chunks); also assignable."""
        return self._selection_view("blocks")


class Selections(SelectionViews["Selector"]):
    """The selection views and zarr-python's selection methods of an ``Array``."""

    _read: Any  # Array._read(kind, selection) -> np.ndarray
    _write: Any  # Array._write(kind, selection, value)

    if TYPE_CHECKING:  # the Array's

        @property
        def ndim(self) -> int: ...

        def __getitem__(self, selection: Any) -> Any: ...

        def __setitem__(self, selection: Any, value: Any) -> None: ...

    def _selection_view(self, via: str) -> Selector:
        return Selector(self, via)

    # --- zarr-python's names for the selections above ---------------------------------

    def get_basic_selection(
        self, selection: Any = Ellipsis, *, out: Any = None, fields: Any = None, prototype: Any = None
    ) -> Any:
        """zarr-python's name for ``array[selection]``.

        Parameters
        ----------
        selection : Any
            Slices, integers and ``...``, as ``array[selection]``. (default: the whole array).
        out : Any
            zarr-python's output buffer: refused when given.
        fields : Any
            A structured array's field name (or names) to read.
        prototype : Any
            zarr-python's buffer prototype: refused when given.

        Returns
        -------
        Any
            The values selected (a numpy array, or a scalar for a single element).
        """
        return fields_of(self[selection], fields, out, prototype, "get_basic_selection")

    def set_basic_selection(
        self, selection: Any, value: Any, *, fields: Any = None, prototype: Any = None
    ) -> None:
        """zarr-python's name for ``array[selection] = value``.

        Parameters
        ----------
        selection : Any
            Slices, integers and ``...``, as ``array[selection]``.
        value : Any
            The values to write, broadcast to the selection's shape.
        fields : Any
            zarr-python's fields: refused when given (write the whole structured value).
        prototype : Any
            zarr-python's buffer prototype: refused when given.
        """
        fields_of(None, fields, None, prototype, "set_basic_selection")
        self[selection] = value

    def get_orthogonal_selection(
        self, selection: Any, *, out: Any = None, fields: Any = None, prototype: Any = None
    ) -> Any:
        """zarr-python's name for ``array.oindex[selection]``.

        Parameters
        ----------
        selection : Any
            One integer, slice, integer array or boolean array per dimension, as ``array.oindex[selection]``.
        out : Any
            zarr-python's output buffer: refused when given.
        fields : Any
            A structured array's field name (or names) to read.
        prototype : Any
            zarr-python's buffer prototype: refused when given.

        Returns
        -------
        Any
            The values selected (a numpy array, or a scalar for a single element).
        """
        return fields_of(self.oindex[selection], fields, out, prototype, "get_orthogonal_selection")

    def set_orthogonal_selection(
        self, selection: Any, value: Any, *, fields: Any = None, prototype: Any = None
    ) -> None:
        """zarr-python's name for ``array.oindex[selection] = value``.

        Parameters
        ----------
        selection : Any
            One integer, slice, integer array or boolean array per dimension, as ``array.oindex[selection]``.
        value : Any
            The values to write, broadcast to the selection's shape.
        fields : Any
            zarr-python's fields: refused when given (write the whole structured value).
        prototype : Any
            zarr-python's buffer prototype: refused when given.
        """
        fields_of(None, fields, None, prototype, "set_orthogonal_selection")
        self.oindex[selection] = value

    def get_coordinate_selection(
        self, selection: Any, *, out: Any = None, fields: Any = None, prototype: Any = None
    ) -> Any:
        """zarr-python's name for ``array.vindex[selection]`` (``get_mask_selection`` is the same method).

        Parameters
        ----------
        selection : Any
            One integer array per dimension (the points' coordinates), or a boolean mask of the
            array's shape, as ``array.vindex[selection]``.
        out : Any
            zarr-python's output buffer: refused when given.
        fields : Any
            A structured array's field name (or names) to read.
        prototype : Any
            zarr-python's buffer prototype: refused when given.

        Returns
        -------
        Any
            The values selected (a numpy array, or a scalar for a single element).
        """
        return fields_of(self.vindex[selection], fields, out, prototype, "get_coordinate_selection")

    def set_coordinate_selection(
        self, selection: Any, value: Any, *, fields: Any = None, prototype: Any = None
    ) -> None:
        """zarr-python's name for ``array.vindex[selection] = value`` (``set_mask_selection`` is
        the same method).

        Parameters
        ----------
        selection : Any
            One integer array per dimension (the points' coordinates), or a boolean mask of the
            array's shape, as ``array.vindex[selection]``.
        value : Any
            The values to write, broadcast to the selection's shape.
        fields : Any
            zarr-python's fields: refused when given (write the whole structured value).
        prototype : Any
            zarr-python's buffer prototype: refused when given.
        """
        fields_of(None, fields, None, prototype, "set_coordinate_selection")
        self.vindex[selection] = value

    get_mask_selection = get_coordinate_selection  # vindex takes a boolean mask too
    set_mask_selection = set_coordinate_selection

    def get_block_selection(
        self, selection: Any, *, out: Any = None, fields: Any = None, prototype: Any = None
    ) -> Any:
        """zarr-python's name for ``array.blocks[selection]``.

        Parameters
        ----------
        selection : Any
            Slices or integers of chunk-grid coordinates, as ``array.blocks[selection]``.
        out : Any
            zarr-python's output buffer: refused when given.
        fields : Any
            A structured array's field name (or names) to read.
        prototype : Any
            zarr-python's buffer prototype: refused when given.

        Returns
        -------
        Any
            The values selected (a numpy array, or a scalar for a single element).
        """
        return fields_of(self.blocks[selection], fields, out, prototype, "get_block_selection")

    def set_block_selection(
        self, selection: Any, value: Any, *, fields: Any = None, prototype: Any = None
    ) -> None:
        """zarr-python's name for ``array.blocks[selection] = value``.

        Parameters
        ----------
        selection : Any
            Slices or integers of chunk-grid coordinates, as ``array.blocks[selection]``.
        value : Any
            The values to write, broadcast to the selection's shape.
        fields : Any
            zarr-python's fields: refused when given (write the whole structured value).
        prototype : Any
            zarr-python's buffer prototype: refused when given.
        """
        fields_of(None, fields, None, prototype, "set_block_selection")
        self.blocks[selection] = value


class SelectionView:
    """One of an array face's ``oindex``, ``vindex`` or ``blocks`` (``via``)."""

    def __init__(self, array: Any, via: str) -> None:
        self._array = array
        self._via = via

    def _kind_of(self, selection: Any) -> str:
        return selection_kind(selection, self._array.ndim, self._via)


class Selector(SelectionView):
    """``a.oindex``, ``a.vindex`` or ``a.blocks``: ``[...]`` reads or writes through the
    array's indexer of that kind."""

    def __getitem__(self, selection: Any) -> np.ndarray:
        out = self._array._read(self._kind_of(selection), selection)
        return out[()] if out.ndim == 0 else out

    def __setitem__(self, selection: Any, value: Any) -> None:
        self._array._write(self._kind_of(selection), selection, value)


def selection_kind(selection: Any, ndim: int, via: str = "getitem") -> str:
    """The indexer kind (``"basic"``, ``"orthogonal"``, ``"coordinate"``, ``"mask"``,
    ``"block"``) that reads ``selection`` as ``a[selection]`` does (``via="getitem"``), or
    as ``a.oindex``, ``a.vindex`` or ``a.blocks`` does (``via`` their name)."""
    if via == "getitem":
        if not is_fancy(selection):
            return "basic"
        via = "vindex" if is_vindex(selection, ndim) else "oindex"
    if via == "vindex":
        return "mask" if is_full_mask(selection, ndim) else "coordinate"
    return {"oindex": "orthogonal", "blocks": "block"}[via]


def is_full_mask(selection: Any, ndim: int) -> bool:
    items = selection if isinstance(selection, tuple) else (selection,)
    return (
        len(items) == 1
        and isinstance(items[0], (list, np.ndarray))
        and np.asarray(items[0]).dtype == bool
        and np.ndim(items[0]) == ndim
    )


def is_fancy(selection: Any) -> bool:
    items = selection if isinstance(selection, tuple) else (selection,)
    return any(isinstance(s, (list, np.ndarray)) and np.ndim(s) > 0 for s in items)


def is_vindex(selection: Any, ndim: int) -> bool:
    """Does numpy read ``a[selection]`` as points rather than orthogonally?

    A full-shape mask, or one array per dimension (two or more), are points;
    with a single array dimension the two readings agree, and mixtures of
    arrays and slices are taken orthogonally.
    """
    if ndim > 1 and is_full_mask(selection, ndim):
        return True
    items = selection if isinstance(selection, tuple) else (selection,)
    arrays = [s for s in items if isinstance(s, (list, np.ndarray)) and np.ndim(s) > 0]
    return len(arrays) > 1 and len(arrays) == len(items) == ndim


def as_value(value: Any, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """``value`` converted to ``dtype`` and broadcast to the selection's ``shape``."""
    if dtype.kind in "OT" and not isinstance(value, np.ndarray):
        # Variable-size elements: build in the target dtype directly, since numpy's
        # own fixed-width S/U guess for plain values drops trailing NUL characters.
        array = np.asarray(value, dtype=dtype)
    else:
        array = np.asarray(value)
    if array.dtype != dtype:
        numeric = array.dtype.kind in "biufc" and dtype.kind in "biufc"
        textual = array.dtype.kind in "OSUT" and dtype.kind in "OT"  # e.g. object of str -> string
        try:
            array = array.astype(dtype, casting="unsafe" if numeric or textual else "same_kind")
        except (TypeError, ValueError) as exc:
            raise SelectionError(
                f"cannot store values of dtype {array.dtype} in an array of dtype {dtype}: {exc}"
            ) from exc
    return indexing.broadcast_value(array, shape)


def fields_of(values: Any, fields: Any, out: Any, prototype: Any, method: str) -> Any:
    """zarr-python's ``fields=`` (a structured array's fields, read only); ``out=`` and
    ``prototype=`` (buffers of zarr-python's own) are refused when given."""
    for name, value in (("out", out), ("prototype", prototype)):
        if value is not None:
            raise TypeError(
                f"Array.{method}(): {name}= is not supported: selections are read into new numpy arrays"
            )
    if fields is None:
        return values
    if values is None:
        raise TypeError(
            f"Array.{method}(): fields= is supported when reading only; write the whole structured value"
        )
    return values[fields if isinstance(fields, str) else list(fields)]
