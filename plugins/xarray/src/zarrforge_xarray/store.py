"""The xarray data store and lazy array of the zarrforge backend.

:class:`ZarrforgeDataStore` presents one zarrforge group to xarray: its arrays
become variables (dimension names from ``dimension_names``, else the
``_ARRAY_DIMENSIONS`` attribute xarray writes into Zarr v2), its attributes the
dataset's. CF decoding (scale/offset, times, ``coordinates``, masking) is left
to xarray, which receives the raw values and attributes.

Fill values follow xarray's own Zarr backend, so both engines open the same
data identically: for Zarr v2 (and other formats) the array's ``fill_value``
is the CF ``_FillValue`` used for masking; for Zarr v3, where a fill value is
always present and is not a missing-value marker, the ``_FillValue``
attribute xarray writes is decoded and the array's fill value is only kept in
``encoding["fill_value"]``. ``use_zarr_fill_value_as_mask`` overrides this, except in
Zarr v2, where the fill value is where xarray keeps ``_FillValue``: there it is always
read as ``_FillValue``, as xarray's engine reads it.

Codecs go into ``encoding`` as xarray's engine puts them there: tuples of codec objects
(numcodecs' for Zarr v2, zarrforge's otherwise, equal to zarr-python's of the same JSON),
and a variable named ``None`` is read from the array ``__values__`` (:func:`stored_name`).

:class:`ZarrforgeArray` reads lazily: xarray's explicit indexers are reduced
to basic and orthogonal selections (``IndexingSupport.OUTER``), which the
zarrforge array serves by reading only the chunks they touch; vectorised
(point-wise) selections are finished by xarray in memory. It also reads
asynchronously (``async_getitem``, what ``Dataset.load_async`` awaits) through
the array's :mod:`zarrforge.asyncio` face: the read runs off the event loop,
reads of one variable asked for together are gathered into one engine call,
and reads of different variables run at once (docs/asyncio.md).
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Hashable, Iterable
from typing import Any, cast

import numpy as np
from xarray.backends.common import NONE_VAR_NAME, AbstractDataStore, BackendArray
from xarray.coding.strings import create_vlen_dtype
from xarray.core import indexing
from xarray.core.utils import Frozen, FrozenDict
from xarray.core.variable import Variable

import zarrforge
import zarrforge.asyncio

DIMENSION_KEY = "_ARRAY_DIMENSIONS"


def stored_name(key: Hashable) -> str:
    """The Zarr array name of the variable ``key``, as xarray's own engine names it: a
    variable named ``None`` is stored as ``NONE_VAR_NAME`` (``"__values__"``), which
    xarray's reading (``AbstractDataStore.load``) turns back into ``None``. That name has
    the prefix the Zarr v3 spec reserves, so the writer creates it with
    ``allow_reserved_name=True``, for this variable only: other names with that prefix
    are refused, as zarrforge refuses them everywhere by default."""
    return NONE_VAR_NAME if key is None else str(key)


class MissingDimensionNamesError(zarrforge.errors.ZarrforgeError, KeyError):
    """An array has no name for some dimension, so xarray cannot place it."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _is_variable_length_text(array: zarrforge.Array) -> bool:
    if array.dtype.kind != "O":
        return False
    data_type = array.data_type.to_json()
    name = data_type if isinstance(data_type, str) else data_type.get("name")
    return name == "string" or any(_codec_name(c) == "vlen-utf8" for c in array.codecs)


def _codec_name(codec: Any) -> str | None:
    document = codec.to_json()
    return document if isinstance(document, str) else document.get("name")


class ZarrforgeArray(BackendArray):
    """A lazily indexed view of a zarrforge array for xarray."""

    def __init__(self, array: zarrforge.Array) -> None:
        self._array = array
        self._async_array: zarrforge.asyncio.AsyncArray | None = None  # made at first use
        self.shape = tuple(array.shape)
        dtype = array.dtype
        if _is_variable_length_text(array):
            dtype = create_vlen_dtype(str)  # xarray's marker for variable-length strings
        self.dtype = dtype

    def get_array(self) -> zarrforge.Array:
        return self._array

    def __getitem__(self, key: indexing.ExplicitIndexer) -> np.ndarray:
        result: np.ndarray = indexing.explicit_indexing_adapter(
            key, self.shape, indexing.IndexingSupport.OUTER, self._read
        )
        return result

    def _read(self, key: tuple[Any, ...]) -> np.ndarray:
        if any(isinstance(k, np.ndarray) for k in key):
            result = self._array.oindex[key]
        else:
            result = self._array[key]
        return np.asarray(result)

    async def async_getitem(self, key: indexing.ExplicitIndexer) -> np.ndarray:
        result: np.ndarray = await indexing.async_explicit_indexing_adapter(
            key, self.shape, indexing.IndexingSupport.OUTER, self._async_read
        )
        return result

    async def _async_read(self, key: tuple[Any, ...]) -> np.ndarray:
        # one face per backend array, so that every read of this variable (the views
        # xarray's lazy indexing makes share it) is gathered with the others
        face = self._async_array
        if face is None:
            # an array's face is an AsyncArray (from_node is typed for any node)
            face = self._async_array = cast(
                zarrforge.asyncio.AsyncArray, zarrforge.asyncio.from_node(self._array)
            )
        if any(isinstance(k, np.ndarray) for k in key):
            result = await face.oindex.getitem(key)
        else:
            result = await face.getitem(key)
        return np.asarray(result)

    def __reduce__(self) -> tuple[Any, ...]:
        # the async face holds per-event-loop state; a copy makes its own
        return type(self), (self._array,)


def _decode_fill_attribute(value: Any, dtype: np.dtype) -> Any:
    """The ``_FillValue`` attribute as xarray writes it into Zarr v3 attributes: floats
    as base64 of a little-endian double, complex numbers as two of those."""
    kind = dtype.kind
    if kind == "f" and isinstance(value, (str, bytes)):
        return struct.unpack("<d", base64.standard_b64decode(value))[0]
    if kind == "c" and isinstance(value, (list, tuple)) and len(value) == 2:
        real, imag = (struct.unpack("<d", base64.standard_b64decode(v))[0] for v in value)
        return complex(real, imag)
    if kind == "S" and isinstance(value, (str, bytes)):
        return base64.standard_b64decode(value)
    if kind == "b":
        return bool(value)
    if kind in "iu" and isinstance(value, (int, float)):
        return int(value)
    if kind in "UOT" and value is not None:
        return str(value)
    return value


def _codec_encoding(array: zarrforge.Array) -> dict[str, Any]:
    """``compressors`` and ``filters`` (tuples) and, unless plain ``bytes``, ``serializer``,
    as xarray's own engine gives them, so that they compare equal to the codec objects
    the array was written with and open -> to_zarr keeps the codecs (the writer takes
    all of these forms back):

    * Zarr v2: numcodecs objects built from the stored ``compressor`` and ``filters``
      (:func:`_numcodecs_encoding`), as zarr-python reports a v2 array's codecs;
    * otherwise zarrforge's codec objects (for a sharded array, those inside the shards;
      ``shards`` says the rest), which compare equal to zarr-python's codec objects of the
      same JSON (``zarrforge.abc.Codec.__eq__``)."""
    from zarrforge.abc import ArrayArrayCodec, ArrayBytesCodec, SubdividedCodec

    v2 = _numcodecs_encoding(array)
    if v2 is not None:
        return v2
    codecs = tuple(array.codecs)
    if array.shards is not None and codecs and isinstance(codecs[0], SubdividedCodec):
        codecs = tuple(codecs[0].inner_codecs)
    encoding: dict[str, Any] = {
        "filters": tuple(c for c in codecs if isinstance(c, ArrayArrayCodec)),
        "compressors": tuple(c for c in codecs if not isinstance(c, (ArrayArrayCodec, ArrayBytesCodec))),
    }
    serializer = next((c for c in codecs if isinstance(c, ArrayBytesCodec)), None)
    if serializer is not None and _codec_name(serializer) != "bytes":
        encoding["serializer"] = serializer
    return encoding


def _numcodecs_encoding(array: zarrforge.Array) -> dict[str, Any] | None:
    """A Zarr v2 array's ``compressors`` and ``filters`` as numcodecs objects of its stored
    ``compressor`` and ``filters`` (a variable-length string array's ``vlen-utf8`` among
    the filters, where v2 stores it); ``None`` for another format, or when numcodecs
    knows some stored codec not (then zarrforge's own codec objects say them)."""
    import numcodecs

    document = array.metadata
    if ".zarray" not in document:
        return None
    zarray = document[".zarray"]
    stored = ([zarray["compressor"]] if zarray.get("compressor") else []) + list(zarray.get("filters") or [])
    try:
        codecs = [numcodecs.get_codec(dict(config)) for config in stored]
    except (ValueError, TypeError, KeyError):  # an id numcodecs does not register
        return None
    count = 1 if zarray.get("compressor") else 0
    return {"compressors": tuple(codecs[:count]), "filters": tuple(codecs[count:])}


def _raw_fill_value(array: zarrforge.Array) -> Any:
    """The fill value as the format stores it: ``None`` for a v2 ``null`` (which
    zarrforge reads as the type's default)."""
    document = array.metadata
    if ".zarray" in document:
        if document[".zarray"].get("fill_value") is None:
            return None
    return array.fill_value


class ZarrforgeDataStore(AbstractDataStore):
    """One zarrforge group as an xarray data store (read-only)."""

    def __init__(
        self,
        group: zarrforge.Group,
        *,
        use_zarr_fill_value_as_mask: bool | None = None,
        drop_variables: Iterable[str] = (),
        close_store: bool = False,
    ) -> None:
        self.group = group
        self.zarr_format = group.metadata_model.format_name
        # Zarr v2 keeps a variable's _FillValue as the array's fill value (xarray's own
        # writer stores it there), so in v2 the fill value is always read as _FillValue, as
        # xarray's engine reads it (its suite's test_zarr_fill_value_setting[2-*]): turning
        # that off would drop the _FillValue, and a write of what was read would lose it.
        # Elsewhere the argument is honoured (v3 with True masks the fill value).
        if use_zarr_fill_value_as_mask is None or self.zarr_format == "2":
            use_zarr_fill_value_as_mask = self.zarr_format != "3"
        self._mask = use_zarr_fill_value_as_mask
        self._drop = set(drop_variables)
        self._close_store = close_store
        self._arrays = [
            (name, node)
            for name, node in group.members()
            if isinstance(node, zarrforge.Array) and name not in self._drop
        ]

    @classmethod
    def open(
        cls,
        filename_or_obj: Any,
        *,
        group: str | None = None,
        mode: str = "r",
        consolidated: bool | None = None,
        storage_options: dict[str, Any] | None = None,
        zarr_format: Any = None,
        use_zarr_fill_value_as_mask: bool | None = None,
        drop_variables: Iterable[str] = (),
        chunk_cache: Any = None,
        recheck: str = "open",
    ) -> ZarrforgeDataStore:
        if mode != "r":
            raise ValueError(f"the zarrforge xarray backend reads only (mode='r'), got {mode!r}")
        node = open_group(
            filename_or_obj,
            group=group,
            consolidated=consolidated,
            storage_options=storage_options,
            zarr_format=zarr_format,
            chunk_cache=chunk_cache,
            recheck=recheck,
        )
        return cls(
            node,
            use_zarr_fill_value_as_mask=use_zarr_fill_value_as_mask,
            drop_variables=drop_variables,
            close_store=not isinstance(filename_or_obj, zarrforge.Group),
        )

    # --- variables ---------------------------------------------------------------------

    def _dimensions_and_attributes(self, array: zarrforge.Array) -> tuple[tuple[str, ...], dict[str, Any]]:
        attributes = {
            k: v for k, v in array.attrs.items() if k != DIMENSION_KEY and not k.lower().startswith("_nc")
        }
        names = array.dimension_names if array.ndim else ()
        if names is None or any(n is None for n in names):
            from_attrs = array.attrs.get(DIMENSION_KEY)
            names = tuple(from_attrs) if isinstance(from_attrs, list) else names
        if names is None or len(names) != array.ndim or any(n is None for n in names):
            raise MissingDimensionNamesError(
                f"array {array.name!r} has no name for every dimension (neither "
                f"dimension_names nor {DIMENSION_KEY!r}); xarray needs one per dimension. "
                f"Pass drop_variables=[{array.basename!r}] to open the rest"
            )
        return tuple(str(n) for n in names), attributes

    def open_store_variable(self, name: str, array: zarrforge.Array) -> Variable:
        dimensions, attributes = self._dimensions_and_attributes(array)
        wrapper = ZarrforgeArray(array)
        data = indexing.LazilyIndexedArray(wrapper)
        try:
            chunks: Any = tuple(array.chunks)
        except AttributeError:  # a grid without a single chunk shape (rectilinear)
            chunks = None
        encoding: dict[str, Any] = {}
        if chunks is not None:
            encoding["chunks"] = chunks
            encoding["preferred_chunks"] = dict(zip(dimensions, chunks, strict=True))
        if array.shards is not None:
            encoding["shards"] = tuple(array.shards)
        encoding.update(_codec_encoding(array))
        if wrapper.dtype.kind == "T":
            encoding["dtype"] = wrapper.dtype
        if self._mask:
            fill = _raw_fill_value(array)
            if fill is not None:
                attributes["_FillValue"] = fill
        else:
            if self.zarr_format == "3":
                encoding["fill_value"] = array.fill_value
            if "_FillValue" in attributes:
                attributes["_FillValue"] = _decode_fill_attribute(attributes["_FillValue"], array.dtype)
        return Variable(dimensions, data, attributes, encoding)

    def get_variables(self) -> Frozen[Hashable, Variable]:
        return FrozenDict((name, self.open_store_variable(name, array)) for name, array in self._arrays)

    def get_attrs(self) -> dict[str, Any]:
        return {k: v for k, v in self.group.attrs.items() if not k.lower().startswith("_nc")}

    def get_dimensions(self) -> dict[str, int]:
        dimensions: dict[str, int] = {}
        for _, array in self._arrays:
            names, _ = self._dimensions_and_attributes(array)
            for name, size in zip(names, array.shape, strict=True):
                if dimensions.get(name, size) != size:
                    raise ValueError(
                        f"dimension {name!r} has conflicting lengths "
                        f"({size} in {array.name!r}, {dimensions[name]} elsewhere)"
                    )
                dimensions[name] = size
        return dimensions

    def close(self) -> None:
        if self._close_store:
            self.group.store.close()


def open_group(
    filename_or_obj: Any,
    *,
    group: str | None = None,
    consolidated: bool | None = None,
    storage_options: dict[str, Any] | None = None,
    zarr_format: Any = None,
    chunk_cache: Any = None,
    recheck: str = "open",
) -> zarrforge.Group:
    """The zarrforge group named by a URL, path, Store or Group (and ``group`` below it);
    ``chunk_cache`` and ``recheck`` as for :func:`zarrforge.open_group` (a Group given
    is opened again with them, the caller's handle unchanged)."""
    import os

    if isinstance(filename_or_obj, zarrforge.Group):
        node = filename_or_obj[group] if group and group.strip("/") else filename_or_obj
        if not isinstance(node, zarrforge.Group):
            raise zarrforge.errors.NodeTypeError(f"{node.name!r} is an array, not a group")
        if chunk_cache is not None or recheck != "open":
            return zarrforge.open_group(
                node.store, node.path, mode="r", chunk_cache=chunk_cache, recheck=recheck
            )
        return node
    if isinstance(filename_or_obj, os.PathLike):
        filename_or_obj = os.fspath(filename_or_obj)
    return zarrforge.open_group(
        filename_or_obj,
        group or "",
        mode="r",
        zarr_format=zarr_format,
        use_consolidated=consolidated,
        storage_options=storage_options,
        chunk_cache=chunk_cache,
        recheck=recheck,
    )
