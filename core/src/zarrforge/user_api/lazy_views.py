"""``Array.lazy``: zarr-indexing's ``LazyArray`` over a zarrforge array, read by the engine.

Contract: :func:`lazy_view` returns ``zarr_indexing.LazyArray(array)``, unpartitioned,
with :data:`ENGINE_READER` as its reader (zarr-indexing's derived views keep the reader).
Indexing a view composes index transforms and reads nothing; ``result()`` (or
``numpy.asarray``) hands the whole composed transform to the reader once, and the reader
makes it **one engine read** of the array, through the array's own selections:

* a transform whose every output map is a constant or one input dimension's affine map,
  each input dimension feeding at most one of them (slices of any step, integers, new and
  reordered axes: what basic indexing composes to), is read as one basic selection
  ``array[key]``, then reordered and broadcast into the output;
* any other (index arrays, orthogonal or correlated; one input dimension feeding two
  output dimensions) is read as one coordinate selection ``array.vindex[...]`` of the
  source coordinates of every output cell.

Either way the engine schedules every chunk the final selection touches at once (with
its threads, store batching, sharded inner chunks and shard-index ranges) and no other,
each once. ``with_parts(...)`` splits a read as the user asks: one engine read per part.

Writes are zarr-indexing's: an affine selection is one ``array[key] = values``, one engine
write; an index-array selection is written cell by cell of the array's chunk grid, each
cell one engine write (a failure part way leaves the cells before it written).

zarr-indexing needs Python 3.12; without it, ``Array.lazy`` raises ``ImportError`` naming
the ``zarrforge[lazy]`` extra.
"""

from __future__ import annotations

from typing import Any

import numpy as np

EXTRA_HINT = "Array.lazy needs zarr-indexing (Python 3.12 or newer): pip install 'zarrforge[lazy]'"


class EngineReader:
    """A zarr-indexing ``Reader`` that turns a view's composed transform into one read of
    a zarrforge array (module docstring): its source is a :class:`zarrforge.Array`. A
    selection of the view's own shape and order is read straight into the view's output.
    Stateless: views and parts may share it across threads."""

    __slots__ = ()

    def read_into(self, source: Any, context: Any, out: np.ndarray, /) -> None:
        transform = context.transform
        basic = _basic_selection(transform)
        if basic is not None:
            key, axes = basic
            if axes == list(range(out.ndim)):  # the selection's own shape: read in place
                source._read_into(key, out)
                return
            block = np.asarray(source[key])
            out[...] = _arranged(block, axes, transform.domain.shape)
            return
        coordinates = _source_coordinates(transform)
        if out.size == 0:
            return
        values = source.vindex[tuple(c.reshape(-1) for c in coordinates)]
        out[...] = np.asarray(values).reshape(out.shape)


ENGINE_READER = EngineReader()


def _basic_selection(transform: Any) -> tuple[tuple[Any, ...], list[int]] | None:
    """``(key, axes)``: the basic selection of the source reading an affine transform, and
    for each dimension of its result the input dimension it is; ``None`` when the transform
    is not affine with each input dimension used at most once."""
    from zarr_indexing import ConstantMap, DimensionMap

    shape = transform.domain.shape
    key: list[Any] = []
    axes: list[int] = []
    used: set[int] = set()
    for output in transform.output:
        if isinstance(output, ConstantMap):
            key.append(int(output.offset))
            continue
        if not isinstance(output, DimensionMap):
            return None
        dimension, offset, stride = int(output.input_dimension), int(output.offset), int(output.stride)
        if stride == 0:  # every input coordinate reads one source coordinate
            key.append(offset)
            continue
        if dimension in used:
            return None
        used.add(dimension)
        extent = int(shape[dimension])
        if extent == 0:
            key.append(slice(offset, offset))
        else:
            last = offset + stride * (extent - 1)
            stop = last + (1 if stride > 0 else -1)
            key.append(slice(offset, None if stop < 0 else stop, stride))
        axes.append(dimension)
    return tuple(key), axes


def _arranged(block: np.ndarray, axes: list[int], shape: tuple[int, ...]) -> np.ndarray:
    """``block`` (one dimension per entry of ``axes``, each an input dimension) as an array
    of the input domain's ``shape``: its dimensions reordered, and broadcast along the input
    dimensions no source dimension follows (new axes, stride-0 maps)."""
    order = sorted(range(len(axes)), key=lambda i: axes[i])
    arranged = block.transpose(order) if order != list(range(len(order))) else block
    placed = set(axes)
    expanded = arranged.reshape(tuple(shape[d] if d in placed else 1 for d in range(len(shape))))
    return np.broadcast_to(expanded, shape)


def _source_coordinates(transform: Any) -> list[np.ndarray]:
    """For each source dimension, its coordinate at every cell of the (zero-origin) input
    domain, broadcast to the domain's shape."""
    from zarr_indexing import ArrayMap, ConstantMap, DimensionMap

    shape = tuple(int(n) for n in transform.domain.shape)
    ndim = len(shape)
    coordinates = []
    for output in transform.output:
        if isinstance(output, ConstantMap):
            values = np.asarray(int(output.offset), dtype=np.intp).reshape((1,) * ndim)
        elif isinstance(output, DimensionMap):
            along = [1] * ndim
            along[output.input_dimension] = shape[output.input_dimension]
            values = (output.offset + output.stride * np.arange(shape[output.input_dimension])).reshape(along)
        elif isinstance(output, ArrayMap):
            values = output.offset + output.stride * np.asarray(output.index_array, dtype=np.intp)
        else:  # a map kind this version of zarrforge does not know
            raise TypeError(f"Array.lazy cannot read an output map of type {type(output).__name__}")
        coordinates.append(np.broadcast_to(values.astype(np.intp, copy=False), shape))
    return coordinates


def lazy_view(array: Any) -> Any:
    """``array`` as an unpartitioned ``zarr_indexing.LazyArray`` read by :data:`ENGINE_READER`."""
    try:
        import zarr_indexing
    except ImportError as exc:
        raise ImportError(EXTRA_HINT) from exc
    return zarr_indexing.LazyArray(array).unpartitioned().with_reader(ENGINE_READER)
