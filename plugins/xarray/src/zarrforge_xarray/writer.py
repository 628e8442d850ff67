"""Writing xarray Datasets and DataTrees with zarrforge: :func:`to_zarr`.

``to_zarr(ds, store=None, mode=None, group=None, encoding=None, *, compute=True,
consolidated=None, append_dim=None, region=None, safe_chunks=True,
align_chunks=False, storage_options=None, zarr_format=None, write_empty_chunks=None,
chunkmanager_store_kwargs=None)`` has the parameters and semantics of xarray's
``Dataset.to_zarr``:

* ``mode``: ``"w-"`` create, failing if the group exists (the default);
  ``"w"`` replace it; ``"a"`` add variables, overwriting existing ones in place
  (with their stored encoding); ``"a-"`` as ``"a"`` but leave existing variables
  without ``append_dim`` alone; ``"r+"`` write existing variables only (no new
  variables, no metadata changes). ``append_dim`` (default mode ``"a"``) grows
  that dimension of every variable that has it and writes after the end;
  ``region`` (default mode ``"r+"``) writes into part of existing variables:
  ``{dim: slice}``, ``{dim: "auto"}`` or ``"auto"`` (found from the index
  coordinates stored); variables without a region dimension are refused and
  index coordinates are not rewritten.
* Encoding (per variable, from ``encoding=`` or ``variable.encoding``):
  ``chunks``, ``shards``, ``compressors``, ``filters``, ``serializer``,
  ``chunk_key_encoding``, ``write_empty_chunks``
  (zarrforge's forms: names, ``{"name", "configuration"}``; objects with
  ``to_dict()`` (zarr-python codecs) or ``get_config()`` (numcodecs) are
  translated; a numcodecs ``VLenUTF8`` among a v2 array's ``filters``, where xarray's
  engine reports it, is the serializer), ``fill_value`` (Zarr v3) / ``_FillValue``, ``dtype``,
  ``scale_factor`` / ``add_offset``, ``units`` / ``calendar``; CF encoding is
  xarray's own (``conventions.encode_dataset_coordinates``,
  ``encode_cf_variable`` with the Zarr coders), so strings, times and fill
  values are stored as xarray with zarr-python stores them. Dimension names go
  to ``dimension_names`` (v3) or ``_ARRAY_DIMENSIONS`` (v2).
* Data goes through xarray's ``ArrayWriter``: numpy data is written at once,
  dask data with ``dask.array.store`` (``compute=False`` returns the delayed
  write of the data; the metadata, consolidated, is written before, as xarray writes
  it, so that region writes into the group and consolidated reads find it). Dask chunks that straddle
  Zarr chunks (or shards) are written safely on stores with conditional writes
  (zarrforge redoes a partial chunk write that met another writer's); on other
  stores ``safe_chunks=True`` refuses them, as xarray does, since concurrent
  partial writes there can lose data. ``align_chunks=True`` rechunks the dask
  data to the Zarr grid first.
* ``consolidated``: ``None`` or ``True`` consolidate the group's metadata once
  at the end; ``False`` does not.

Errors are raised before anything is written where they can be known then
(mode, region, encoding keys, misaligned chunks, and, for a write into an
existing group, dimensions, sizes and dtypes that disagree with the stored
variables: :mod:`zarrforge_xarray.checks`). A failed write into a group this
call created removes what it wrote, so the store is as it was and the same call
can simply be repeated (``mode="w"`` replaces the old group first: after a
failure it is gone); a failed write that adds variables to an existing group takes
them out again. How such writes are marked unfinished while they run, so that a killed
one is told from data: :mod:`zarrforge_xarray.commit`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, cast

import numpy as np
import pandas as pd
import xarray as xr
from xarray import conventions
from xarray.backends.chunks import grid_rechunk, validate_grid_chunks_alignment
from xarray.backends.common import AbstractWritableDataStore, ArrayWriter
from xarray.backends.writers import _validate_dataset_names, dump_to_store
from xarray.backends.zarr import (
    FillValueCoder,
    encode_zarr_attr_value,
    encode_zarr_variable,
    extract_zarr_variable_encoding,
)
from xarray.namedarray.pycompat import is_chunked_array

import zarrforge
from zarrforge.hierarchy_api import check_shareable, resolve_store

from . import commit
from .checks import check_against_store, check_attribute_values, dimension_names_differ
from .store import DIMENSION_KEY, ZarrforgeDataStore, stored_name
from .undo import keys_below, remove_written

MODES = ("w-", "w", "a", "a-", "r+")


class ZarrforgeWritableStore(AbstractWritableDataStore):
    """One zarrforge group as a writable xarray data store (see the module docstring)."""

    def __init__(
        self,
        group: zarrforge.Group,
        *,
        mode: str,
        append_dim: Hashable | None,
        region: Mapping[Hashable, slice] | None,
        safe_chunks: bool,
        align_chunks: bool,
        stage_growth: bool = False,
        write_empty_chunks: bool | None = None,
        replacing: frozenset[str] = frozenset(),
    ) -> None:
        self.group = group
        # new variables a killed write of this same call left behind: created again, anew
        self.replacing = replacing
        self.write_empty_chunks = write_empty_chunks  # to_zarr's, for every variable
        # appends write their new rows before the longer shapes are committed (compute=True)
        self.stage_growth = stage_growth
        self.staged: list[Any] = []
        self.zarr_format = cast(Literal[2, 3], int(group.metadata_model.format_name))  # a v2 or v3 group
        self.mode = mode
        self.append_dim = append_dim
        self.region = dict(region) if region else {}
        self.safe_chunks = safe_chunks
        self.align_chunks = align_chunks
        self.conditional = group.store.capabilities.conditional_writes
        self.mask = self.zarr_format != 3  # as xarray: v2 fill values are _FillValue

    # --- AbstractWritableDataStore ------------------------------------------------------

    def encode_variable(self, variable: xr.Variable, name: Hashable | None = None) -> Any:
        return encode_zarr_variable(variable, name=name, zarr_format=self.zarr_format)

    def encode_attribute(self, value: Any) -> Any:
        return encode_zarr_attr_value(value)

    def set_dimension(self, dim: Hashable, length: int, is_unlimited: bool) -> None:
        return None

    def set_dimensions(self, variables: Any, unlimited_dims: Any = None) -> None:
        return None

    def set_attribute(self, key: Hashable, value: Any) -> None:
        self.group.attrs[str(key)] = value

    def set_attributes(self, attributes: Mapping[Hashable, Any]) -> None:
        if attributes:
            self.group.attrs.update({str(k): v for k, v in attributes.items()})

    def get_variables(self) -> Any:
        return ZarrforgeDataStore(self.group).get_variables()

    def get_attrs(self) -> dict[str, Any]:
        return dict(self.group.attrs)

    def get_dimensions(self) -> dict[str, int]:
        return ZarrforgeDataStore(self.group).get_dimensions()

    def _existing(self) -> dict[str, zarrforge.Array]:
        arrays = {
            name: node
            for name, node in self.group.members()
            if isinstance(node, zarrforge.Array) and name not in self.replacing
        }
        if self.write_empty_chunks is None:
            return arrays
        return {
            name: zarrforge.open_array(
                array.store, array.path, mode="r+", write_empty_chunks=self.write_empty_chunks
            )
            for name, array in arrays.items()
        }

    def store(
        self,
        variables: dict[Hashable, xr.Variable],
        attributes: dict[Hashable, Any],
        check_encoding_set: Any = frozenset(),
        writer: ArrayWriter | None = None,
        unlimited_dims: Any = None,
    ) -> None:
        writer = writer or ArrayWriter()
        existing = {} if self.mode == "w" else self._existing()
        new_vars = {k: v for k, v in variables.items() if stored_name(k) not in existing}
        encoded, attributes = self.encode(new_vars, attributes)
        stored_vars = {k: v for k, v in variables.items() if stored_name(k) in existing}
        if stored_vars:
            # existing variables are written exactly as the store encodes them
            decoded, _, _ = conventions.decode_cf_variables(
                {
                    k: ZarrforgeDataStore(self.group).open_store_variable(
                        stored_name(k), existing[stored_name(k)]
                    )
                    for k in stored_vars
                },
                {},
            )
            with_encoding = {}
            for k, v in stored_vars.items():
                copy = v.copy(deep=False)
                copy.encoding = decoded[k].encoding
                with_encoding[k] = copy
            again, _ = self.encode(with_encoding, {})
            for k, v in again.items():
                stored_dims = decoded[k].dims
                if set(v.dims) != set(stored_dims):  # checks.py refused it already
                    raise ValueError(dimension_names_differ(str(k), v.dims, stored_dims))
                encoded[k] = v.transpose(*stored_dims)
        if self.mode not in ("r+",):
            self.set_attributes(attributes)
        if self.mode == "a-" and self.append_dim is not None:
            encoded = {
                k: v
                for k, v in encoded.items()
                if stored_name(k) not in existing or self.append_dim in v.dims
            }
        self._set_variables(encoded, check_encoding_set, writer, existing)

    def _set_variables(
        self,
        variables: dict[Hashable, xr.Variable],
        check_encoding_set: Any,
        writer: ArrayWriter,
        existing: dict[str, zarrforge.Array],
    ) -> None:
        in_memory: list[tuple[zarrforge.Array, tuple[Any, ...], Any]] = []
        for key, variable in variables.items():
            name = stored_name(key)
            attributes = dict(variable.attrs)
            if self.mask:
                fill_value = attributes.pop("_FillValue", None)
                if fill_value is None:
                    fill_value = zarrforge.NO_FILL_VALUE  # v2's null, as zarr-python writes
            else:
                fill_value = variable.encoding.pop("fill_value", None)
                if fill_value is None and variable.dtype.kind == "f":
                    fill_value = np.nan  # xarray's default for floats in Zarr v3
                if attributes.get("_FillValue") is not None:
                    attributes["_FillValue"] = FillValueCoder.encode(attributes["_FillValue"], variable.dtype)
                else:
                    attributes.pop("_FillValue", None)
            if variable.encoding.pop("_FillValue", None) is not None:
                raise ValueError(
                    f"variable {name!r}: _FillValue belongs in attributes or "
                    "fill_value in encoding, not _FillValue in encoding"
                )
            encoding = extract_zarr_variable_encoding(
                variable, raise_on_invalid=key in check_encoding_set, name=key, zarr_format=self.zarr_format
            )
            region = {dim: self.region.get(dim, slice(None)) for dim in variable.dims}
            array = existing.get(name) if self.mode != "w" else None
            if array is not None and self.append_dim in variable.dims:
                axis = variable.dims.index(self.append_dim)
                region[self.append_dim] = slice(array.shape[axis], None)
                grown = list(array.shape)
                grown[axis] += variable.shape[axis]
                if self.stage_growth:
                    staged = array.stage_resize(tuple(grown))
                    self.staged.append(staged)
                    array = staged.array
                else:
                    array.resize(tuple(grown))
            selection = tuple(region[dim] for dim in variable.dims)
            unit = self._write_unit(encoding, array, variable)
            if self.align_chunks and unit is not None:
                variable = grid_rechunk(v=variable, enc_chunks=unit, region=selection)
            if self.safe_chunks and unit is not None and not self.conditional:
                validate_grid_chunks_alignment(
                    nd_v_chunks=variable.chunks,
                    enc_chunks=unit,
                    region=selection,
                    allow_partial_chunks=self.mode != "r+",
                    name=name,
                    backend_shape=array.shape if array is not None else variable.shape,
                )
            if array is None:
                array = self._create(
                    name, variable, encoding, attributes, fill_value, none_variable=key is None
                )
            if is_chunked_array(variable.data):
                writer.add(variable.data, array, selection)
            else:
                in_memory.append((array, selection, variable.data))
        _write_concurrently(in_memory)

    def _write_unit(
        self, encoding: dict[str, Any], array: zarrforge.Array | None, variable: xr.Variable
    ) -> tuple[int, ...] | None:
        """The shard or chunk shape dask chunks must align to (``None``: not regular)."""
        if array is not None:
            try:
                return tuple(array.shards or array.chunks)
            except (AttributeError, TypeError):
                return None
        unit = encoding.get("shards") or encoding.get("chunks")
        if isinstance(unit, tuple) and len(unit) == variable.ndim:
            return unit
        return None

    def _create(
        self,
        name: str,
        variable: xr.Variable,
        encoding: dict[str, Any],
        attributes: dict[str, Any],
        fill_value: Any,
        *,
        none_variable: bool = False,
    ) -> zarrforge.Array:
        """The new array ``name`` for ``variable``; ``none_variable``: the variable named
        ``None``, created under the reserved name xarray gives it (``stored_name``)."""
        attrs = {k: self.encode_attribute(v) for k, v in attributes.items()}
        options: dict[str, Any] = {}
        if self.zarr_format == 3:
            # a scalar has none: the field is left out, as zarr-python leaves it
            options["dimension_names"] = [str(d) for d in variable.dims] or None
        else:
            attrs[DIMENSION_KEY] = [str(d) for d in variable.dims]
        chunks = encoding.get("chunks")  # None or "auto": the core's one rule picks them
        if chunks is not None and not isinstance(chunks, str):
            # a length-0 dimension's dask chunk is 0 long; it has no chunks, so any length
            # stores the same nothing: 1, as xarray with zarr-python writes
            chunks = tuple(1 if c == 0 else c for c in chunks)
        # codec objects of numcodecs and zarr-python are zarrforge.engine.codec_arguments' to read
        for key in ("compressors", "filters"):
            if key in encoding:
                options[key] = encoding[key]
        if encoding.get("serializer") is not None:
            options["serializer"] = encoding["serializer"]
        _object_codec_to_serializer(options)
        if encoding.get("shards") is not None:
            options["shards"] = tuple(encoding["shards"])
        if encoding.get("chunk_key_encoding") is not None:
            options["chunk_key_encoding"] = encoding["chunk_key_encoding"]
        if encoding.get("write_empty_chunks") is not None:
            options["write_empty_chunks"] = bool(encoding["write_empty_chunks"])
        elif self.write_empty_chunks is not None:
            options["write_empty_chunks"] = self.write_empty_chunks
        dtype: Any = variable.dtype
        if dtype.kind == "O" or dtype.kind == "T":
            dtype = "string"
        return self.group.create_array(
            name,
            shape=variable.shape,
            dtype=dtype,
            chunks=chunks,
            fill_value=fill_value,
            attributes=attrs,
            overwrite=self.mode == "w" or name in self.replacing,
            allow_reserved_name=none_variable,
            **options,
        )

    def sync(self) -> None:
        return None

    def close(self) -> None:
        return None


def _object_codec_to_serializer(options: dict[str, Any]) -> None:
    """Move a numcodecs ``VLenUTF8``/``VLenBytes`` from ``options["filters"]`` to the
    serializer (when none is given): Zarr v2 stores a string array's object codec first
    among its filters, so that is where xarray's engine, and this backend, report it in
    ``encoding["filters"]`` for a v2 array, while zarrforge's creation takes it as the
    ``serializer`` (the array -> bytes codec it is)."""
    from numcodecs.vlen import VLenBytes, VLenUTF8

    filters = options.get("filters")
    if not isinstance(filters, (list, tuple)) or options.get("serializer") is not None:
        return
    objects = [f for f in filters if isinstance(f, (VLenUTF8, VLenBytes))]
    if len(objects) == 1:
        options["serializer"] = objects[0]
        options["filters"] = [f for f in filters if f is not objects[0]]


def _existing_group(store: Any, path: str, mode: str) -> zarrforge.Group | None:
    """The group the write goes into when it is there and the mode keeps it ("a", "a-",
    "r+"; an existing group keeps its own format); ``None`` when this call creates (or,
    mode "w", replaces) it. Mode "r+" needs it there."""
    if mode not in ("a", "a-", "r+"):
        return None
    try:
        return zarrforge.open_group(store, path, mode="r+", use_consolidated=False)
    except zarrforge.errors.NodeNotFoundError:
        if mode == "r+":
            raise
        return None


def _new_group(store: Any, path: str, mode: str, zarr_format: int) -> tuple[zarrforge.Group, set[str]]:
    """The group this call creates, and the keys that were below its path before (none
    remembered for mode "w": the old group is replaced). Only a creation lists the prefix:
    an append into a large existing store costs no listing."""
    if mode == "w":
        return zarrforge.open_group(store, path, mode="w", zarr_format=zarr_format), set()
    before = _keys_at(store, path)
    return zarrforge.open_group(store, path, mode="w-", zarr_format=zarr_format), before


def _keys_at(store: Any, path: str) -> set[str]:
    try:
        return keys_below(store, path)
    except zarrforge.errors.ZarrforgeError:
        return set()


def _auto_region(dataset: xr.Dataset, group: zarrforge.Group, region: Any) -> dict[Hashable, slice]:
    """``region`` with every ``"auto"`` replaced by the slice where the dataset's index
    coordinate values are found in the stored coordinate."""
    if region == "auto":
        region = dict.fromkeys(dataset.dims, "auto")
    if not isinstance(region, Mapping):
        raise TypeError(f"region must be a dict of dimension -> slice or 'auto', or 'auto'; got {region!r}")
    found = dict(region)
    stored = ZarrforgeDataStore(group)
    arrays = dict(stored._arrays)
    for dim, value in region.items():
        if value != "auto":
            continue
        if dim not in dataset.indexes:
            found[dim] = slice(0, dataset.sizes[dim])
            continue
        if str(dim) not in arrays:
            raise KeyError(f"region='auto' needs the coordinate {dim!r} in the store, which has none")
        coordinate = conventions.decode_cf_variable(
            dim, stored.open_store_variable(str(dim), arrays[str(dim)]).compute()
        )
        positions = pd.Index(coordinate.values).get_indexer(dataset.indexes[dim])
        if (positions == -1).any():
            raise KeyError(
                f"not every value of coordinate {dim!r} is in the stored "
                "coordinate; a region write cannot add coordinate values"
            )
        if len(positions) and (np.diff(positions) != 1).any():
            raise ValueError(
                f"the values of coordinate {dim!r} are not one contiguous run of the stored coordinate"
            )
        found[dim] = slice(int(positions[0]), int(positions[-1]) + 1) if len(positions) else slice(0, 0)
    for dim, value in found.items():
        if dim not in dataset.dims:
            raise ValueError(
                f"region dimension {dim!r} is not a dimension of the dataset ({list(dataset.dims)})"
            )
        if not isinstance(value, slice) or value.step not in (None, 1):
            raise ValueError(f"region[{dim!r}] must be a slice with step 1 or 'auto', got {value!r}")
    return found


def _write_concurrently(writes: list[tuple[zarrforge.Array, tuple[Any, ...], Any]]) -> None:
    """Write in-memory variables two at a time: each write's chunks are compressed in
    parallel already, but a variable's last chunks leave cores idle that the next variable
    can use. The variables are distinct arrays, so the order of their writes is free."""
    if len(writes) < 2:
        for array, selection, data in writes:
            array[selection] = data
        return
    with ThreadPoolExecutor(max_workers=2) as pool:
        for done in [pool.submit(array.__setitem__, selection, data) for array, selection, data in writes]:
            done.result()


class UnknownVariableError(KeyError, ValueError):
    """``encoding=`` names a variable the dataset lacks: a KeyError, as xarray raises
    (and a ValueError, as this writer raised before)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _variable_encoding(name: Hashable, value: Any) -> dict[str, Any]:
    """One variable's ``encoding=`` entry as a dict; anything but a mapping is a ValueError
    in xarray's words ("must be castable to a dictionary"), naming the variable."""
    if not isinstance(value, Mapping):
        raise ValueError(
            f"encoding[{name!r}] must be castable to a dictionary of encoding "
            f"keys (chunks, compressors, dtype, ...), got {value!r}"
        )
    return dict(value)


def to_zarr(
    dataset: xr.Dataset,
    store: Any = None,
    mode: str | None = None,
    group: str | None = None,
    encoding: Mapping[Hashable, Mapping[str, Any]] | None = None,
    *,
    compute: bool = True,
    consolidated: bool | None = None,
    append_dim: Hashable | None = None,
    region: Any = None,
    safe_chunks: bool = True,
    align_chunks: bool = False,
    storage_options: dict[str, Any] | None = None,
    zarr_format: int | None = None,
    write_empty_chunks: bool | None = None,
    chunkmanager_store_kwargs: dict[str, Any] | None = None,
) -> Any:
    """Write ``dataset`` to ``store`` (a path, URL, zarrforge Store or Group's store) with
    zarrforge; see the module docstring. The parameters are ``Dataset.to_zarr``'s, in its
    order (``store``, ``mode``, ``group``, ``encoding`` positional), with its meaning
    (the table in docs/xarray.md). Returns the zarrforge group, or, with
    ``compute=False``, a dask ``Delayed`` that writes the data when computed."""
    if zarr_format is None:
        zarr_format = 3  # for a new group; an existing group keeps its own format
    if write_empty_chunks is not None and not isinstance(write_empty_chunks, bool):
        raise TypeError(f"write_empty_chunks must be True, False or None, got {write_empty_chunks!r}")
    if chunkmanager_store_kwargs is not None and not isinstance(chunkmanager_store_kwargs, Mapping):
        raise TypeError(
            "chunkmanager_store_kwargs must be a dict of keyword arguments for "
            f"dask.array.store, got {chunkmanager_store_kwargs!r}"
        )
    if not isinstance(dataset, xr.Dataset):
        raise TypeError(
            f"to_zarr writes an xarray Dataset, got {type(dataset).__name__} (for "
            "a DataArray, use dataarray.to_dataset())"
        )
    if mode is None:
        mode = "a" if append_dim is not None else "r+" if region is not None else "w-"
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if append_dim is not None and region is not None and (region == "auto" or append_dim in region):
        raise ValueError(f"append_dim {append_dim!r} cannot also be a region dimension")
    if append_dim is not None and mode not in ("a", "a-"):
        raise ValueError(
            f"cannot set append_dim unless mode='a' or mode='a-' (or mode=None, "
            f"which is 'a' then), got mode={mode!r}"
        )
    if region is not None and mode not in ("r+", "a"):
        raise ValueError(
            f"cannot set region unless mode='r+' or mode='a' (or mode=None, "
            f"which is 'r+' then), got mode={mode!r}"
        )
    if zarr_format not in (2, 3):
        raise ValueError(f"zarr_format must be 2 or 3, got {zarr_format!r}")
    _validate_dataset_names(dataset)  # xarray's rule: names are non-empty strings (or None)
    encoding = {k: _variable_encoding(k, v) for k, v in (encoding or {}).items()}
    for name in encoding:
        if name not in dataset.variables:
            raise UnknownVariableError(
                f"encoding names {name!r}, which is not a variable of the "
                f"dataset ({sorted(map(str, dataset.variables))})"
            )
    store = resolve_store(store, storage_options=storage_options)  # once: the marker's store
    path = (group or "").strip("/")
    target = _existing_group(store, path, mode)
    # A write that creates or replaces its group, or adds variables to an existing one,
    # marks the group unfinished until the call ends (commit.py), so a process killed
    # midway leaves leftovers that opens report and later writes refuse as such; a failure
    # takes out what the call created. Other writes into an existing group commit their
    # shapes last instead.
    _refuse_reserved_names(dataset, target)
    plan = commit.plan(store, path, target, dataset, mode, region)
    with plan.marked():
        before = None
        if target is None:
            target, before = _new_group(store, path, mode, zarr_format)
        try:
            return _write(
                dataset,
                target,
                mode=mode,
                append_dim=append_dim,
                region=region,
                encoding=encoding,
                consolidated=consolidated,
                compute=compute,
                safe_chunks=safe_chunks,
                align_chunks=align_chunks,
                write_empty_chunks=write_empty_chunks,
                store_kwargs=dict(chunkmanager_store_kwargs or {}),
                replacing=plan.replacing,
            )
        except BaseException:
            if before is not None:  # this call created the group
                remove_written(target.store, target.path, before)
            plan.take_back()
            raise


def _refuse_reserved_names(dataset: xr.Dataset, target: zarrforge.Group | None) -> None:
    """Refuse, before anything is written, a new variable whose name starts with ``__``:
    the Zarr v3 spec reserves that prefix, and zarrforge creates such a node only for
    xarray's own name of a variable named ``None`` (``"__values__"``, :func:`stored_name`).
    Variables stored under such a name already (written by another tool) are written
    into as any other. Costs no store request unless some name has the prefix."""
    reserved = [
        stored_name(k) for k in dataset.variables if k is not None and stored_name(k).startswith("__")
    ]
    new = [name for name in reserved if target is None or name not in target]
    if new:
        raise zarrforge.errors.InvalidPathError(
            f"variables {new} have names starting with '__', a prefix the Zarr v3 spec "
            "reserves; zarrforge creates such an array only as xarray's '__values__' for a "
            "variable named None. Rename them (dataset.rename_vars) to write them"
        )


def _write(
    dataset: xr.Dataset,
    target: zarrforge.Group,
    *,
    mode: str,
    append_dim: Hashable | None,
    region: Any,
    encoding: Mapping[Hashable, Mapping[str, Any]],
    consolidated: bool | None,
    compute: bool,
    safe_chunks: bool,
    align_chunks: bool,
    write_empty_chunks: bool | None,
    store_kwargs: dict[str, Any],
    replacing: frozenset[str] = frozenset(),
) -> Any:
    stored: set[str] = set()
    if mode in ("a", "a-", "r+"):
        stored = {
            name
            for name, node in target.members()
            if isinstance(node, zarrforge.Array) and name not in replacing
        }
        if clash := sorted(stored_name(k) for k in encoding if stored_name(k) in stored):
            raise ValueError(
                f"variable {clash[0]!r} already exists, but encoding was provided: "
                f"encoding was given for {clash}, which already exist in the "
                "store; their stored encoding is used (leave them out of "
                "encoding=)"
            )
    if mode != "r+":  # r+ writes no attributes and creates no variables
        check_attribute_values(
            dataset, [k for k in dataset.variables if stored_name(k) not in stored], dataset_attrs=True
        )
    if region is not None:
        region = _auto_region(dataset, target, region)
        strangers = [
            str(k)
            for k, v in dataset.variables.items()
            if not set(region).intersection(v.dims) and k not in dataset.indexes
        ]
        if region and strangers:  # region={} writes every variable whole, as xarray does
            raise ValueError(
                f"variables {strangers} have no dimension of the region "
                f"{list(map(str, region))}; drop them (dataset.drop_vars("
                f"{strangers!r})) to write the rest"
            )
        dataset = dataset.drop_vars(list(dataset.indexes))
    if mode in ("a", "a-", "r+"):
        check_against_store(
            dataset,
            target,
            append_dim=append_dim,
            region=region,
            skip_without_append_dim=mode == "a-" and append_dim is not None,
            existing_only=mode == "r+",
        )
    writable = ZarrforgeWritableStore(
        target,
        mode=mode,
        append_dim=append_dim,
        region=region,
        safe_chunks=safe_chunks,
        align_chunks=align_chunks,
        stage_growth=compute,
        write_empty_chunks=write_empty_chunks,
        replacing=replacing,
    )
    writer = ArrayWriter()
    try:
        dump_to_store(dataset, writable, writer, encoding=encoding)
        for array in writer.targets:  # dask data goes to workers: the store must travel too
            check_shareable(array)
        finish = _consolidator(target) if consolidated is not False and mode != "r+" else None
        written = writer.sync(compute=compute, chunkmanager_store_kwargs=store_kwargs or None)
        _commit_growth(writable.staged, target)
    except BaseException:
        for staged in writable.staged:
            staged.abandon()
        raise
    if finish is not None:  # the metadata is final now, with compute=False too
        finish()
    if compute:
        return target
    from dask.delayed import delayed

    return delayed(_after)(written)


def _commit_growth(staged: list[Any], group: zarrforge.Group) -> None:
    """Commit the longer shapes of an append, after its data is written: together, in one
    transaction, on a store with conditional writes (a failed commit puts back what it
    wrote; readers may see some variables grown and others not while it runs, and a
    process killed then leaves its commit record: zarrforge.unfinished_commits), else one
    by one, the ones committed put back if a later one fails (best effort: a process
    killed between two leaves some variables grown and others not)."""
    if not staged:
        return
    store = group.store
    if len(staged) > 1 and store.capabilities.conditional_writes:
        with zarrforge.transaction(store) as tx:
            for each in staged:
                each.commit(through=tx)
        return
    tried = []
    try:
        for each in staged:
            tried.append(each)  # a failed commit may have written the node's document
            each.commit()
    except BaseException:
        for each in reversed(tried):
            try:
                each.revert()
            except zarrforge.errors.ZarrforgeError:
                pass
        raise


def _consolidator(group: zarrforge.Group) -> Any:
    store, path = group.store, group.path
    return lambda: zarrforge.consolidate_metadata(store, path)


def _after(_written: Any) -> None:
    """The delayed write's result, once the data (``_written``) is written."""
    return None


def open_zarr(
    store: Any,
    group: str | None = None,
    *,
    chunks: Any = None,
    consolidated: bool | None = None,
    **options: Any,
) -> xr.Dataset:
    """``xr.open_dataset(store, engine="zarrforge", ...)`` with ``xr.open_zarr``'s habit of
    lazy dask arrays: ``chunks=None`` (the default) gives one dask chunk per stored chunk
    (``chunks={}`` in xarray's terms); pass ``chunks=False`` for lazily indexed arrays
    without dask. Other options are the backend's and xarray's decoding options."""
    chunks = {} if chunks is None else (None if chunks is False else chunks)
    return xr.open_dataset(
        store, engine="zarrforge", group=group, chunks=chunks, consolidated=consolidated, **options
    )
