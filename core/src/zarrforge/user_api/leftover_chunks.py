"""Chunks stored outside an array's shape: :func:`leftover_chunks` (``zarrforge.leftover_chunks``).

A shrink commits the smaller shape before it deletes the chunks beyond it, and an
append writes its new chunks before it commits the longer shape
(:mod:`zarrforge.user_api.array_resizing`), so a shrink cut short or an append whose
process was killed leaves chunks wholly outside the array's chunk grid. No reader reads
them and the next grow clears them, but until then they take up room and are no data.

Contract:

* Found through the array's format (:meth:`~zarrforge.abc.format.Format.chunks_outside_grid`):
  only keys spelled exactly as chunk keys of that array, outside its grid (for a sharded
  array, the shards: they are its stored chunks), and never a key in a sub-directory of
  the array that also holds something else (a nested node's keys). A format that cannot
  tell such keys reports none.
* The array's own document is read (never a consolidated view, which may hold an older,
  smaller shape), through the array's chunk store (its storage transformers applied).
* ``remove=True`` deletes them in one batch (``delete_many``), after reading the array's
  document once more and keeping every key inside the grid it then has: nothing inside
  the shape is ever deleted. Do not remove while another process is appending to the
  array: its new chunks are outside the shape until it commits.
"""

from __future__ import annotations

from typing import Any

from ..nodes.node import open_node
from ..storing import write_notices
from ..storing.storage import StoreLike
from .arrays import Array


def outside_shape(array: Array) -> list[str]:
    """The sorted keys of ``array``'s chunks stored outside its chunk grid (see the module
    docstring), in the terms of ``array.chunk_store``."""
    return array._format.chunks_outside_grid(array.chunk_store, array.path, array._metadata)


def remove_outside_shape(array: Array) -> list[str]:
    """Delete ``array``'s chunks stored outside its chunk grid; returns the keys deleted.
    The array's document is read again first, and a key inside the grid it then has is
    kept."""
    fresh = open_node(array.store, array.path, mode="r+", use_consolidated=False)
    doomed = [
        key
        for key in outside_shape(array)
        if fresh._format.chunk_coords(fresh.path, fresh._metadata, key) is None
    ]
    if doomed:
        with write_notices.announcing_writes(array.chunk_store, doomed):
            array.chunk_store.delete_many(doomed)
    return doomed


def leftover_chunks(
    store: StoreLike, path: str = "", *, remove: bool = False, storage_options: dict[str, Any] | None = None
) -> list[str]:
    """The store keys of chunks stored outside the shape of the array at ``path`` (for a
    group: of every array below it), sorted; with ``remove=True`` they are deleted, and
    the keys deleted are returned. What a shrink cut short or an append killed before it
    committed its shape leaves behind: see ``zarrforge.user_api.leftover_chunks``.

    Parameters
    ----------
    store
        The store (any store-like).
    path : str
        The path of the array (or group) in ``store``.
    remove : bool
        Delete the keys found (the store is opened for writing).
    storage_options : dict or None
        Options for the filesystem of an fsspec URL.

    Returns
    -------
    list of str
        The keys found (or deleted), sorted.

    Raises
    ------
    zarrforge.errors.NodeNotFoundError
        No node at ``path``.
    """
    mode = "r+" if remove else "r"
    node = open_node(store, path, mode=mode, use_consolidated=False, storage_options=storage_options)
    if isinstance(node, Array):
        arrays = [node]
    else:  # each opened from its own document: a sub-group's view may hold an old shape
        arrays = [
            open_node(node.store, member.path, mode=mode, use_consolidated=False)
            for _, member in node.members(max_depth=None)
            if isinstance(member, Array)
        ]
    found: list[str] = []
    for array in arrays:
        found.extend(remove_outside_shape(array) if remove else outside_shape(array))
    return sorted(found)
