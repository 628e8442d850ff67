"""Contract for codecs (the ``codecs`` extension point).

The v3 spec classifies codecs by the representations they map between:

* :class:`ArrayArrayCodec` (``array -> array``, e.g. ``transpose``),
* :class:`ArrayBytesCodec` (``array -> bytes``, e.g. ``bytes``; exactly one per chain),
* :class:`BytesBytesCodec` (``bytes -> bytes``, e.g. ``gzip``, ``crc32c``).

Each codec states what it produces for a given input without looking at
element values (the spec's ``compute_encoded_representation_type``):
array codecs through :meth:`ArrayArrayCodec.resolve` (shape and data type of
the encoded array), bytes codecs through
:meth:`BytesBytesCodec.encoded_size` (the encoded byte count when it is
fixed, else ``None``).

A codec instance is immutable. Its lifecycle:

1. ``from_json(name, configuration)`` builds it from metadata (``configuration``
   is ``None`` for a short-hand name). Bad configuration raises
   :class:`~zarrforge.errors.MetadataError` naming the field.
2. ``evolve(spec)`` runs once when an array is *created*: it may fill in
   defaults that depend on the array (blosc's ``typesize``, ``bytes``'
   ``endian``) and returns the codec to record. It must not be needed to read.
3. ``validate(spec)`` checks that the codec accepts chunks described by
   ``spec`` (raise ``MetadataError``), both at creation and on open.
4. ``encode`` / ``decode`` transform one chunk. ``decode`` must raise
   :class:`~zarrforge.errors.CorruptChunkError` (or a subclass) for data it
   cannot decode, never an arbitrary exception or a huge allocation.

``to_json()`` always returns the object form ``{"name": ..., "configuration":
{...}}`` (``configuration`` omitted when the codec has none); ``to_dict()``,
zarr-python's name for it, returns the same.

A codec whose encoding depends on which chunk it encodes reads the chunk's grid
coordinates from :func:`zarrforge.plugin_api.current_chunk` and says so with
``uses_chunk_position = True`` (a codec with inner codecs, such as sharding, says so
when one of them does); the engine provides the position only to chains that hold
such a codec, so the others pay nothing.

An ``array -> bytes`` codec that stores a chunk as separately addressable
parts (sharding) can also implement :class:`PartialCodec`: the engine then
reads only the byte ranges a selection needs and updates part of a chunk
without re-encoding the parts a write does not touch. The engine uses it only
when the codec is the whole chain (no array -> array or bytes -> bytes codecs
around it), because those would transform the bytes or coordinates it
addresses.

Such a codec also declares its structure through :class:`SubdividedCodec`
(the inner chunk shape and the inner codecs): ``Array.chunks`` reports the
inner chunk shape as the unit that can be read on its own, and
``zarrforge.copy`` unshards or reshards from the inner codecs.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, ClassVar

import numpy as np

from ..errors import CorruptChunkError
from .data_type import DataType
from .extension_point import ExtensionPoint
from .memory_layout import MemoryLayout


class CodecKind(Enum):
    ARRAY_ARRAY = "array -> array"
    ARRAY_BYTES = "array -> bytes"
    BYTES_BYTES = "bytes -> bytes"


@dataclasses.dataclass(frozen=True)
class ChunkSpec:
    """The decoded representation of one chunk as a codec sees it."""

    shape: tuple[int, ...]
    data_type: DataType
    fill_value: Any
    layout: MemoryLayout

    # cached (in the instance's __dict__, which a frozen dataclass still has): every
    # chunk coded asks for them, often several times
    @functools.cached_property
    def dtype(self) -> np.dtype:
        """The numpy dtype of the chunk's elements.

        Returns
        -------
        numpy.dtype
            ``data_type.numpy_dtype``.
        """
        return self.data_type.numpy_dtype

    @functools.cached_property
    def nbytes(self) -> int | None:
        """The chunk's decoded size in bytes.

        Returns
        -------
        int or None
            The size, or ``None`` for a variable-length data type.
        """
        size = self.data_type.item_size
        return None if size is None else size * math.prod(self.shape)  # Python ints: no overflow


class Codec(ExtensionPoint):
    # the entry-point name, set on the class; an instance of a family (``numcodecs.*``, a
    # stand-in for a codec not installed) carries the full name it was read as
    name: str
    kind: ClassVar[CodecKind]
    # True for a codec whose encoding reads the chunk's position
    # (zarrforge.plugin_api.current_chunk); the engine sets it only for chains holding one.
    uses_chunk_position: bool = False

    @classmethod
    @abstractmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> Codec:
        """The codec for a ``codecs`` entry (``name``, ``configuration``); unknown or invalid
        configuration is a ``MetadataError`` naming the field. Metadata is untrusted: build
        nothing that runs code named by it.

        Parameters
        ----------
        name : str
            The entry's ``name`` (one of the names the codec is registered under).
        configuration : dict[str, Any] or None
            The entry's ``configuration``; ``None`` for a short-hand name.

        Returns
        -------
        Codec
            The codec the entry describes.

        Raises
        ------
        zarrforge.errors.MetadataError
            The configuration is unknown or invalid (the error names the field).
        """

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The metadata entry that rebuilds this codec (``from_json`` of it is equal), as
        written into the array's document after ``evolve``.

        Returns
        -------
        dict[str, Any]
            ``{"name": ..., "configuration": {...}}`` (``configuration`` omitted when the
            codec has none).
        """

    def to_dict(self) -> dict[str, Any]:
        """zarr-python's name for :meth:`to_json`: the same JSON.

        Returns
        -------
        dict[str, Any]
            What :meth:`to_json` returns.
        """
        return self.to_json()

    def evolve(self, spec: ChunkSpec) -> Codec:
        """The codec to record for an array being created (the default: this codec).

        Runs once, when an array is created: it may fill in defaults that depend on the
        array (blosc's ``typesize``, ``bytes``' ``endian``). It must not be needed to read.

        Parameters
        ----------
        spec : zarrforge.abc.codec.ChunkSpec
            The decoded representation of the array's chunks, as this codec sees them.

        Returns
        -------
        Codec
            The codec to record in the array's metadata.
        """
        return self

    def validate(self, spec: ChunkSpec) -> None:
        """Check that the codec accepts chunks described by ``spec`` (the default accepts
        all), both when an array is created and when it is opened.

        Parameters
        ----------
        spec : zarrforge.abc.codec.ChunkSpec
            The decoded representation of the chunks this codec will receive.

        Raises
        ------
        zarrforge.errors.MetadataError
            An implementation's answer for a chunk it cannot encode.
        """
        return None

    def __eq__(self, other: object) -> bool:
        """Equal to a codec of the same class with the same :meth:`to_json`, and to a
        foreign codec object whose JSON is the same: zarr-python's (``to_dict()``, its
        v3 entry) and numcodecs' (``get_config()``, compared with a ``numcodecs.<id>``
        entry as zarr-python names those), so that the codecs an array reports compare
        equal to the objects it was created with (xarray's test of ``encoding``). A
        foreign object's JSON is taken as given: a zarr-python ``BloscCodec`` whose
        ``typesize``/``shuffle`` were left unset (filled in only when an array is created)
        equals no stored codec. Anything else: ``NotImplemented``."""
        if isinstance(other, Codec):
            return type(other) is type(self) and other.to_json() == self.to_json()
        document = _foreign_json(other)
        if document is None:
            return NotImplemented
        own = self.to_json()
        if "id" in document and str(own.get("name", "")).startswith(NUMCODECS_PREFIX):
            own = {"id": own["name"][len(NUMCODECS_PREFIX) :], **(own.get("configuration") or {})}
        return document == own

    def __hash__(self) -> int:
        # the JSON with its keys sorted: codecs equal by __eq__ (dicts compare regardless
        # of key order) hash alike; values JSON cannot write (a numpy scalar) by their repr
        return hash(json.dumps(self.to_json(), sort_keys=True, default=repr))

    def __repr__(self) -> str:
        return f"<codec {self.to_json()!r}>"


NUMCODECS_PREFIX = "numcodecs."  # zarr-python's v3 names of numcodecs' codecs


def _foreign_json(other: object) -> dict[str, Any] | None:
    """The JSON of a foreign codec object: zarr-python's ``to_dict()``, numcodecs'
    ``get_config()``; ``None`` for an object that is neither (or whose method fails)."""
    function = getattr(other, "to_dict", None)
    if not callable(function):
        function = getattr(other, "get_config", None)
    if not callable(function):
        return None
    try:
        document = function()
    except Exception:  # noqa: BLE001  # the foreign object's own failure, whatever it is: not equal
        return None
    return document if isinstance(document, dict) else None


class ArrayArrayCodec(Codec):
    kind = CodecKind.ARRAY_ARRAY

    @abstractmethod
    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """The spec of the encoded array for a decoded array described by ``spec``.

        Parameters
        ----------
        spec : zarrforge.abc.codec.ChunkSpec
            The decoded array's representation.

        Returns
        -------
        zarrforge.abc.codec.ChunkSpec
            The representation :meth:`encode` produces for it (shape and data type),
            computed without looking at element values. Its ``fill_value`` is the
            encoded fill: the value F' such that a chunk whose every element is F'
            decodes to a chunk whose every element is ``spec.fill_value`` (the codecs
            after this one store and skip chunks by it). For an element-wise codec that
            is the fill value encoded; a codec that is not element-wise (a delta, a
            transform across elements) must find such an F' (a delta: 0, when the fill
            value is 0) or refuse the configuration with a
            :class:`~zarrforge.errors.MetadataError` naming the field.

        Raises
        ------
        zarrforge.errors.MetadataError
            No encoded fill value exists for ``spec.fill_value``.
        """

    @abstractmethod
    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        """The encoded array for ``chunk`` (described by ``spec``), as ``resolve(spec)``
        describes it.

        Parameters
        ----------
        chunk : numpy.ndarray
            The decoded chunk.
        spec : zarrforge.abc.codec.ChunkSpec
            Its representation (the decoded spec).

        Returns
        -------
        numpy.ndarray
            The encoded array.
        """

    @abstractmethod
    def decode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        """Decode to the representation described by ``spec`` (the decoded spec).

        Parameters
        ----------
        chunk : numpy.ndarray
            The encoded array, as :meth:`encode` produced it.
        spec : zarrforge.abc.codec.ChunkSpec
            The decoded representation to return.

        Returns
        -------
        numpy.ndarray
            The decoded chunk.

        Raises
        ------
        zarrforge.errors.CorruptChunkError
            ``chunk`` cannot be decoded.
        """


class ArrayBytesCodec(Codec):
    kind = CodecKind.ARRAY_BYTES

    def encoded_size(self, spec: ChunkSpec) -> int | None:
        """The encoded byte count of a chunk of ``spec`` when it is fixed (the default:
        ``None``, not fixed).

        Parameters
        ----------
        spec : zarrforge.abc.codec.ChunkSpec
            The decoded representation of the chunk.

        Returns
        -------
        int or None
            The byte count, or ``None`` when it depends on the values.
        """
        return None

    @abstractmethod
    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> bytes | memoryview:
        """The chunk's bytes; a ``memoryview`` (a view of the chunk, say) is fine: the
        chain copies it to ``bytes`` once, if no bytes -> bytes codec did.

        Parameters
        ----------
        chunk : numpy.ndarray
            The chunk, as the array -> array codecs before this one left it.
        spec : zarrforge.abc.codec.ChunkSpec
            Its representation.

        Returns
        -------
        bytes or memoryview
            The encoded chunk.
        """

    def encode_parts(self, chunk: np.ndarray, spec: ChunkSpec) -> list[bytes | memoryview]:
        """The chunk's bytes as buffers to be stored one after another: their
        concatenation is what :meth:`encode` returns. A codec that assembles its output
        from pieces (sharding: the inner chunks and the index) overrides this, so that
        a store can write the pieces without a copy that joins them first. Default:
        ``[encode(chunk, spec)]``.

        Parameters
        ----------
        chunk : numpy.ndarray
            The chunk to encode.
        spec : zarrforge.abc.codec.ChunkSpec
            Its representation.

        Returns
        -------
        list[bytes | memoryview]
            The buffers, in order.
        """
        return [self.encode(chunk, spec)]

    @abstractmethod
    def decode(self, data: bytes | memoryview, spec: ChunkSpec) -> np.ndarray:
        """The array ``data`` encodes, shaped and typed as ``spec`` says; damaged ``data`` is a
        ``CorruptChunkError``, never another exception or an allocation it declares.

        Parameters
        ----------
        data : bytes or memoryview
            The encoded chunk, as the bytes -> bytes codecs after this one left it.
        spec : zarrforge.abc.codec.ChunkSpec
            The decoded representation to return.

        Returns
        -------
        numpy.ndarray
            The decoded chunk.

        Raises
        ------
        zarrforge.errors.CorruptChunkError
            ``data`` is damaged or does not fit ``spec``.
        """

    def plain_dtype(self, spec: ChunkSpec) -> np.dtype | None:
        """The numpy dtype whose elements, in C order, are exactly this codec's bytes for
        a chunk of ``spec`` (``None``, the default: the encoding is anything else). When
        this codec is the whole chain, the chunk engine then encodes a chunk with
        ``chunk.astype(dtype).tobytes()`` and decodes it with ``numpy.frombuffer``,
        without calling the codec for each chunk, and tells a chunk of fill values by
        comparing its bytes; the codec conformance suite checks the claim.

        Parameters
        ----------
        spec : zarrforge.abc.codec.ChunkSpec
            The decoded representation of the chunk.

        Returns
        -------
        numpy.dtype or None
            The dtype, or ``None`` when the encoding is not a plain one.
        """
        return None

    def decode_into(self, data: bytes | memoryview, spec: ChunkSpec, out: np.ndarray) -> None:
        """``out[...] = decode(data, spec)``: ``out`` has the spec's shape and data type and
        may be a strided view of a larger array. A codec that can fill ``out`` without a
        chunk-sized temporary (sharding: inner chunk by inner chunk) overrides this; it
        must raise rather than fill ``out`` in part without saying so.

        Parameters
        ----------
        data : bytes or memoryview
            The encoded chunk.
        spec : zarrforge.abc.codec.ChunkSpec
            The decoded representation.
        out : numpy.ndarray
            Where the decoded chunk goes.

        Raises
        ------
        zarrforge.errors.CorruptChunkError
            ``data`` is damaged (as :meth:`decode`).
        """
        out[...] = self.decode(data, spec)


class BytesBytesCodec(Codec):
    kind = CodecKind.BYTES_BYTES

    def encoded_size(self, decoded_size: int | None) -> int | None:
        """Encoded byte count for ``decoded_size`` input bytes, if fixed.

        Parameters
        ----------
        decoded_size : int or None
            The number of input bytes, ``None`` when it is not fixed.

        Returns
        -------
        int or None
            The encoded byte count, ``None`` (the default) when it is not fixed.
        """
        return None

    @abstractmethod
    def encode(self, data: bytes | memoryview) -> bytes:
        """The encoded bytes of ``data``.

        Parameters
        ----------
        data : bytes or memoryview
            The bytes to encode.

        Returns
        -------
        bytes
            The encoded bytes.
        """

    @abstractmethod
    def decode(self, data: bytes | memoryview) -> bytes:
        """The bytes ``data`` encodes; damaged ``data`` is a ``CorruptChunkError``.

        Parameters
        ----------
        data : bytes or memoryview
            The encoded bytes.

        Returns
        -------
        bytes
            The decoded bytes.

        Raises
        ------
        zarrforge.errors.CorruptChunkError
            ``data`` is damaged.
        """

    def decode_sized(self, data: bytes | memoryview, expected_size: int) -> bytes:
        """Decode ``data``, which the codec chain expects to decode to ``expected_size`` bytes.

        Must raise :class:`~zarrforge.errors.CorruptChunkError` rather than return
        more than ``expected_size`` bytes. Compressors should override this to stop
        *before* inflating past that size (a few hundred stored bytes can claim
        gigabytes); this default decodes, then checks.

        Parameters
        ----------
        data : bytes or memoryview
            The encoded bytes.
        expected_size : int
            The most bytes ``data`` may decode to.

        Returns
        -------
        bytes
            The decoded bytes.

        Raises
        ------
        zarrforge.errors.CorruptChunkError
            ``data`` is damaged or decodes to more than ``expected_size`` bytes.
        """
        decoded = self.decode(data)
        if len(decoded) > expected_size:
            raise CorruptChunkError(
                f"codec {self.to_json().get('name')!r} decoded {len(decoded)} bytes where the "
                f"array's metadata allows {expected_size}; the chunk is corrupt"
            )
        return decoded


#: ``fetch(ranges)``: the byte ranges of one value, ``None`` for a range the value lacks
RangeFetcher = Callable[[Sequence[Any]], "list[bytes | None]"]


class VersionedRangeFetcher(ABC):
    """The stored bytes of one chunk, as the engine hands them to a :class:`PartialCodec`.

    Calling it (``fetch(ranges)``) is a :data:`~zarrforge.abc.codec.RangeFetcher`: one store request, with no
    promise that two calls see the same version of the chunk. :meth:`read_version`
    reads ranges of one version of it, when :attr:`versioned` says the store can
    (``StoreCapabilities.versioned_ranges``): a codec that follows a structure inside
    the chunk (an index, then what it points at) reads each step with it, so it never
    combines parts of two versions that another writer stored meanwhile. Without it, a
    codec that must be consistent reads the whole chunk in one request.
    """

    @abstractmethod
    def __call__(self, ranges: Sequence[Any]) -> list[bytes | None]:
        """The bytes of each :class:`~zarrforge.abc.store.ByteRange`, ``None`` where the
        chunk does not exist; one store request.

        Parameters
        ----------
        ranges : Sequence[Any]
            The :class:`~zarrforge.abc.store.ByteRange` objects to read.

        Returns
        -------
        list[bytes | None]
            The bytes of each range, in order; ``None`` where the chunk does not exist.
        """

    @property
    @abstractmethod
    def cache_key(self) -> Any:
        """A hashable naming the stored object (store and key), for codecs that remember
        something about it between reads; what they remember must be checked against
        what they read, since any writer may change the object at any time.

        Returns
        -------
        Any
            The hashable key.
        """

    @property
    @abstractmethod
    def versioned(self) -> bool:
        """Can :meth:`read_version` be used (the store has versioned ranges)?

        Returns
        -------
        bool
            Whether the store has versioned ranges.
        """

    @abstractmethod
    def read_version(
        self, ranges: Sequence[Any], *, if_generation: Any = None
    ) -> tuple[list[bytes] | None, Any]:
        """The bytes of ``ranges`` from one version of the chunk and that version's
        generation (``(None, ABSENT)``: no chunk); with ``if_generation``, from that
        version or :class:`~zarrforge.errors.ConflictError` (``Store.get_ranges``).

        Parameters
        ----------
        ranges : Sequence[Any]
            The :class:`~zarrforge.abc.store.ByteRange` objects to read.
        if_generation : Any
            The generation the ranges must be read from; ``None``: the current one.

        Returns
        -------
        tuple[list[bytes] | None, Any]
            The bytes of each range and the generation they were read from;
            ``(None, ABSENT)`` when there is no chunk.

        Raises
        ------
        zarrforge.errors.ConflictError
            The stored chunk is no longer of generation ``if_generation``.
        """


class PartialCodec(ABC):
    """Capability of an ``array -> bytes`` codec: partial reads and updates.

    ``selection`` indexes the decoded chunk exactly as the engine would index
    a fully decoded one (ints, slices and integer arrays per dimension, as
    produced by ``zarrforge.engine.indexing``).
    """

    @abstractmethod
    def decode_partial(
        self, fetch: RangeFetcher, spec: ChunkSpec, selection: tuple[Any, ...]
    ) -> np.ndarray | None:
        """``chunk[selection]`` read through ``fetch``, or ``None`` if the chunk is absent.

        ``fetch(ranges)`` takes :class:`~zarrforge.abc.store.ByteRange` objects
        of the stored chunk and returns their bytes (``None`` when the chunk
        does not exist) with one store request per call. The engine's fetcher
        is a :class:`VersionedRangeFetcher` (other callers may pass a plain
        function): ``cache_key`` names the stored object, and ``read_version``
        reads ranges of one version of it. A codec that reads a structure in
        steps (an index, then what it points at) must not combine steps from two
        versions: another writer may replace the chunk between them.

        Parameters
        ----------
        fetch : zarrforge.abc.codec.RangeFetcher
            Reads byte ranges of the stored chunk (see above).
        spec : zarrforge.abc.codec.ChunkSpec
            The decoded chunk's representation.
        selection : tuple[Any, ...]
            The selection within the chunk, one entry per dimension.

        Returns
        -------
        numpy.ndarray or None
            ``chunk[selection]``, or ``None`` when the chunk is absent.

        Raises
        ------
        zarrforge.errors.CorruptChunkError
            The stored chunk is damaged.
        """

    @abstractmethod
    def encode_partial(
        self, encoded: bytes, spec: ChunkSpec, selection: tuple[Any, ...], values: np.ndarray
    ) -> bytes | None:
        """The stored chunk ``encoded`` with ``chunk[selection] = values`` applied;
        ``None`` when the result holds nothing but the fill value.

        Parameters
        ----------
        encoded : bytes
            The stored chunk.
        spec : zarrforge.abc.codec.ChunkSpec
            The decoded chunk's representation.
        selection : tuple[Any, ...]
            The selection within the chunk, one entry per dimension.
        values : numpy.ndarray
            The values to write, shaped as the selection.

        Returns
        -------
        bytes or None
            The new stored chunk, or ``None`` when it holds only the fill value.

        Raises
        ------
        zarrforge.errors.CorruptChunkError
            ``encoded`` is damaged.
        """


class SubdividedCodec(ABC):
    """Capability of an ``array -> bytes`` codec that stores each chunk as a regular
    grid of inner chunks, each encoded by its own codec list (sharding).

    What the core asks of it: ``inner_chunk_shape``, the shape of one inner chunk
    (it divides every chunk shape the codec validates), and ``inner_codecs``, the
    codecs each inner chunk goes through (``array -> array`` codecs, one ``array -> bytes``, ``bytes -> bytes``
    codecs, as in array metadata).
    """

    @property
    @abstractmethod
    def inner_chunk_shape(self) -> tuple[int, ...]:
        """The shape of the inner chunks the outer chunk is divided into.

        Returns
        -------
        tuple[int, ...]
            The inner chunk shape.
        """

    @property
    @abstractmethod
    def inner_codecs(self) -> tuple[Codec, ...]:
        """The codecs each inner chunk goes through, as in array metadata.

        Returns
        -------
        tuple[Codec, ...]
            The inner codecs, in chain order.
        """
