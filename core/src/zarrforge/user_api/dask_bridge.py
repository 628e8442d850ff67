"""Dask integration: arrays as dask arrays, and dask arrays written into arrays.

* :func:`to_dask` wraps an :class:`~zarrforge.Array` as a dask array whose
  blocks are the array's write units (shards when sharded, else chunks), read
  lazily. ``dask.array.from_array(array)`` works too (an Array has shape,
  dtype, ndim and numpy-style indexing); :func:`to_dask` picks the block shape
  for you.
* :func:`from_dask` writes a dask array into a new or existing array. It first
  rechunks the dask array onto the target's write units, so every task writes
  whole chunks (whole shards) and no two tasks ever touch the same stored
  object: parallel writers never race, on any store. The rechunk is a real
  dask operation (it may move data between workers); give the dask array the
  target's chunking to avoid it.

Arrays travel to dask workers by pickling: an Array pickles as "its store and
path, reopen me", so the store must be picklable (local directories and
fsspec stores are; an in-process memory store is not shared between
processes, so distributed writes to it are refused with a clear error).
Dask is imported only when these functions are called.
"""

from __future__ import annotations

from typing import Any

from ..errors import ZarrforgeError
from .arrays import Array
from .creation import create_array


def _dask_array() -> Any:
    try:
        import dask.array as da
    except ImportError as exc:  # pragma: no cover - exercised only without dask installed
        raise ZarrforgeError(
            "dask is not installed; install 'dask[array]' to use zarrforge.to_dask / from_dask"
        ) from exc
    return da


def write_units(array: Any) -> tuple[int, ...]:
    """The block shape whose writes touch whole stored objects (shards or chunks)."""
    shape = array.shards or array.chunks
    return tuple(min(s, n) if n else s for s, n in zip(shape, array.shape))


def to_dask(array: Any, *, chunks: Any = None) -> Any:
    """A lazy dask array over ``array``; blocks default to its write units.

    Parameters
    ----------
    array : Any
        The :class:`zarrforge.Array` to read.
    chunks : Any
        The dask blocks' shape; ``None``: the array's write units (shards, or chunks).

    Returns
    -------
    Any
        A ``dask.array.Array`` reading ``array``.

    Raises
    ------
    zarrforge.errors.ZarrforgeError
        dask is not installed.
    """
    da = _dask_array()
    return da.from_array(
        array,
        chunks=chunks or write_units(array),
        lock=False,
        asarray=False,
        fancy=False,
        name=f"zarrforge-{array.path or 'root'}-{id(array):x}",
    )


def check_shareable(array: Any) -> None:
    """Refuse, with a plain message, to hand an array whose store lives in this process
    (the memory store) to a dask scheduler that runs tasks in other processes; dask
    would otherwise fail later with a serialization error that hides the reason."""
    try:
        from distributed import get_client

        client = get_client()
    except (ImportError, ValueError):
        return  # no distributed client: tasks run in this process
    if getattr(client.cluster, "processes", True) is False:
        return
    import pickle

    try:
        pickle.dumps(array)
    except TypeError as exc:
        raise ZarrforgeError(
            f"the array {array.name!r} cannot be written by dask's distributed workers: "
            f"{exc}. Write to a directory or an object store (a path or URL), or compute "
            "with a local scheduler (dask.config.set(scheduler='threads'))"
        ) from None


def from_dask(
    source: Any, target: Any = None, path: str = "", *, compute: bool = True, **create_kwargs: Any
) -> Any:
    """Write the dask array ``source`` into ``target``.

    ``target`` is an existing :class:`~zarrforge.Array`, or a store/URL where a
    new array is created at ``path`` with ``create_kwargs`` (shape and dtype
    default to the source's, chunks to the source's first block shape). An
    xarray DataArray holding a dask array is accepted: its dims become the new
    array's ``dimension_names``, its attributes its attributes, and its name the
    ``path`` when none is given. The data is rechunked to the array's write units
    (shards, or chunks) first, so no two tasks write one stored object. Returns the
    array, or the dask delayed object when ``compute=False``.

    Parameters
    ----------
    source : Any
        A dask array, or an xarray DataArray holding one.
    target : Any
        An existing :class:`zarrforge.Array`, or a store-like where a new array is created.
    path : str
        The new array's path in ``target`` (a store-like ``target`` only).
    compute : bool
        Write now; ``False`` returns the dask delayed object that writes.
    **create_kwargs : Any
        Keywords of :func:`zarrforge.create_array` for the new array.

    Returns
    -------
    Any
        The :class:`zarrforge.Array` written, or the delayed object when ``compute=False``.

    Raises
    ------
    zarrforge.errors.ZarrforgeError
        dask is not installed, or ``source``'s shape is not the target array's.
    """
    da = _dask_array()
    if not isinstance(source, da.Array) and isinstance(getattr(source, "data", None), da.Array):
        # an xarray DataArray (or Variable) backed by dask: its dims, attributes and name
        # describe the new array
        if not isinstance(target, Array):
            create_kwargs.setdefault("dimension_names", [str(d) for d in source.dims])
            create_kwargs.setdefault("attributes", dict(getattr(source, "attrs", {})))
            if not path and getattr(source, "name", None) is not None:
                path = str(source.name)
        source = source.data
    if not isinstance(source, da.Array):
        raise TypeError(
            f"from_dask writes a dask array (or an xarray DataArray holding one), "
            f"got {type(source).__name__}; use array[...] = values for numpy data"
        )
    if not isinstance(target, Array):
        create_kwargs.setdefault("shape", source.shape)
        create_kwargs.setdefault("dtype", source.dtype)
        create_kwargs.setdefault("chunks", tuple(c[0] for c in source.chunks) if source.ndim else ())
        target = create_array(target, path, **create_kwargs)
    if tuple(source.shape) != tuple(target.shape):
        raise ZarrforgeError(
            f"source shape {tuple(source.shape)} does not match the target array's shape {target.shape}"
        )
    check_shareable(target)
    aligned = source.rechunk(write_units(target)) if target.ndim else source
    result = da.store(aligned, target, lock=False, compute=compute, return_stored=False)
    return target if compute else result
