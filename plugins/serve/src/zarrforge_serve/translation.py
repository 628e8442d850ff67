"""One source node as standard Zarr v3: its ``zarr.json`` and, for an array, its chunks.

Whatever format the source is in (Zarr v2, the 2022 draft, a variant, a kerchunk
reference set...), zarrforge has already resolved it into one model; this module
renders that model in the current v3 format through the user API, and decides per
array how its chunks are served:

* **passed through** (:attr:`ServedArray.passthrough`): the source's codecs, written as
  v3, are all standard codecs with the same meaning (:data:`STANDARD_CODECS`, looked
  for inside sharding's inner and index codecs too), the grid is regular, the array has
  no storage transformer and no extension. A served chunk is then the bytes stored
  under the source's own key for the same grid coordinates, sent as they are: no
  decode, and byte ranges read only the bytes asked for (a sharded reader reads
  inner chunks by range).
* **re-encoded** otherwise (a plugin or ``numcodecs.*`` codec, Zarr v2's ``zlib``, a
  storage transformer, an extension that changes values, a rectilinear grid): the
  served ``zarr.json`` declares the default serializer of the data type and the
  configured compressors (zstd by default), on the source's chunk shape (and shard
  shape), and a served chunk is the source's values in that region, as zarrforge
  reads them, encoded with that chain by the engine itself (the values are written
  into a *twin*: an array of the served metadata in a memory store of its own, and
  the encoded bytes read back from it).

Either way a chunk the source holds only fill values for is absent (``None``; the
server answers 404 and the reader uses the fill value); a translated array reads
element for element as the source.

The served ``zarr.json`` is exactly what zarrforge writes for such an array (the
twin's own document), so the translation table is the v3 format plugin's, not a copy
of it here. The model is read once, when the node is first served: a server shows
the hierarchy's metadata as it was then (restart it to see metadata changes); chunk
bytes passed through are read from the source on every request.
"""

from __future__ import annotations

import dataclasses
import queue
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

import zarrforge
from zarrforge.abc import ArrayArrayCodec, ArrayBytesCodec, SubdividedCodec

#: v3 codecs whose bytes mean the same to every reader of the current v3 spec and the
#: zarr-extensions registry that zarr-python, tensorstore and zarrita read
STANDARD_CODECS = frozenset(
    {"bytes", "transpose", "gzip", "zstd", "blosc", "crc32c", "sharding_indexed", "vlen-utf8", "vlen-bytes"}
)
#: what re-encoded chunks are compressed with unless the server is told otherwise
DEFAULT_COMPRESSORS: tuple[dict[str, Any], ...] = ({"name": "zstd", "configuration": {"level": 3}},)
#: a re-encoded chunk (or shard) holding more decoded bytes than this is refused (a 5xx
#: naming the size) rather than read into memory for one request
DEFAULT_MAX_CHUNK_BYTES = 512 * 2**20


@dataclasses.dataclass(frozen=True)
class TranslationOptions:
    """How sources are translated; the defaults suit every standard reader.

    ``passthrough_codecs``: the v3 codec names whose stored bytes are sent as they are.
    ``compressors``: the chain re-encoded chunks declare, as ``create_array`` takes it.
    ``consolidated``: a group's ``zarr.json`` carries its members' documents inline, as
    zarr-python writes them (a reader over HTTP, which cannot list, finds every member).
    ``max_chunk_bytes``: the decoded size of the largest chunk or shard re-encoded.
    """

    passthrough_codecs: frozenset[str] = STANDARD_CODECS
    compressors: Sequence[Any] = DEFAULT_COMPRESSORS
    consolidated: bool = True
    max_chunk_bytes: int = DEFAULT_MAX_CHUNK_BYTES


class ChunkTooLarge(RuntimeError):
    """A chunk to re-encode holds more decoded bytes than the server reads for one request."""


def codec_names(codecs: Iterable[dict[str, Any]]) -> list[str]:
    """Every codec name in a v3 codec list, inner and index codecs of sharding included.

    Parameters
    ----------
    codecs : Iterable[dict]
        A v3 ``codecs`` list.

    Returns
    -------
    list[str]
        The names, outer codecs first.

    Examples
    --------
    >>> codec_names([{"name": "sharding_indexed", "configuration": {"codecs": [{"name": "bytes"}],
    ...     "index_codecs": [{"name": "bytes"}, {"name": "crc32c"}]}}])
    ['sharding_indexed', 'bytes', 'bytes', 'crc32c']
    """
    names = []
    for codec in codecs:
        names.append(str(codec.get("name")))
        configuration = codec.get("configuration") or {}
        for nested in ("codecs", "index_codecs"):
            if isinstance(configuration.get(nested), list):
                names += codec_names(configuration[nested])
    return names


def _split(codecs: Sequence[Any]) -> tuple[list[Any], Any, list[Any]]:
    filters = [c for c in codecs if isinstance(c, ArrayArrayCodec)]
    serializer = next(c for c in codecs if isinstance(c, ArrayBytesCodec))
    compressors = [c for c in codecs if not isinstance(c, (ArrayArrayCodec, ArrayBytesCodec))]
    return filters, serializer, compressors


#: the format name of the current Zarr v3 format (``Format.name``)
V3 = "3"
#: the fields of a v3 array document a served one keeps (the chunk key encoding is always
#: the default one, and unknown fields are left out: nothing a reader must understand is
#: passed on unchecked)
_V3_ARRAY_FIELDS = (
    "zarr_format",
    "node_type",
    "shape",
    "data_type",
    "chunk_grid",
    "fill_value",
    "codecs",
    "attributes",
    "dimension_names",
    "storage_transformers",
)
DEFAULT_KEY_ENCODING = {"name": "default", "configuration": {"separator": "/"}}


def _v3_document(source: Any) -> dict[str, Any]:
    """The served document of a v3 array passed through: its own, on the default keys."""
    stored = dict(source.metadata)
    document = {name: stored[name] for name in _V3_ARRAY_FIELDS if name in stored}
    document["chunk_key_encoding"] = DEFAULT_KEY_ENCODING
    return document


#: Zarr v2's attribute naming an array's dimensions (xarray's convention), which v3 holds
#: in ``dimension_names`` instead
V2_DIMENSIONS = "_ARRAY_DIMENSIONS"


def v3_attributes(source: Any) -> dict[str, Any]:
    """The source's attributes for its v3 document: Zarr v2's ``_ARRAY_DIMENSIONS`` left
    out where ``dimension_names`` carries the same names (a v3 reader such as xarray would
    otherwise show it as an attribute of the variable).

    Parameters
    ----------
    source : zarrforge.Array
        The source array.

    Returns
    -------
    dict
        The attributes.
    """
    attributes = dict(source.attrs)
    names = source.dimension_names
    if names is not None and attributes.get(V2_DIMENSIONS) == list(names):
        del attributes[V2_DIMENSIONS]
    return attributes


def _document_of(twin: Any) -> dict[str, Any]:
    """The twin's own document: what zarrforge wrote for it."""
    return dict(twin.metadata)


def group_document(group: Any, members: dict[str, dict[str, Any]] | None) -> dict[str, Any]:
    """The v3 ``zarr.json`` of ``group``: its attributes, and ``members`` inline when given.

    Parameters
    ----------
    group : zarrforge.Group
        The source group.
    members : dict or None
        Every member's served document by its path relative to ``group``, or ``None``
        for a document without consolidated metadata.

    Returns
    -------
    dict
        The document.
    """
    document: dict[str, Any] = {"zarr_format": 3, "node_type": "group", "attributes": dict(group.attrs)}
    if members is not None:
        document["consolidated_metadata"] = {"kind": "inline", "must_understand": False, "metadata": members}
    return document


def member_entry(document: dict[str, Any]) -> dict[str, Any]:
    """A member's document as a consolidated entry: a group's with no members of its own
    (the flat form zarr-python writes: every descendant is an entry of the top group).

    Parameters
    ----------
    document : dict
        The member's served document.

    Returns
    -------
    dict
        The entry.
    """
    if document.get("node_type") != "group":
        return document
    return {**document, "consolidated_metadata": {"kind": "inline", "must_understand": False, "metadata": {}}}


class ServedArray:
    """A source array served as v3: its :attr:`document`; whether its chunks are
    :attr:`passthrough` (then :meth:`source_key` names where each is stored) or re-encoded
    (:meth:`reencoded`, and :attr:`reason` says why).

    Parameters
    ----------
    source : zarrforge.Array
        The array, opened read-only from the served source.
    options : TranslationOptions
        How to translate it.

    Raises
    ------
    zarrforge.errors.MetadataError
        The array cannot be written as v3 at all (a data type v3 has no name for).
    """

    def __init__(self, source: Any, options: TranslationOptions) -> None:
        self.source = source
        self.options = options
        model = source.metadata_model
        self.reason = self._reencode_reason(source, model)
        twin = None
        if self.reason is None:
            if model.format_name == V3:
                document = _v3_document(source)  # already v3: no twin to render it
            else:
                twin = self._twin(passthrough=True)
                document = _document_of(twin)
            foreign = [n for n in codec_names(document["codecs"]) if n not in options.passthrough_codecs]
            if foreign:
                self.reason = f"codec {foreign[0]!r} is not a standard v3 codec"
        if self.reason is not None:
            twin = self._twin(passthrough=False)
            document = _document_of(twin)
            self._grid_unit = tuple(twin.shards or twin.chunks)
        else:
            self._grid_unit = tuple(model.chunk_grid.regular_chunk_shape)
        self.passthrough = self.reason is None
        self.document = document
        #: chunks per dimension of the served grid
        self.grid_shape = tuple(-(-n // u) if n else 0 for n, u in zip(source.shape, self._grid_unit))
        #: passed through from a store whose reads are fast (``capabilities.low_latency``)
        self.fast = self.passthrough and bool(source.chunk_store.capabilities.low_latency)
        self._twins: queue.SimpleQueue[Any] = queue.SimpleQueue()
        if twin is not None and not self.passthrough:
            self._twins.put(twin)
        self._unit_bytes = int(np.prod(self._grid_unit, dtype=np.int64)) * max(1, source.dtype.itemsize)

    @staticmethod
    def _reencode_reason(source: Any, model: Any) -> str | None:
        if model.storage_transformers:
            return "the source has a storage transformer"
        if source.extensions:
            return "the source has extensions"
        if model.chunk_grid.regular_chunk_shape is None:
            return "the source's chunk grid is not regular"
        return None

    def _unit_shapes(self) -> tuple[Any, Any]:
        """Chunks and shards of a re-encoded twin: the source's on a regular grid; on any
        other, the largest chunk along each axis (the grid contract's distinct sizes), so
        a served chunk never spans more than two source chunks per axis (1 along an axis
        of length 0, which has no chunks)."""
        source = self.source
        grid = source.metadata_model.chunk_grid
        if grid.regular_chunk_shape is not None:
            return source.chunks, source.shards
        return tuple(max(dimension.distinct_sizes(), default=1) for dimension in grid.dimensions), None

    def _twin(self, *, passthrough: bool) -> Any:
        source = self.source
        model = source.metadata_model
        common: dict[str, Any] = {
            "shape": source.shape,
            "fill_value": source.fill_value,
            "attributes": v3_attributes(source),
            "dimension_names": source.dimension_names,
            "zarr_format": 3,
        }
        store = zarrforge.storage.MemoryStore()
        if passthrough:
            filters, serializer, compressors = _split(model.codecs)
            if isinstance(serializer, SubdividedCodec):
                filters, compressors = [], []  # the sharding codec holds the chain
            return zarrforge.create_array(
                store,
                dtype=model.data_type,
                chunks=model.chunk_grid.regular_chunk_shape,
                filters=filters,
                serializer=serializer,
                compressors=compressors,
                **common,
            )
        chunks, shards = self._unit_shapes()
        # values are served as zarrforge reads them (an extension's value stage applied)
        dtype = model.data_type if not source.extensions else source.dtype
        return zarrforge.create_array(
            store,
            dtype=dtype,
            chunks=chunks,
            shards=shards,
            serializer="auto",
            compressors=list(self.options.compressors),
            **common,
        )

    def in_grid(self, coords: tuple[int, ...]) -> bool:
        """Are ``coords`` the coordinates of a chunk of the served grid?"""
        return len(coords) == self.source.ndim and all(c < g for c, g in zip(coords, self.grid_shape))

    def source_key(self, coords: tuple[int, ...]) -> str:
        """The source's store key of the chunk at ``coords`` (pass-through arrays)."""
        return str(self.source.chunk_key(coords))

    def reencoded(self, coords: tuple[int, ...]) -> bytes | None:
        """The chunk at ``coords`` encoded with the served chain (``None``: only fill values).

        Parameters
        ----------
        coords : tuple[int, ...]
            Grid coordinates, inside the grid.

        Returns
        -------
        bytes or None
            The encoded chunk, or ``None`` where the source holds only fill values there.

        Raises
        ------
        ChunkTooLarge
            The chunk holds more decoded bytes than ``max_chunk_bytes``.
        """
        if self._unit_bytes > self.options.max_chunk_bytes:
            raise ChunkTooLarge(
                f"a chunk of {self.source.name!r} holds {self._unit_bytes} decoded bytes, more than "
                f"the {self.options.max_chunk_bytes} this server re-encodes for one request"
            )
        region = tuple(
            slice(c * u, min((c + 1) * u, n)) for c, u, n in zip(coords, self._grid_unit, self.source.shape)
        )
        values = self.source[region]
        try:
            twin = self._twins.get_nowait()
        except queue.Empty:
            twin = self._twin(passthrough=False)
        try:
            twin[region] = values
            key = twin.chunk_key(coords)
            data = twin.store.get(key)
            if data is not None:
                twin.store.delete(key)
            return data
        finally:
            self._twins.put(twin)
