"""The chunk shape of a new array: the one rule that picks it, and the checks of a given one.

:func:`chunk_shape` reads the ``chunks=`` argument of array creation, for every
format and for the xarray writer alike:

* ``None`` (the default) or ``"auto"``: :func:`auto_chunks`;
* an int: that length in every dimension (``-1``: the whole dimension);
* a sequence with one entry per dimension: a positive int, or ``-1`` / ``None`` for
  the whole dimension (a dimension of length 0 gets chunks of length 1);
* a chunk grid (a :class:`~zarrforge.abc.chunk_grid.ChunkGrid` or its JSON) is the
  format's to read, and passes through unchanged;
* zarr-python's form of variable chunks, one entry per dimension of which at least one
  is a sequence of edge lengths (``[[10, 20, 30], [50, 50]]``; an int entry is a
  regular step): the ``rectilinear`` chunk grid (:func:`edges_grid`; the grid is a
  plugin's, ``zarrforge-rectilinear``, resolved by name like any other). ``shards=`` takes
  the same form.

``shards="auto"`` (:func:`auto_shards`) groups the chunks into shards: starting from
one chunk, the side with the most chunks still outside the shard doubles (up to the
array's extent in whole chunks), while the shard holds at most
``config.auto_shard_bytes`` (64 MiB by default).

With ``shards`` given as a shape, an automatic chunk shape is picked inside one
shard and each side cut down to the nearest length that divides the shard's.
:func:`check_chunk_size` refuses, at creation, a chunk larger decoded than
``config.max_chunk_bytes``: readers would refuse to decode it.

Anything else (0, a negative length other than -1, a fraction, a bool, a string other
than ``"auto"``, the wrong number of entries) is refused with a
:class:`~zarrforge.errors.MetadataError` naming the dimension, the value and what is
valid, before anything is written.

:func:`auto_chunks` is the rule: start from the whole array and halve the longest
side (the first of equals; a half rounds up) until a chunk holds at most
``config.auto_chunk_bytes`` (4 MiB by default), or every side is 1. A 50,000 x 50,000
float32 array gets chunks of 782 x 782 (2.3 MiB); an array that fits keeps one chunk.
A data type of variable size (strings) counts as 16 bytes an element.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import config
from ..abc.chunk_grid import ChunkGrid
from ..errors import MetadataError, ResourceLimitError

VARIABLE_ITEM_BYTES = 16  # what auto_chunks counts for an element of a variable-size type
_VALID = "a positive int, or -1 or None for the whole dimension"


def auto_chunks(shape: Sequence[int], item_size: int | None) -> tuple[int, ...]:
    """The chunk shape :mod:`zarrforge.engine.chunking`'s rule picks for ``shape`` (see above)."""
    target = config.get().auto_chunk_bytes
    size = item_size if item_size else VARIABLE_ITEM_BYTES
    chunks = [max(1, int(n)) for n in shape]
    while chunks and math.prod(chunks) * size > target and max(chunks) > 1:
        longest = chunks.index(max(chunks))
        chunks[longest] = (chunks[longest] + 1) // 2
    return tuple(chunks)


def auto_shards(shape: Sequence[int], chunks: Sequence[int], item_size: int | None) -> tuple[int, ...]:
    """The shard shape ``shards="auto"`` picks for chunks ``chunks`` (see above)."""
    target = config.get().auto_shard_bytes
    size = item_size if item_size else VARIABLE_ITEM_BYTES
    shard = [int(c) for c in chunks]
    while True:
        growing = [i for i, (side, extent) in enumerate(zip(shard, shape)) if side < extent]
        if not growing:
            break
        side = max(growing, key=lambda i: (shape[i] - shard[i]) / chunks[i])
        whole = -(-shape[side] // chunks[side]) * chunks[side]  # the extent, in whole chunks
        grown = min(shard[side] * 2, whole)
        if math.prod(shard) // shard[side] * grown * size > target:
            break
        shard[side] = grown
    return tuple(shard)


def _length(value: Any, extent: int, where: str) -> int:
    if value is None or (_is_int(value) and value == -1):
        return max(1, extent)
    if _is_int(value) and value > 0:
        return int(value)
    raise MetadataError(
        f"{where} = {value!r} is not a chunk length: give {_VALID}", field="chunks", value=value
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_edges(value: Any) -> bool:
    kind = type(value)
    if kind is tuple or kind is list:  # the usual forms, without the ABC check (about 0.7 us)
        return True
    if kind is int or value is None:
        return False
    return isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes))


def edges_grid(value: Any) -> dict[str, Any] | None:
    """The ``rectilinear`` chunk grid's JSON for zarr-python's nested form of ``chunks=``
    or ``shards=`` (one entry per dimension, some of them sequences of edge lengths), or
    ``None`` when ``value`` is not in that form. The edges are the grid's to check."""
    if not _is_edges(value):
        return None
    entries = list(value)
    if not any(_is_edges(entry) for entry in entries):
        return None
    shapes = [
        [int(e) if _is_int(e) else e for e in entry]
        if _is_edges(entry)
        else int(entry)
        if _is_int(entry)
        else entry
        for entry in entries
    ]
    return {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": shapes}}


def chunk_shape(chunks: Any, shape: Sequence[int], item_size: int | None, shards: Any = None) -> Any:
    """The chunk shape ``chunks=`` asks for (a tuple of ints), or the grid it gives; see
    the module docstring for what is accepted."""
    if isinstance(chunks, (ChunkGrid, dict)):
        return chunks
    grid = edges_grid(chunks)
    if grid is not None:
        return grid
    if chunks is None or (isinstance(chunks, str) and chunks == "auto"):
        if (
            isinstance(shards, Sequence)
            and not isinstance(shards, str)
            and len(shards) == len(shape)
            and all(_is_int(n) and n > 0 for n in shards)
        ):
            inside = auto_chunks(shards, item_size)
            return tuple(_largest_divisor_up_to(int(n), limit) for n, limit in zip(shards, inside))
        return auto_chunks(shape, item_size)
    if _is_int(chunks):
        return tuple(_length(chunks, extent, "chunks") for extent in shape)
    if not _is_edges(chunks):
        raise MetadataError(
            f"chunks={chunks!r} is not a chunk shape: give 'auto', one length "
            f"for every dimension, or one per dimension, each {_VALID}",
            field="chunks",
            value=chunks,
        )
    entries = list(chunks)
    if len(entries) != len(shape):
        raise MetadataError(
            f"chunks={entries!r} gives {len(entries)} lengths but the array has "
            f"{len(shape)} dimensions (shape {tuple(shape)})",
            field="chunks",
            value=entries,
        )
    return tuple(
        _length(value, extent, f"chunks[{i}]") for i, (value, extent) in enumerate(zip(entries, shape))
    )


def _largest_divisor_up_to(n: int, limit: int) -> int:
    return next(d for d in range(min(n, limit), 0, -1) if n % d == 0)


def check_chunk_size(chunks: Any, item_size: int | None, dtype: Any) -> None:
    """Refuse a chunk shape whose chunks (a shard's inner chunks, for a sharded array)
    would decode to more than ``config.max_chunk_bytes``, before anything is written."""
    limit = config.get().max_chunk_bytes
    if limit is None or not item_size or not isinstance(chunks, tuple):
        return
    size = math.prod(chunks) * item_size
    if size > limit:
        raise ResourceLimitError(
            f"chunks of {chunks} elements of {dtype} take {size:,} bytes each decoded, over "
            f"the limit of {limit:,} bytes (zarrforge.config max_chunk_bytes) that readers "
            "apply: nothing was written. Choose smaller chunks (chunks='auto' picks them), or "
            "raise max_chunk_bytes for this writer and every reader"
        )
