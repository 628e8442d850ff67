"""Chunk helpers: what the chunk engine and codecs holding chunks whole (sharding's
inner chunks) share: is a chunk all fill value (bit for bit), and may a chunk of this
size be held (``config.max_chunk_bytes`` / ``max_request_bytes``). Plugins reach them
through :mod:`zarrforge.plugin_api` (``all_equal_fill``, ``check_allocation``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import config
from ..errors import ResourceLimitError

if TYPE_CHECKING:
    from ..abc.codec import ChunkSpec


def all_equal_fill(chunk: np.ndarray, fill_value: Any) -> bool:
    """Is every element of ``chunk`` bit-for-bit equal to ``fill_value``?

    Bitwise comparison keeps ``-0.0`` and NaN payloads distinct from the fill
    value, so deleting an "empty" chunk never changes what is read back.
    Every chunk written passes through here, so it answers from the first
    element when it can, and otherwise compares machine words without a
    temporary of the chunk's size. It raises nothing.

    Parameters
    ----------
    chunk : numpy.ndarray
        The chunk.
    fill_value : Any
        The array's fill value.

    Returns
    -------
    bool
        Whether every element equals ``fill_value`` bit for bit (``True`` for an empty
        chunk).

    Examples
    --------
    >>> all_equal_fill(np.zeros((2, 3)), 0.0)
    True
    >>> all_equal_fill(np.array([0.0, -0.0]), 0.0)  # -0.0 differs from 0.0 bit for bit
    False
    >>> all_equal_fill(np.full(4, np.nan), np.nan)
    True
    """
    dtype = chunk.dtype
    if dtype.hasobject or dtype.kind == "T":  # variable-size elements: no bit view
        return bool(np.all(chunk == fill_value))
    itemsize = dtype.itemsize
    if itemsize == 0 or chunk.size == 0:
        return True
    fill_bytes = _fill_bytes(dtype, fill_value)
    if chunk[_FIRST[chunk.ndim]].tobytes() != fill_bytes:
        return False  # most data chunks stop here, before any copy
    fill = np.frombuffer(fill_bytes, np.uint8)
    flat = np.ravel(chunk, order="K")  # a view for C- or F-contiguous chunks, else a copy
    raw = flat.view(np.uint8) if flat.flags.c_contiguous else np.ascontiguousarray(flat).view(np.uint8)
    if itemsize % 8 == 0 or (8 % itemsize == 0 and raw.size % 8 == 0):
        width = max(itemsize, 8)
        pattern = np.tile(fill, width // itemsize).view(np.uint64)
        words = raw.view(np.uint64).reshape(-1, pattern.size)
        if not pattern.any():
            return not words.any()
        return _all_rows_equal(words, pattern)
    return _all_rows_equal(raw.reshape(-1, itemsize), fill)


# the index of a chunk's first element, as an array of one element, by dimensions
_FIRST = tuple((slice(0, 1),) * ndim if ndim else Ellipsis for ndim in range(65))
# immutable fill values, whose bytes may be remembered by identity
_PLAIN_FILLS = (int, float, complex, bool, bytes, str, np.generic)
# the last (dtype, fill value, fill's bytes): every chunk of an array asks for the same
_last_fill: tuple[np.dtype, Any, bytes] | None = None


def _fill_bytes(dtype: np.dtype, fill_value: Any) -> bytes:
    """One element of ``dtype`` holding ``fill_value``, as bytes."""
    global _last_fill
    last = _last_fill
    if last is not None and last[0] is dtype and last[1] is fill_value:
        return last[2]
    value = np.asarray(fill_value, dtype=dtype).reshape(1).tobytes()
    if isinstance(fill_value, _PLAIN_FILLS) and not isinstance(fill_value, np.void):  # a void may be a view
        _last_fill = (dtype, fill_value, value)
    return value


def _all_rows_equal(rows: np.ndarray, pattern: np.ndarray, block: int = 1 << 16) -> bool:
    """``rows == pattern`` everywhere, compared a block of rows at a time (bounded
    temporaries, and an early answer for chunks that differ)."""
    for start in range(0, rows.shape[0], block):
        if not (rows[start : start + block] == pattern).all():
            return False
    return True


ChunkLimit = tuple[int | None, str]  # (bytes or None, the setting that sets it)


def chunk_limit() -> ChunkLimit:
    """The most bytes one chunk may take decoded now, and the setting that says so: the
    smaller of ``config.max_chunk_bytes`` and ``config.max_request_bytes`` (a call must
    hold a chunk it decodes whole)."""
    settings = config.get()
    chunk, request = settings.max_chunk_bytes, settings.max_request_bytes
    if request is None or (chunk is not None and chunk <= request):
        return (None, "") if chunk is None else (chunk, "max_chunk_bytes")
    return request, "max_request_bytes"


def check_allocation(
    shape: Sequence[int],
    dtype: np.dtype,
    what: str,
    limit: int | None = None,
    setting: str = "max_request_bytes",
) -> None:
    """Raise :class:`~zarrforge.errors.ResourceLimitError` if an array of ``shape`` and
    ``dtype`` is larger than ``limit`` (default: ``chunk_limit``, the smaller of
    ``config.max_chunk_bytes`` and ``config.max_request_bytes``).

    For code that must hold a whole chunk, or part of one, whose size comes from
    metadata (the engine; codecs such as sharding that decode inner chunks).

    Parameters
    ----------
    shape : Sequence[int]
        The array's shape.
    dtype : numpy.dtype
        Its dtype.
    what : str
        What the array is, for the error (``"the inner chunk"``).
    limit : int or None
        The most bytes allowed; ``None``: ``chunk_limit()`` (no limit when both settings
        are ``None``).
    setting : str
        The setting ``limit`` comes from, named by the error.

    Raises
    ------
    zarrforge.errors.ResourceLimitError
        The array would be larger than the limit.

    Examples
    --------
    >>> check_allocation((16, 16), np.uint8, "the inner chunk", limit=1024)  # 256 bytes: fine
    >>> from zarrforge.errors import ResourceLimitError
    >>> try:
    ...     check_allocation((1000,), np.float64, "the inner chunk", limit=4096)
    ... except ResourceLimitError as error:
    ...     print(error)
    the inner chunk of shape (1000,) needs 8000 bytes decoded, over the limit of 4096 bytes ...
    """
    if limit is None:
        limit, setting = chunk_limit()
        if limit is None:
            return
    nbytes = math.prod(shape) * np.dtype(dtype).itemsize
    if nbytes > limit:
        raise ResourceLimitError(
            f"{what} of shape {tuple(shape)} needs {nbytes} bytes decoded, over the limit of "
            f"{limit} bytes (zarrforge.config {setting}); this call has to hold it whole, so "
            f"raise {setting} to read or write it, e.g. "
            f"zarrforge.config.set({setting}={max(nbytes, 1)})"
        )


def check_chunk(spec: ChunkSpec, key: str, limit: ChunkLimit) -> None:
    """Refuse to hold a whole chunk of ``spec`` larger than ``limit`` (``chunk_limit``,
    read once per call): metadata may declare chunks of any size, and a write of three
    elements must not try to allocate a terabyte."""
    if limit[0] is not None:
        check_allocation(spec.shape, spec.dtype, f"chunk {key!r}", *limit)
