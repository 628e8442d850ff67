"""zarr-python's ``*_like`` arguments: what a new array takes from an existing one.

``zeros_like(a)``, ``Group.full_like(name=, data=a)`` and the like create an array with
``a``'s shape and data type and, when ``a`` is a Zarr array (zarrforge's, or another
library's such as zarr-python's, which has a chunk shape and a fill value), its chunk shape
(and, for ``full_like`` and ``empty_like``, its fill value); any of these given as keywords
wins. Another array-like is read for its shape and data type only (``numpy.asarray``).
A zarrforge array whose grid has no single chunk shape (rectilinear) gives its grid.
Shared by the module functions (:mod:`.zarr_api`) and the group methods (:mod:`.groups`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .arrays import Array


def like_arguments(a: Any, keywords: dict[str, Any], *, fill: bool = False) -> dict[str, Any]:
    """The creation arguments ``a`` gives, updated with ``keywords``."""
    if isinstance(a, Array):
        like: dict[str, Any] = {"shape": tuple(a.shape), "dtype": a.dtype, "chunks": chunking_of(a)["chunks"]}
        if fill:
            like["fill_value"] = a.fill_value
    elif _is_foreign_zarr_array(a):
        like = {"shape": tuple(a.shape), "dtype": a.dtype, "chunks": tuple(a.chunks)}
        if fill:
            like["fill_value"] = a.fill_value
    else:
        values = a if isinstance(a, np.ndarray) else np.asarray(a)
        like = {"shape": values.shape, "dtype": values.dtype}
    like.update(keywords)
    return like


def chunking_of(a: Array) -> dict[str, Any]:
    """``a``'s ``chunks`` and ``shards`` as creation arguments: the read unit's shape and,
    when sharded, the stored chunks' (else ``None``); a grid with no single chunk shape
    (a rectilinear one) as its JSON."""
    grid = a.metadata_model.chunk_grid
    stored = grid.regular_chunk_shape or grid.to_json()
    try:
        sharded = a.shards is not None
    except AttributeError:  # sharded, over a grid with no single shard shape
        sharded = True
    return {"chunks": tuple(a.chunks), "shards": stored} if sharded else {"chunks": stored, "shards": None}


def _is_foreign_zarr_array(a: Any) -> bool:
    """Another library's Zarr array: a regular chunk shape (ints, not dask's tuples of
    sizes) and a fill value beside its shape and data type."""
    chunks = getattr(a, "chunks", None)
    return (
        hasattr(a, "shape")
        and hasattr(a, "dtype")
        and hasattr(a, "fill_value")
        and isinstance(chunks, tuple)
        and all(isinstance(c, int) for c in chunks)
    )
