"""Selection entries made canonical: integers, slices, integer arrays and masks checked
against a dimension's length (:class:`~zarrforge.errors.BoundsCheckError` out of range,
:class:`~zarrforge.errors.SelectionError` malformed), and a basic selection expanded to
one entry per dimension."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from zarrforge.abc.chunk_grid import DimensionChunking
from zarrforge.errors import BoundsCheckError, SelectionError


def _as_int(value: Any, dim: int, what: str = "index") -> int:
    if isinstance(value, (bool, np.bool_)):
        raise SelectionError(
            f"invalid {what} {value!r} for dimension {dim}: booleans are not integer indices"
        )
    try:
        return operator.index(value)
    except TypeError:
        raise SelectionError(
            f"invalid {what} {value!r} of type {type(value).__name__} for "
            f"dimension {dim}: expected an integer"
        ) from None


def normalize_integer(index: Any, length: int, dim: int) -> int:
    """``index`` as a non-negative int in ``[0, length)``; negatives wrap."""
    i = _as_int(index, dim)
    if i < -length or i >= length:
        raise BoundsCheckError(f"index {i} is out of bounds for dimension {dim} with length {length}")
    return i + length if i < 0 else i


def normalize_slice(slc: slice, length: int, dim: int) -> range:
    """The array positions ``slc`` selects along a dimension of ``length``, in order."""
    start, stop = slc.start, slc.stop
    if slc.step is None and (start is None or type(start) is int) and (stop is None or type(stop) is int):
        return range(*slc.indices(length))  # the common case: nothing to convert or check
    parts = []
    for name in ("start", "stop", "step"):
        v = getattr(slc, name)
        parts.append(None if v is None else _as_int(v, dim, f"slice {name}"))
    if parts[2] == 0:
        raise SelectionError(f"slice step cannot be zero (dimension {dim})")
    return range(*slice(*parts).indices(length))


def normalize_integer_array(values: Any, length: int, dim: int) -> np.ndarray:
    """Bounds-checked int64 copy of an integer index array with negatives wrapped."""
    arr = np.asarray(values)
    if arr.size == 0:
        return np.zeros(arr.shape, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        raise SelectionError(f"index array for dimension {dim} must hold integers, got dtype {arr.dtype}")
    bad = (arr >= length) | (arr < -length) if arr.dtype.kind == "i" else arr >= length
    if bad.any():
        value = arr[bad].flat[0]
        raise BoundsCheckError(f"index {value} is out of bounds for dimension {dim} with length {length}")
    arr = arr.astype(np.int64)
    return np.where(arr < 0, arr + length, arr)


def _mask_positions(mask: np.ndarray, length: int, dim: int) -> np.ndarray:
    if mask.ndim != 1 or mask.shape[0] != length:
        raise SelectionError(f"boolean mask for dimension {dim} has shape {mask.shape}, expected ({length},)")
    return np.flatnonzero(mask).astype(np.int64)


def _check_dims(shape: Sequence[int], dimensions: Sequence[DimensionChunking]) -> tuple[int, ...]:
    shape = tuple(int(s) for s in shape)
    if len(shape) != len(dimensions):
        raise SelectionError(
            f"array shape {shape} has {len(shape)} dimensions but {len(dimensions)} chunkings were given"
        )
    return shape


def _expand(selection: Any, ndim: int, allow_newaxis: bool) -> list:
    """Selection entries with Ellipsis expanded and missing trailing axes filled."""
    sel = list(selection) if isinstance(selection, tuple) else [selection]
    n_ellipsis = sum(s is Ellipsis for s in sel)
    if n_ellipsis > 1:
        raise SelectionError("a selection may contain at most one Ellipsis (...)")
    if not allow_newaxis and any(s is None for s in sel):
        raise SelectionError("None (np.newaxis) is only supported in basic selections")
    n_real = sum(s is not Ellipsis and s is not None for s in sel)
    if n_real > ndim:
        raise SelectionError(
            f"too many indices: the array has {ndim} dimension(s) but the selection indexes {n_real}"
        )
    fill = [slice(None)] * (ndim - n_real)
    if n_ellipsis:
        i = next(i for i, s in enumerate(sel) if s is Ellipsis)
        return sel[:i] + fill + sel[i + 1 :]
    return sel + fill


def normalize_basic_selection(selection: Any, shape: Sequence[int]) -> tuple[int | range, ...]:
    """A basic selection (ints, slices, ``Ellipsis``, a tuple of them; not ``None``) as
    one entry per dimension: a non-negative ``int`` or the ``range`` of positions a slice
    selects. For extensions' ``map_selection``, which receive what the user wrote.
    Anything else (index arrays, masks, ``None``) raises :class:`~zarrforge.errors.SelectionError`.

    Parameters
    ----------
    selection : Any
        The selection, as the user wrote it.
    shape : Sequence[int]
        The array's shape.

    Returns
    -------
    tuple[int | range, ...]
        One entry per dimension: an index, or the range of positions a slice selects.

    Raises
    ------
    zarrforge.errors.SelectionError
        ``selection`` is not a basic selection (or has a zero step, too many entries).
    zarrforge.errors.BoundsCheckError
        An integer is out of bounds.

    Examples
    --------
    >>> normalize_basic_selection((1, slice(None, None, 2)), (4, 5))
    (1, range(0, 5, 2))
    >>> normalize_basic_selection((..., -1), (2, 3))
    (range(0, 2), 2)
    >>> from zarrforge.errors import BoundsCheckError
    >>> try:
    ...     normalize_basic_selection(7, (4,))
    ... except BoundsCheckError as error:
    ...     print(error)
    index 7 is out of bounds for dimension 0 with length 4
    """
    entries = _expand(selection, len(shape), allow_newaxis=False)
    result: list[int | range] = []
    for dim, (entry, length) in enumerate(zip(entries, shape)):
        if isinstance(entry, slice):
            result.append(normalize_slice(entry, length, dim))
        elif _is_integer(entry):
            result.append(normalize_integer(entry, length, dim))
        else:
            raise _bad_entry(entry, dim, "a basic selection holds integers and slices")
    return tuple(result)


def _bad_entry(entry: Any, dim: int, allowed: str) -> SelectionError:
    return SelectionError(
        f"invalid selection {entry!r} of type {type(entry).__name__} for dimension {dim}: {allowed}"
    )


def _is_integer(entry: Any) -> bool:
    if isinstance(entry, (bool, np.bool_)):
        return False
    if isinstance(entry, (int, np.integer)):
        return True
    return isinstance(entry, np.ndarray) and entry.ndim == 0 and entry.dtype.kind in "iu"
