"""A validated codec chain: ``array -> array``*, one ``array -> bytes``, ``bytes -> bytes``*.

:class:`CodecChain` checks the order the spec requires, asks every codec to
validate the chunk representation it will see, and runs encode/decode for one
chunk. Decoding checks that the result has the shape and data type the chain
promised and turns codec failures into
:class:`~zarrforge.errors.CorruptChunkError` naming the chunk key, so a bad
chunk never surfaces as an arbitrary exception from deep inside a codec. A codec
failing in a way bad bytes do not explain (a ``RuntimeError``, an
``AttributeError``: a bug), failing to encode, or encoding to something that is not
bytes, is a :class:`~zarrforge.errors.PluginFailureError` naming the codec and the
plugin that provides it.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Literal

import numpy as np

from ..abc.codec import (
    ArrayArrayCodec,
    ArrayBytesCodec,
    BytesBytesCodec,
    ChunkSpec,
    Codec,
    CodecKind,
    PartialCodec,
    RangeFetcher,
)
from ..errors import CodecError, CorruptChunkError, MetadataError, PluginFailureError, ZarrforgeError
from ..registries import plugin_failures, registry
from ..registries.resolution import SkippedCodec

_BUFFERS = (bytes, bytearray, memoryview)


def _codec_failure(codec: Codec, exc: BaseException, doing: str) -> PluginFailureError:
    name = codec.name
    return plugin_failures.failure("codec", name, registry.codecs.origin(name), exc, doing)


def _checked_output(codec: Codec, data: Any, declared: int | None) -> Any:
    """``data`` as a codec's encoding returned it, refused when it is not bytes, or when its
    length is not the size the codec's ``encoded_size`` declared (stored, it would read
    back as a corrupt chunk)."""
    if not isinstance(data, _BUFFERS):
        raise _codec_failure(
            codec, TypeError(f"encode returned {type(data).__qualname__}, not bytes"), "encoding a chunk"
        )
    if declared is not None:
        _check_size(codec, memoryview(data).nbytes, declared)
    return data


def _check_size(codec: Codec, length: int, declared: int) -> None:
    if length != declared:
        raise _codec_failure(
            codec,
            ValueError(
                f"encode returned {length} bytes where its encoded_size() declared {declared}; "
                "nothing was stored"
            ),
            "encoding a chunk",
        )


def check_order(codecs: Sequence[Codec], *, field: str = "codecs") -> None:
    kinds = [c.kind for c in codecs]
    ab = [i for i, k in enumerate(kinds) if k is CodecKind.ARRAY_BYTES]
    if len(ab) == 1 and all(
        k is (CodecKind.ARRAY_ARRAY if j < ab[0] else CodecKind.BYTES_BYTES)
        for j, k in enumerate(kinds)
        if j != ab[0]
    ):
        return  # the usual case, checked without building the names for the messages
    names = [c.to_json().get("name") for c in codecs]
    if len(ab) != 1:
        raise MetadataError(
            f"the codec list must contain exactly one array -> bytes codec, found {len(ab)} in {names}",
            field=field,
            value=names,
        )
    i = ab[0]
    for j, kind in enumerate(kinds):
        expected = (
            CodecKind.ARRAY_ARRAY if j < i else CodecKind.ARRAY_BYTES if j == i else CodecKind.BYTES_BYTES
        )
        if kind is not expected:
            raise MetadataError(
                f"codec {names[j]!r} ({kind.value if kind is not None else 'of no kind'}) is out "
                "of place: the order must be "
                "array -> array codecs, then one array -> bytes codec, then bytes -> bytes "
                f"codecs; got {names}",
                field=f"{field}[{j}]",
                value=names[j],
            )


def evolve_codecs(codecs: Sequence[Codec], spec: ChunkSpec) -> tuple[Codec, ...]:
    """The codecs to record for a new array whose chunks ``spec`` describes: each fills
    in its array-dependent defaults (``Codec.evolve``), in order; no chain is built.

    Parameters
    ----------
    codecs : Sequence[zarrforge.abc.codec.Codec]
        The codecs, in chain order.
    spec : zarrforge.abc.codec.ChunkSpec
        The decoded representation of the array's chunks.

    Returns
    -------
    tuple[Codec, ...]
        The evolved codecs, in order.

    Raises
    ------
    zarrforge.errors.MetadataError
        The codecs are not in a valid chain order.

    Examples
    --------
    >>> codecs = codecs_from_json([{"name": "bytes"}])
    >>> spec = ChunkSpec((2, 3), data_type_from_json("int16"), 0, memory_layout("C"))
    >>> [codec.to_json() for codec in evolve_codecs(codecs, spec)]
    [{'name': 'bytes', 'configuration': {'endian': 'little'}}]
    """
    check_order([codec for codec in codecs if not isinstance(codec, SkippedCodec)])
    evolved: list[Codec] = []
    for i, codec in enumerate(codecs):
        if isinstance(codec, SkippedCodec):  # recorded as given: the chain refuses writes
            evolved.append(codec)
            continue
        try:
            codec = codec.evolve(spec)
            evolved.append(codec)
            if isinstance(codec, ArrayArrayCodec):
                spec = codec.resolve(spec)
        except MetadataError as exc:
            raise _at_codec(exc, i, codec) from exc
    return tuple(evolved)


def _at_codec(exc: MetadataError, i: int, codec: Codec) -> MetadataError:
    """``exc`` positioned at ``codecs[i]`` (any class: an UnknownExtensionError from a
    helper too), naming the codec's entry when the error names no field inside it."""
    located = exc.within(f"codecs[{i}]")
    if not exc.field:
        located.value = codec.to_json()
    return located


class CodecChain:
    """A codec chain checked for order (``array -> array`` codecs, one ``array -> bytes``
    codec, ``bytes -> bytes`` codecs), which encodes and decodes one chunk at a time
    (see the module docstring). Codecs skipped when reading (:class:`SkippedCodec`) are
    kept in ``codecs`` and left out of the chain: it decodes without them and refuses to
    encode.

    Parameters
    ----------
    codecs : Sequence[zarrforge.abc.codec.Codec]
        The codecs, in chain order (for a new array, evolved first:
        :meth:`evolved`, :func:`evolve_codecs`).

    Raises
    ------
    zarrforge.errors.MetadataError
        Constructing it: the codecs are not in a valid chain order. ``validate``: a codec
        refuses the chunk representation it would see.
    zarrforge.errors.CodecError
        ``encode``: a codec was skipped when reading; ``decode``: a codec decoded to the
        wrong data type.
    zarrforge.errors.CorruptChunkError
        ``decode``: the bytes cannot be decoded, or decode to the wrong shape (naming the
        chunk's key).
    zarrforge.errors.PluginFailureError
        A codec failed in a way bad bytes do not explain, or encoded to something that is
        not bytes (or not the size it declared).

    Examples
    --------
    >>> codecs = codecs_from_json(
    ...     [{"name": "transpose", "configuration": {"order": [1, 0]}}, {"name": "bytes"}]
    ... )
    >>> spec = ChunkSpec((2, 3), data_type_from_json("int16"), 0, memory_layout("C"))
    >>> chain = CodecChain.evolved(codecs, spec)
    >>> data = chain.encode(np.arange(6, dtype="int16").reshape(2, 3), spec)
    >>> len(data), chain.decode(data, spec, key="c/0/0")
    (12, array([[0, 1, 2],
                [3, 4, 5]], dtype=int16))
    >>> from zarrforge.errors import CorruptChunkError
    >>> try:
    ...     chain.decode(b"too short", spec, key="c/0/0")
    ... except CorruptChunkError as error:
    ...     print(error.key)
    c/0/0
    """

    def __init__(self, codecs: Sequence[Codec]) -> None:
        self.codecs = tuple(codecs)
        self.skipped = tuple(c for c in codecs if isinstance(c, SkippedCodec))
        codecs = [c for c in codecs if not isinstance(c, SkippedCodec)]
        check_order(codecs)
        self.array_array = tuple(c for c in codecs if isinstance(c, ArrayArrayCodec))
        self.array_bytes: ArrayBytesCodec = next(c for c in codecs if isinstance(c, ArrayBytesCodec))
        self.bytes_bytes = tuple(c for c in codecs if isinstance(c, BytesBytesCodec))
        self._plans: dict[tuple[int, ...], _Plan] = {}
        whole = not self.array_array and not self.bytes_bytes
        self.partial: PartialCodec | None = (
            self.array_bytes if whole and isinstance(self.array_bytes, PartialCodec) else None
        )
        self._own_decode_into = whole and (
            type(self.array_bytes).decode_into is not ArrayBytesCodec.decode_into
        )
        self._encodes_parts = type(self.array_bytes).encode_parts is not ArrayBytesCodec.encode_parts
        # does any codec read the chunk's position while encoding (conditional)?
        self.uses_chunk_position = any(c.uses_chunk_position for c in codecs)

    @classmethod
    def evolved(cls, codecs: Sequence[Codec], spec: ChunkSpec) -> CodecChain:
        """The chain for a new array: each codec fills in array-dependent defaults."""
        return cls(evolve_codecs(codecs, spec))

    def validate(self, spec: ChunkSpec) -> None:
        for i, codec in enumerate(self.codecs):
            if isinstance(codec, SkippedCodec):
                continue
            try:
                codec.validate(spec)
                if isinstance(codec, ArrayArrayCodec):
                    spec = codec.resolve(spec)
            except MetadataError as exc:
                raise _at_codec(exc, i, codec) from exc

    def _array_specs(self, spec: ChunkSpec) -> list[ChunkSpec]:
        """Spec of the input of each array->array codec, then of the array->bytes codec."""
        return self._plan(spec).specs

    def _output_sizes(self, spec: ChunkSpec) -> list[int | None]:
        """The byte count the array -> bytes codec declares it encodes a chunk of ``spec``
        to, then each bytes -> bytes codec's (``None`` from the first codec whose size
        depends on the data)."""
        return self._plan(spec).sizes

    def plain_dtype(self, spec: ChunkSpec) -> np.dtype | None:
        """The array -> bytes codec's :meth:`~zarrforge.abc.codec.ArrayBytesCodec.plain_dtype`
        when it is the whole chain (nothing skipped, no codec reading a chunk's position),
        else ``None``: the engine's fast path for plain chunks."""
        if self.array_array or self.bytes_bytes or self.skipped or self.uses_chunk_position:
            return None
        return self.array_bytes.plain_dtype(spec)

    def computes(self, spec: ChunkSpec) -> bool:
        """Is coding a chunk of ``spec`` more than copying it: does a bytes -> bytes codec
        run, or an array -> bytes codec whose output size depends on the data
        (``encoded_size`` is ``None``: compression, sharding, variable-length values)?
        Numcodecs-style codecs do such work without holding the GIL, which is what makes
        threads pay off (see ``pipeline.workers_for``)."""
        return bool(self.bytes_bytes) or self.array_bytes.encoded_size(self._array_specs(spec)[-1]) is None

    def _refuse_if_skipped(self) -> None:
        if self.skipped:
            names = [c.name for c in self.skipped]
            raise CodecError(
                f"cannot write: the codec(s) {names} are not installed and were "
                "skipped when reading (must_understand: false); install the plugin "
                "that provides them to write to this array"
            )

    def _array_encoded(self, chunk: np.ndarray, spec: ChunkSpec) -> tuple[np.ndarray, ChunkSpec]:
        """The chunk through the array -> array codecs, with the spec the array -> bytes
        codec sees (writing with skipped codecs is refused here)."""
        self._refuse_if_skipped()
        specs = self._array_specs(spec)
        failures = _encode_failures()
        with failures:
            for codec, s in zip(self.array_array, specs):
                failures.codec = codec
                chunk = codec.encode(chunk, s)
                if not isinstance(chunk, np.ndarray):
                    raise _codec_failure(
                        codec,
                        TypeError(f"encode returned {type(chunk).__qualname__}, not an array"),
                        "encoding a chunk",
                    )
        return chunk, specs[-1]

    def _plan(self, spec: ChunkSpec) -> _Plan:
        """What coding a chunk of ``spec`` needs, worked out once per chunk shape."""
        plan = self._plans.get(spec.shape)
        if plan is None:
            specs = [spec]
            for array_codec in self.array_array:
                specs.append(array_codec.resolve(specs[-1]))
            sizes = [self.array_bytes.encoded_size(specs[-1])]
            for bytes_codec in self.bytes_bytes:
                sizes.append(None if sizes[-1] is None else bytes_codec.encoded_size(sizes[-1]))
            plan = self._plans[spec.shape] = _Plan(specs, sizes, self.array_array, self.bytes_bytes)
        return plan

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> bytes:
        if self.array_array or self.skipped:
            chunk, _ = self._array_encoded(chunk, spec)
        plan = self._plan(spec)
        codec: Any = self.array_bytes
        # (try/except rather than a context manager: this runs once per chunk, and a
        # try block costs nothing until something is raised)
        try:
            data: Any = _checked_output(codec, codec.encode(chunk, plan.inner), plan.sizes[0])
            for codec, size in plan.encode_steps:
                data = _checked_output(codec, codec.encode(data), size)
        except Exception as exc:
            _raise_encode_failure(exc, codec)
            raise
        return data if isinstance(data, bytes) else bytes(data)

    def encode_parts(self, chunk: np.ndarray, spec: ChunkSpec) -> list[bytes | memoryview]:
        """``encode`` as buffers whose concatenation is the encoded chunk: the
        array -> bytes codec's pieces (``ArrayBytesCodec.encode_parts``) when no
        bytes -> bytes codec has to see them whole, else one ``bytes`` object."""
        if self.bytes_bytes or not self._encodes_parts:
            return [self.encode(chunk, spec)]
        parts = self.array_bytes.encode_parts(*self._array_encoded(chunk, spec))
        size = self._output_sizes(spec)[0]
        if size is not None:
            _check_size(self.array_bytes, sum(memoryview(p).nbytes for p in parts), size)
        return parts

    def decode_partial(
        self, fetch: RangeFetcher, spec: ChunkSpec, selection: tuple[Any, ...], *, key: str
    ) -> np.ndarray | None:
        assert self.partial is not None
        with _named_failures(key, self.array_bytes):
            return self.partial.decode_partial(fetch, spec, selection)

    def encode_partial(
        self, encoded: bytes, spec: ChunkSpec, selection: tuple[Any, ...], values: np.ndarray, *, key: str
    ) -> bytes | None:
        assert self.partial is not None
        self._refuse_if_skipped()
        with _named_failures(key, self.array_bytes):
            return self.partial.encode_partial(encoded, spec, selection, values)

    def decode(self, data: bytes | memoryview, spec: ChunkSpec, *, key: str | None) -> np.ndarray:
        plan = self._plan(spec)
        codec: Codec | None = None
        try:
            for codec, size in plan.decode_steps:
                data = codec.decode(data) if size is None else codec.decode_sized(data, size)
            codec = self.array_bytes
            inner = plan.inner
            chunk = codec.decode(data, inner)
            if type(chunk) is not np.ndarray or chunk.shape != inner.shape or chunk.dtype != inner.dtype:
                self._check(chunk, inner, codec)
            for codec, s in plan.array_decode_steps:
                chunk = codec.decode(chunk, s)
                self._check(chunk, s, codec)
        except BaseException as exc:
            _raise_decode_failure(exc, key, codec)
            raise
        return chunk

    def decode_into(
        self, data: bytes | memoryview, spec: ChunkSpec, out: np.ndarray, *, key: str | None
    ) -> None:
        """``out[...] = decode(data, spec)``, through the array -> bytes codec's own
        ``decode_into`` when it is the whole chain (no temporary for a whole shard)."""
        if not self._own_decode_into or out.shape != spec.shape:
            out[...] = self.decode(data, spec, key=key)  # with decode's shape and dtype checks
            return
        with _named_failures(key, self.array_bytes):
            self.array_bytes.decode_into(data, spec, out)

    @staticmethod
    def _check(chunk: np.ndarray, spec: ChunkSpec, codec: Codec) -> None:
        if not isinstance(chunk, np.ndarray) or chunk.shape != spec.shape:
            got = getattr(chunk, "shape", type(chunk).__name__)
            raise CorruptChunkError(
                f"codec {codec.to_json().get('name')!r} decoded to shape {got}, expected {spec.shape}"
            )
        if chunk.dtype != spec.dtype and chunk.dtype.newbyteorder("=") != spec.dtype:
            raise CodecError(
                f"codec {codec.to_json().get('name')!r} decoded to dtype {chunk.dtype}, expected {spec.dtype}"
            )


class _Plan:
    """How :class:`CodecChain` codes chunks of one shape. ``specs``: the input spec of each
    array -> array codec, then the spec the array -> bytes codec sees (``inner``).
    ``sizes``: the byte count the array -> bytes codec declares, then each bytes -> bytes
    codec's (``None`` from the first whose output depends on the data; decoders are held to
    it, so a small hostile chunk cannot inflate to gigabytes). The steps pair the codecs
    with them in encoding and in decoding order."""

    __slots__ = ("array_decode_steps", "decode_steps", "encode_steps", "inner", "sizes", "specs")

    def __init__(
        self,
        specs: list[ChunkSpec],
        sizes: list[int | None],
        array_array: tuple[ArrayArrayCodec, ...],
        bytes_bytes: tuple[BytesBytesCodec, ...],
    ) -> None:
        self.specs = specs
        self.sizes = sizes
        self.inner = specs[-1]
        self.encode_steps = tuple(zip(bytes_bytes, sizes[1:]))
        self.decode_steps = tuple(zip(reversed(bytes_bytes), reversed(sizes[:-1])))
        self.array_decode_steps = tuple(zip(reversed(array_array), reversed(specs[:-1])))


class _named_failures:
    """``with _named_failures(key):`` turns a codec's failure on stored data into a
    CorruptChunkError naming ``key``, and names ``key`` in any CodecError. (A class, not a generator-based context manager:
    it runs once per chunk, and this costs a fraction as much.) Any other unexpected
    failure is a bug of ``codec``, the codec running when it happened: a
    PluginFailureError naming it."""

    __slots__ = ("codec", "key")

    def __init__(self, key: str | None, codec: Codec | None = None) -> None:
        self.key = key  # None for a shard's inner chunk, named by the shard's failure
        self.codec = codec

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> Literal[False]:
        if exc is not None:
            _raise_decode_failure(exc, self.key, self.codec)
        return False


def _raise_decode_failure(exc: BaseException, key: str | None, codec: Codec | None) -> None:
    """Raise what ``exc``, raised while ``codec`` decoded the chunk ``key``, stands for (see
    :class:`_named_failures`); return when ``exc`` is to go on as it is."""
    if isinstance(exc, CodecError):
        if exc.key is None and key is not None:
            raise exc.located(key=key) from exc.__cause__
        return
    if isinstance(exc, ZarrforgeError):
        return
    # Anything a decoder raises on bad bytes, KeyError included: it must not reach a
    # caller's "except KeyError" (NodeNotFoundError is one) as if a node were missing.
    if isinstance(
        exc,
        (ValueError, TypeError, OverflowError, MemoryError, LookupError, ZeroDivisionError, struct.error),
    ):
        raise CorruptChunkError(f"cannot be decoded: {type(exc).__name__}: {exc}", key=key) from exc
    if isinstance(exc, Exception) and codec is not None:
        error = _codec_failure(codec, exc, f"decoding the chunk {key!r}")
        error.key = key
        raise error from exc


class _encode_failures:
    """``with _encode_failures(codec):`` turns a codec's unexpected failure while encoding
    (the input is the engine's own array, so any failure is the codec's) into a
    PluginFailureError naming ``codec``, the codec running when it happened."""

    __slots__ = ("codec",)

    def __init__(self, codec: Codec | None = None) -> None:
        self.codec = codec

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> Literal[False]:
        if exc is not None and self.codec is not None:
            _raise_encode_failure(exc, self.codec)
        return False


def _raise_encode_failure(exc: BaseException, codec: Codec) -> None:
    """Raise ``exc``, raised while ``codec`` encoded a chunk, as a PluginFailureError naming
    ``codec`` when it is the codec's bug (see :class:`_encode_failures`); return otherwise."""
    if plugin_failures.unexpected(exc):
        raise _codec_failure(codec, exc, "encoding a chunk") from exc
