"""``zarrforge.copy``: copy an array or a whole hierarchy between formats and stores.

The copy is planned before anything is written: every destination node's
metadata is built by the destination format from the source's model and the
caller's overrides (``zarr_format``, ``chunks``, ``shards``, ``filters``,
``serializer``, ``compressors``). A node the destination format cannot
represent (sharding in Zarr v2, a data type without a v2 encoding, ...) fails
the whole copy with that format's error, naming the node, and the destination
is left untouched.

Data then streams in steps of whole destination write units (shards, or
chunks): as many as fit in 64 MiB decoded (``STEP_BYTES``, at least one),
so that the engine decodes and encodes a step's units on all its threads, and
memory stays bounded by one step plus the engine's working set, whatever the
array size. Units that hold only the fill value in the source are not written.
``progress(path, done, total)`` is called after each step; ``done`` and
``total`` count units of that array. A failure while copying data raises
:class:`~zarrforge.errors.IncompleteCopyError` saying which arrays were copied
whole, where it stopped and what was not begun (the cause chained); the
destination opens, and the same copy with ``overwrite=True`` completes it.
Until then (and when the copying process is killed) the destination root holds
an unfinished-write marker (:mod:`zarrforge.storing.unfinished`), so a copy or creation
there without ``overwrite`` is refused with an
:class:`~zarrforge.errors.UnfinishedWriteError` rather than taken for finished.

An array whose extensions change values (their value stage,
:mod:`zarrforge.user_api.value_stage`) is copied as stored when the destination keeps the
same entries, and as read otherwise.

Kept: attributes, dimension names (formats map v2 ``_ARRAY_DIMENSIONS`` to and
from ``dimension_names``), fill values, data types, and by default the
source's chunking and codecs. ``shards=False`` unshards a sharded source: its
inner chunks and inner codecs become the destination's chunks and codecs.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..abc.codec import ArrayArrayCodec, ArrayBytesCodec, SubdividedCodec
from ..abc.format import ArrayCreationSpec, Format
from ..abc.metadata import ArrayMetadata, GroupMetadata
from ..engine.codec_arguments import normalised
from ..errors import IncompleteCopyError, MetadataError, ZarrforgeError
from ..metadata import paths
from ..nodes import hierarchy
from ..nodes.node import Node, open_node
from ..nodes.node_writing import NewNode, prepare_nodes
from ..storing import unfinished
from ..storing.storage import StoreLike, resolve_location
from .value_stage import value_stages

KEEP: Any = object()  # sentinel: take the source's setting


@dataclasses.dataclass
class _Planned:
    path: str  # destination path
    source: Any  # the source node
    metadata: Any  # the destination model
    rendered: Any  # the destination format's rendering of it


def _is_group(node: Any) -> bool:
    return node.metadata_model.node_type == "group"


def _split_codecs(codecs: tuple[Any, ...]) -> tuple[list, Any, list]:
    filters = [c for c in codecs if isinstance(c, ArrayArrayCodec)]
    serializer = next(c for c in codecs if isinstance(c, ArrayBytesCodec))
    compressors = [c for c in codecs if not isinstance(c, (ArrayArrayCodec, ArrayBytesCodec))]
    return filters, serializer, compressors


def _grid_of(model: Any) -> Any:
    """The source's chunking as an API argument: a shape for regular grids, else the grid."""
    return model.chunk_grid.regular_chunk_shape or model.chunk_grid.to_json()


def _array_spec(array: Any, overrides: dict[str, Any]) -> ArrayCreationSpec:
    model = array.metadata_model
    filters, serializer, compressors = _split_codecs(model.codecs)
    shards = overrides.get("shards", KEEP)
    chunks = overrides.get("chunks", KEEP)
    inner = serializer.inner_chunk_shape if isinstance(serializer, SubdividedCodec) else None
    if inner is not None and shards is not KEEP:
        # Unshard (shards=False/None) or reshard: start from the inner chunks and codecs.
        filters, serializer, compressors = _split_codecs(serializer.inner_codecs)
        if chunks is KEEP:
            chunks = inner
        if shards is False:
            shards = None
    elif inner is not None:
        chunks, shards = (_grid_of(model) if chunks is KEEP else chunks), None
        filters, serializer, compressors = [], serializer, []
    else:
        if chunks is KEEP:
            chunks = _grid_of(model)
        if shards is KEEP or shards is False:
            shards = None
    pick = lambda name, kept: kept if overrides.get(name, KEEP) is KEEP else overrides[name]  # noqa: E731
    return ArrayCreationSpec(
        shape=model.shape,
        dtype=model.data_type,
        chunks=chunks,
        shards=shards,
        filters=pick("filters", filters),
        serializer=pick("serializer", serializer),
        compressors=pick("compressors", compressors),
        fill_value=model.fill_value,
        attributes=dict(model.attributes),
        dimension_names=model.dimension_names,
        extensions=list(model.extensions) or None,
    )


def _plan(source: Any, dest_path: str, fmt: Format, overrides: dict[str, Any]) -> list[_Planned]:
    nodes = [("", source)]
    if _is_group(source):
        nodes += source.members(max_depth=None)
    plan = []
    for relative, node in nodes:
        path = paths.join(dest_path, relative) if relative else dest_path
        try:
            metadata: GroupMetadata | ArrayMetadata
            if _is_group(node):
                metadata = fmt.new_group(dict(node.attrs), list(node.extensions) or None)
            else:
                metadata = fmt.new_array(normalised(_array_spec(node, overrides), fmt))
            rendered = fmt.render(metadata)
        except MetadataError as exc:
            # exc.message: the field is named once, by the new error's own prefix
            raise MetadataError(
                f"cannot copy {node.name!r} to format {fmt.name!r}: {exc.message}",
                field=exc.field,
                value=exc.value,
                key=exc.key,
            ) from exc
        plan.append(_Planned(path, node, metadata, rendered))
    return plan


def _units(array: Any) -> tuple[int, ...]:
    shape = array.shards or array.chunks
    return tuple(max(1, s) for s in shape)


#: decoded bytes one step of a copy reads and writes at most (whole destination units, as
#: many as fit, so that a step's units are decoded and encoded on all threads at once)
STEP_BYTES = 64 * 2**20


def _step_units(grid: list[int], unit: tuple[int, ...], itemsize: int, step_bytes: int) -> tuple[int, ...]:
    """Units per dimension in one step: whole rows of units from the last dimension
    inwards, within ``step_bytes`` (always at least one unit)."""
    step = [1] * len(grid)
    nbytes = int(np.prod(unit, dtype=np.int64)) * itemsize
    for axis in reversed(range(len(grid))):
        fit = max(1, step_bytes // max(1, nbytes))
        step[axis] = min(grid[axis], fit)
        nbytes *= step[axis]
        if step[axis] < grid[axis]:
            break
    return tuple(step)


def _same_value_stage(source: Any, dest: Any) -> bool:
    """Do both arrays have value stages, the same entries in the same order?"""
    theirs, ours = value_stages(source.metadata_model), value_stages(dest.metadata_model)
    return bool(theirs) and [e.to_json() for e in theirs] == [e.to_json() for e in ours]


def _copy_data(
    source: Any, dest: Any, progress: Callable[[str, int, int], None] | None, step_bytes: int | None = None
) -> None:
    unit = _units(dest)
    grid = [len(range(0, n, u)) for n, u in zip(dest.shape, unit)]
    total = int(np.prod(grid, dtype=np.int64)) if dest.ndim else 1
    if step_bytes is not None and (
        not isinstance(step_bytes, int) or isinstance(step_bytes, bool) or step_bytes < 1
    ):
        raise ValueError(f"step_bytes must be a positive int of bytes, got {step_bytes!r}")
    step = _step_units(grid, unit, dest.dtype.itemsize, STEP_BYTES if step_bytes is None else step_bytes)
    done = 0
    # the destination keeping the source's value stage (an extension that changes values)
    # takes the stored values as they are: decoding and encoding again might not give
    # back the same bits (a float scale)
    as_stored = _same_value_stage(source, dest)
    for origin in itertools.product(*(range(0, g, s) for g, s in zip(grid, step))):
        region = tuple(
            slice(o * u, min((o + s) * u, n)) for o, s, u, n in zip(origin, step, unit, dest.shape)
        )
        if as_stored:
            dest._write(
                "basic", region, source._read("basic", region, stored_values=True), stored_values=True
            )
        else:
            dest[region] = source[region]
        done += int(np.prod([min(s, g - o) for o, s, g in zip(origin, step, grid)], dtype=np.int64))
        if progress is not None:
            progress(dest.path, done, total)


def copy(
    source: StoreLike,
    dest: StoreLike,
    *,
    source_path: str = "",
    dest_path: str = "",
    zarr_format: Any = None,
    chunks: Any = KEEP,
    shards: Any = KEEP,
    filters: Any = KEEP,
    serializer: Any = KEEP,
    compressors: Any = KEEP,
    overwrite: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    step_bytes: int | None = None,
    storage_options: dict[str, Any] | None = None,
) -> Any:
    """Copy the node at ``source_path`` of ``source`` to ``dest_path`` of ``dest``.

    ``step_bytes``: the decoded bytes one step copies at most (default
    ``STEP_BYTES``; at least one destination unit whatever it says).
    Returns the destination node. ``zarr_format`` defaults to the format a URL pipeline
    ``dest`` chooses, else the source's; ``source``/``dest`` may be URL pipelines.

    Parameters
    ----------
    source
        The store (or URL pipeline) to copy from, or an open :class:`zarrforge.Array` or
        :class:`zarrforge.Group`.
    dest
        The store (or URL pipeline) to copy into.
    source_path : str
        The path of the node to copy in ``source``.
    dest_path : str
        The path of the copy in ``dest``.
    zarr_format : Any
        The destination's format (above).
    chunks, shards, filters, serializer, compressors : Any
        The destination arrays' chunking and codecs, as for :func:`zarrforge.create_array`;
        not given: the source's (``shards=False`` unshards).
    overwrite : bool
        Replace nodes already at the destination (and complete an interrupted copy).
    progress : Callable or None
        Called as ``progress(path, done, total)`` after each step, counting units of that array.
    step_bytes : int or None
        The decoded bytes one step copies at most (above).
    storage_options : dict or None
        Options for the filesystem of an fsspec URL ``dest``.

    Returns
    -------
    Any
        The destination node (a :class:`zarrforge.Array` or a :class:`zarrforge.Group`).

    Raises
    ------
    zarrforge.errors.IncompleteCopyError
        A failure while copying data (the cause chained); the same copy with ``overwrite=True``
        completes it.
    zarrforge.errors.ContainsNodeError
        A node (or an unfinished write) is at the destination and ``overwrite`` is false.
    """
    node = source if isinstance(source, Node) else open_node(source, source_path)
    location = resolve_location(dest, dest_path, zarr_format=zarr_format, storage_options=storage_options)
    store, dest_path = location.store, location.path
    fmt = hierarchy.get_format(location.zarr_format or node.metadata_model.format_name)
    overrides = {
        k: v
        for k, v in {
            "chunks": chunks,
            "shards": shards,
            "filters": filters,
            "serializer": serializer,
            "compressors": compressors,
        }.items()
        if v is not KEEP
    }
    plan = _plan(node, dest_path, fmt, overrides)
    arrays = [item for item in plan if not _is_group(item.source)]
    # the names below dest_path are the source's: one with the spec's reserved "__"
    # prefix that another tool wrote (xarray's "__values__") is copied as it is
    prepared = prepare_nodes(
        store,
        fmt,
        dest_path,
        [NewNode(item.path, item.metadata, item.rendered) for item in plan],
        overwrite=overwrite,
        reserved_below_root=True,
    )
    needed = prepared.several_writes() or bool(arrays)
    with unfinished.marking(prepared.store, dest_path, "copy", needed=needed) as mark:
        prepared.write(mark)
        for number, item in enumerate(arrays):
            target = open_node(store, item.path, mode="r+", fmt=fmt)
            done = [0, 0]  # units of this array written, in all

            def counting(path: str, units: int, total: int) -> None:
                done[:] = [units, total]  # noqa: B023  # called before the loop moves on
                if progress is not None:
                    progress(path, units, total)

            try:
                _copy_data(item.source, target, counting, step_bytes)
            except ZarrforgeError as exc:
                mark.keep()  # the nodes stay, incomplete, until overwrite=True completes them
                raise _incomplete(store, arrays, number, done, exc) from exc
    return open_node(store, dest_path, mode="r+", fmt=fmt)


def _incomplete(
    store: Any, arrays: list[_Planned], number: int, done: list[int], cause: ZarrforgeError
) -> IncompleteCopyError:
    """What a copy that stopped in ``arrays[number]`` had copied, as the error to raise."""
    names = ["/" + item.path for item in arrays]
    completed, stopped, pending = names[:number], names[number], names[number + 1 :]
    units = f"after {done[0]} of {done[1]} units" if done[1] else "before its first unit"
    parts = [
        f"copied whole: {', '.join(completed[:10])}{' ...' if len(completed) > 10 else ''} "
        f"({len(completed)} of {len(names)} arrays)"
        if completed
        else f"no array copied whole (of {len(names)})",
        f"{stopped} stopped {units}",
    ]
    if pending:
        parts.append(f"not begun: {len(pending)} array(s)")
    return IncompleteCopyError(
        f"the copy into {store!r} stopped ({type(cause).__name__}: {cause}); "
        f"{'; '.join(parts)}. The destination opens; run the same zarrforge.copy with "
        "overwrite=True to complete it",
        completed=completed,
        stopped=(stopped, done[0], done[1]),
        pending=pending,
    )
