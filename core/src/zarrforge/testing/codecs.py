"""The codec conformance suite.

Subclass :class:`CodecConformance` and set:

* ``codec_documents``: metadata entries of your codec to test (objects or
  short-hand names), e.g. ``[{"name": "gzip", "configuration": {"level": 1}}]``;
  each entry is its own test (the test id names it);
* ``data_type`` (default ``"float64"``) and ``chunk_shape`` (default
  ``(7, 5)``): the chunks array codecs are tested on;
* ``lossless = False`` for codecs that do not reproduce their input exactly:
  values are then not compared, but shapes, data types and byte counts are;
* ``rejects_unknown_configuration = False`` if your codec deliberately
  accepts configuration keys it does not know;
* ``max_examples`` (default 25): how many random chunks hypothesis tries per
  entry;
* override ``sample(spec)`` for data types whose values cannot be made from
  random bytes (strings, objects): the suite then uses your sample instead of
  generated ones.

What it checks, for each entry: the name resolves through the installed
``zarrforge.codecs`` registry to your class; ``to_json`` of the codec as an
array records it (after ``evolve``) is JSON and rebuilds an equal codec;
encode then decode reproduces the chunk **bit for bit, in the same data type**
(never cast before comparing), for a chunk of special values (NaN, ±infinity,
-0.0, the extremes, subnormals; integer extremes) and for hypothesis-generated
chunks; a bytes -> bytes codec gives back exactly as many bytes as it was
given, lossy or not; ``encoded_size``, when the codec states one, is right;
an array -> bytes codec that states a ``plain_dtype`` encodes exactly the chunk's
elements in C order as that dtype (the chunk engine codes such chunks itself);
decoding damaged input (truncated, extended, random, and with its leading
bytes replaced by huge lengths) raises only zarrforge errors and allocates
little, through the path the chunk engine uses (``decode_sized`` for bytes
codecs); unknown configuration keys are refused with a ``MetadataError``; and a
real array with the codec round trips through a store: edge chunks, a chunk
left at the fill value, after reopening.
"""

from __future__ import annotations

import json
import tracemalloc
from typing import Any, ClassVar, Literal, cast

import numpy as np

import zarrforge as zf

from ..abc.codec import ArrayArrayCodec, ArrayBytesCodec, BytesBytesCodec, ChunkSpec, Codec
from ..errors import ZarrforgeError
from ..plugin_api import codec_from_json, data_type_from_json, memory_layout, registry
from ._common import document_id as _document_id
from ._common import expect_unknown_key_refused, first_difference, parametrize_cases, with_unknown_key
from .kit_store import KitMemoryStore
from .scaffolding import FORMAT_NAME, KitScaffolding

# A decoder may hold this much, or this many times the chunk's size, whichever is more.
ALLOCATION_FLOOR = 16 * 1024 * 1024
ALLOCATION_FACTOR = 64


def random_chunk(spec: ChunkSpec, seed: int = 0) -> np.ndarray:
    """Random values of ``spec``'s shape and data type (fixed-size types only)."""
    rng = np.random.default_rng(seed)
    dtype = spec.dtype
    if dtype.kind == "b":
        return rng.integers(0, 2, size=spec.shape).astype(bool)
    if dtype.itemsize == 0 or dtype.hasobject or dtype.kind == "T":
        raise NotImplementedError(f"no default random data for {dtype}; override sample()")
    n = int(np.prod(spec.shape, dtype=np.int64))
    raw = rng.integers(0, 256, size=n * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(spec.shape)


def special_values(dtype: np.dtype) -> list[Any]:
    """Values that break careless codecs: NaN, infinities, signed zero, extremes, tiny."""
    if dtype.kind == "f":
        info = np.finfo(dtype)
        return [
            np.nan,
            -np.nan,
            np.inf,
            -np.inf,
            -0.0,
            0.0,
            info.max,
            info.min,
            info.tiny,
            info.smallest_subnormal,
            -info.smallest_subnormal,
            1.5,
            -1.0,
        ]
    if dtype.kind == "c":
        parts = special_values(np.dtype(f"f{dtype.itemsize // 2}"))
        return [complex(a, b) for a, b in zip(parts, parts[3:] + parts[:3])]
    if dtype.kind in "iu":
        iinfo = np.iinfo(dtype)
        return sorted({int(iinfo.min), int(iinfo.max), 0, 1, int(iinfo.max) // 2, iinfo.min + 1})
    if dtype.kind == "b":
        return [True, False]
    return []


def special_chunk(spec: ChunkSpec) -> np.ndarray:
    """A chunk of ``spec`` made of :func:`special_values` (cycled), or random bytes for
    data types that have none."""
    values = special_values(spec.dtype)
    if not values:
        return random_chunk(spec, seed=3)
    n = int(np.prod(spec.shape, dtype=np.int64))
    flat = np.array([values[i % len(values)] for i in range(n)], dtype=spec.dtype)
    return flat.reshape(spec.shape)


def chunk_strategy(spec: ChunkSpec) -> Any:
    """A hypothesis strategy of chunks of ``spec``: values of the data type's range with
    its special values mixed in, or any bytes for other fixed-size types."""
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    dtype = spec.dtype
    specials = special_values(dtype)
    if dtype.kind == "f" and dtype.itemsize in (2, 4, 8):
        elements = st.one_of(
            st.sampled_from(specials),
            st.floats(width=cast(Literal[16, 32, 64], dtype.itemsize * 8), allow_subnormal=True),
        )
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        elements = st.one_of(st.sampled_from(specials), st.integers(int(info.min), int(info.max)))
    elif dtype.kind == "b":
        elements = st.booleans()
    else:
        n = int(np.prod(spec.shape, dtype=np.int64)) * dtype.itemsize
        return st.binary(min_size=n, max_size=n).map(
            lambda raw: np.frombuffer(raw, dtype=dtype).reshape(spec.shape).copy()
        )
    return hnp.arrays(dtype, spec.shape, elements=elements)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.hasobject or a.dtype.kind == "T":
        return bool(np.all(a == b))
    return np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def _difference(expected: np.ndarray, got: np.ndarray) -> str:
    """Where two chunks first differ, for a failure message (values with their bits)."""
    if got.dtype != expected.dtype:
        return f"data type {got.dtype} where the chunk had {expected.dtype}"
    if got.shape != expected.shape:
        return f"shape {got.shape} where the chunk had {expected.shape}"
    return first_difference(got, expected, expected_is="where the chunk had")


class CodecConformance(KitScaffolding):
    codec_documents: ClassVar[list[Any]] = []
    data_type: Any = "float64"
    chunk_shape: tuple[int, ...] = (7, 5)
    lossless = True
    rejects_unknown_configuration = True
    max_examples = 25

    def pytest_generate_tests(self, metafunc: Any) -> None:
        parametrize_cases(
            metafunc,
            "document",
            self.codec_documents,
            _document_id,
            "set codec_documents to the metadata entries to test",
        )

    def sample(self, spec: ChunkSpec) -> np.ndarray | None:
        """A chunk to test with; ``None`` (the default) lets the suite generate them."""
        return None

    # --- helpers ------------------------------------------------------------------------

    def _spec(self, shape: tuple[int, ...] | None = None) -> ChunkSpec:
        data_type = data_type_from_json(self.data_type)
        return ChunkSpec(
            tuple(self.chunk_shape if shape is None else shape),
            data_type,
            data_type.default_fill_value(),
            memory_layout("C"),
        )

    def _prepared(self, document: Any) -> tuple[Codec, ChunkSpec]:
        spec = self._spec()
        codec = codec_from_json(document, field="codec_documents").evolve(spec)
        codec.validate(spec)
        return codec, spec

    def _check_round_trip(self, document: Any, codec: Codec, spec: ChunkSpec, chunk: np.ndarray) -> None:
        where = f"{_document_id(document)}"
        if isinstance(codec, ArrayArrayCodec):
            encoded_spec = codec.resolve(spec)
            encoded_chunk = codec.encode(chunk, spec)
            assert (encoded_chunk.shape, encoded_chunk.dtype) == (encoded_spec.shape, encoded_spec.dtype), (
                f"{where}: encode gave shape {encoded_chunk.shape} and data type {encoded_chunk.dtype}; "
                f"resolve() promised {encoded_spec.shape} and {encoded_spec.dtype}"
            )
            decoded = codec.decode(encoded_chunk, spec)
        elif isinstance(codec, ArrayBytesCodec):
            encoded = codec.encode(chunk, spec)
            expected = codec.encoded_size(spec)
            assert expected is None or expected == len(encoded), (
                f"{where}: encode gave {len(encoded)} bytes; encoded_size() said {expected}"
            )
            plain = codec.plain_dtype(spec)
            if plain is not None:
                assert bytes(encoded) == chunk.astype(plain).tobytes(), (
                    f"{where}: plain_dtype() says the encoding is the elements as {plain} in "
                    "C order (the engine then encodes with chunk.astype(dtype).tobytes() "
                    "instead of calling the codec), but encode gave other bytes"
                )
            decoded = codec.decode(bytes(encoded), spec)
        else:
            codec = cast(BytesBytesCodec, codec)  # the third kind of codec
            data = chunk.tobytes()
            encoded = codec.encode(data)
            expected = codec.encoded_size(len(data))
            assert expected is None or expected == len(encoded), (
                f"{where}: encode gave {len(encoded)} bytes; encoded_size() said {expected}"
            )
            decoded_bytes = bytes(codec.decode(bytes(encoded)))
            assert len(decoded_bytes) == len(data), (
                f"{where}: decode gave {len(decoded_bytes)} bytes for {len(data)} encoded"
            )
            if self.lossless:
                got = np.frombuffer(decoded_bytes, dtype=chunk.dtype).reshape(chunk.shape)
                assert decoded_bytes == data, (
                    f"{where}: decode(encode(chunk)) differs: {_difference(chunk, got)}"
                )
            return
        decoded = np.asarray(decoded)
        assert decoded.shape == chunk.shape and decoded.dtype == chunk.dtype, (
            f"{where}: decode gave shape {decoded.shape} and data type {decoded.dtype} for a "
            f"chunk of {chunk.shape} and {chunk.dtype}"
        )
        if self.lossless:
            assert _same(decoded, chunk), (
                f"{where}: decode(encode(chunk)) differs: {_difference(chunk, decoded)}"
            )

    # --- the tests ------------------------------------------------------------------------

    def test_names_resolve_to_registered_codec_classes(self, document):
        codec = codec_from_json(document, field="codec_documents")
        name = document if isinstance(document, str) else document["name"]
        assert isinstance(codec, registry.codecs.get(name)), (
            f"{name!r} built {type(codec)}, not the registered {registry.codecs.get(name)}"
        )
        assert isinstance(codec, (ArrayArrayCodec, ArrayBytesCodec, BytesBytesCodec)), (
            f"{name!r}: {type(codec)} is none of ArrayArrayCodec, ArrayBytesCodec, BytesBytesCodec"
        )

    def test_to_json_is_json_and_rebuilds_an_equal_codec(self, document):
        codec, _ = self._prepared(document)  # what an array records in its metadata
        written = codec.to_json()
        where = _document_id(document)
        assert json.loads(json.dumps(written)) == written, f"{where}: to_json() is not JSON"
        assert isinstance(written.get("name"), str), f"{where}: to_json() has no name"
        assert set(written) <= {"name", "configuration"}, (
            f"{where}: to_json() has members besides name and configuration: {sorted(written)}"
        )
        rebuilt = codec_from_json(written, field="to_json()")
        assert rebuilt.to_json() == written, f"{where}: rebuilding changes to_json()"
        assert rebuilt == codec, f"{where}: the codec rebuilt from to_json() is not equal"

    def test_round_trip(self, document):
        """Special values (or your sample), bit for bit."""
        codec, spec = self._prepared(document)
        chunk = self.sample(spec)
        self._check_round_trip(document, codec, spec, special_chunk(spec) if chunk is None else chunk)

    def test_round_trip_of_generated_chunks(self, document):
        codec, spec = self._prepared(document)
        own = self.sample(spec)
        if own is not None:
            self._check_round_trip(document, codec, spec, own)
            return
        from hypothesis import HealthCheck, given, settings

        @settings(
            max_examples=self.max_examples,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(chunk_strategy(spec))
        def round_trip(chunk: np.ndarray) -> None:
            self._check_round_trip(document, codec, spec, chunk)

        round_trip()

    def test_undecodable_input_raises_only_zarrforge_errors(self, document):
        """Damaged input: a zarrforge error (or a value), never another exception and
        never an allocation out of proportion to the chunk."""
        codec, spec = self._prepared(document)
        if isinstance(codec, ArrayArrayCodec):
            return  # they receive arrays the chain has already checked
        chunk = self.sample(spec)
        chunk = special_chunk(spec) if chunk is None else chunk
        raw = chunk.tobytes() if not (chunk.dtype.hasobject or chunk.dtype.kind == "T") else b""
        good = bytes(
            codec.encode(chunk, spec) if isinstance(codec, ArrayBytesCodec) else codec.encode(raw)
        )  # encoders may give memoryviews
        huge = 1 << 30
        candidates: dict[str, bytes] = {}
        for width in (4, 8):  # a size field in a header, claiming a gigabyte
            for order in ("little", "big"):
                if len(good) >= width:
                    candidates[f"leading {width} bytes = {huge} ({order}-endian)"] = (
                        huge.to_bytes(width, order) + good[width:]
                    )
        candidates.update(
            {
                "empty": b"",
                "first half": good[: len(good) // 2],
                "one byte short": good[:-1],
                "one byte more": good + b"\x00",
                "random": np.random.default_rng(1).integers(0, 256, 64, dtype=np.uint8).tobytes(),
                "0xff * 4096": b"\xff" * 4096,
            }
        )
        limit = max(ALLOCATION_FLOOR, ALLOCATION_FACTOR * (len(good) + len(raw)))
        where = _document_id(document)
        for label, data in candidates.items():
            tracemalloc.start()
            try:
                if isinstance(codec, ArrayBytesCodec):
                    codec.decode(data, spec)
                else:
                    codec.decode_sized(data, len(raw))  # the chain knows the size
            except ZarrforgeError:
                pass
            except Exception as exc:  # the finding
                raise AssertionError(
                    f"{where}: decoding {label} input raised {type(exc).__name__}: {exc}; "
                    "codecs must raise CorruptChunkError for data they cannot decode"
                ) from exc
            finally:
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
            assert peak <= limit, (
                f"{where}: decoding {label} input ({len(data)} bytes, for a chunk of "
                f"{len(raw)}) allocated {peak} bytes; a decoder must not trust sizes "
                "written in the data"
            )

    def test_unknown_configuration_keys_are_refused(self, document):
        if not self.rejects_unknown_configuration:
            return
        changed = with_unknown_key(codec_from_json(document, field="codec_documents").to_json())
        expect_unknown_key_refused(
            lambda: codec_from_json(changed, field="codecs[0]"), _document_id(document)
        )

    def test_arrays_with_the_codec_round_trip_through_a_store(self, document):
        """Edge chunks, a chunk left at the fill value, and reopening."""
        if not self.lossless:
            return
        codec, _ = self._prepared(document)
        role = (
            {"filters": [document], "compressors": None}
            if isinstance(codec, ArrayArrayCodec)
            else {"serializer": document, "compressors": None}
            if isinstance(codec, ArrayBytesCodec)
            else {"compressors": [document]}
        )
        chunks = tuple(self.chunk_shape)
        shape = tuple(2 * c - 1 for c in chunks)  # the last chunk along each axis is an edge
        array = zf.create_array(
            KitMemoryStore(),
            shape=shape,
            chunks=chunks,
            dtype=self.data_type,
            zarr_format=FORMAT_NAME,
            **role,
        )
        # the first row of chunks along axis 0 (edges along the other axes included) is
        # written; the edge chunks along axis 0 are left at the fill value
        written = (slice(0, chunks[0]),) if chunks else ()
        unwritten = (slice(chunks[0], None),) if chunks else None
        part = self._spec((chunks[0], *shape[1:]) if chunks else ())
        values = self.sample(part)
        values = special_chunk(part) if values is None else values
        array[written] = values
        where = _document_id(document)
        reopened = zf.open_array(array.store, zarr_format=FORMAT_NAME)
        for label, handle in (("written", array), ("reopened", reopened)):
            got = np.asarray(handle[written])
            assert _same(got, values), f"{where} ({label}): {_difference(values, got)}"
            if unwritten is not None:
                rest = np.asarray(handle[unwritten])
                fill = np.full(rest.shape, array.fill_value, dtype=rest.dtype)
                assert _same(rest, fill), (
                    f"{where} ({label}): a chunk never written does not read as the fill value:"
                    f" {_difference(fill, rest)}"
                )
