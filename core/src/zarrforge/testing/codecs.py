"""The codec conformance suite.

Subclass :class:`CodecConformance` and set:

* ``codec_documents``: metadata entries of your codec to test (objects or
  short-hand names), e.g. ``[{"name": "gzip", "configuration": {"level": 1}}]``;
* ``data_type`` (default ``"float64"``) and ``chunk_shape`` (default
  ``(7, 5)``): the chunks array codecs are tested on;
* ``lossless = False`` for codecs that do not reproduce their input exactly
  (only shapes and types are then compared);
* ``rejects_unknown_configuration = False`` if your codec deliberately
  accepts configuration keys it does not know.

What it checks: the name resolves through the installed ``zarrforge.codecs``
registry to your class; ``to_json`` of the codec as an array records it
(after ``evolve``) is JSON and rebuilds an equal codec;
encode/decode round trips (array codecs against ``resolve``, byte counts
against ``encoded_size``); decoding truncated or random input raises only
zarrforge errors; unknown configuration keys are refused with a
``MetadataError``.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from .. import registry
from ..abc.codec import ArrayArrayCodec, ArrayBytesCodec, BytesBytesCodec, ChunkSpec, Codec
from ..errors import MetadataError, ZarrforgeError
from ..resolution import codec_from_json, data_type_from_json, memory_layout


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


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.hasobject or a.dtype.kind == "T":
        return bool(np.all(a == b))
    return np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


class CodecConformance:
    codec_documents: list[Any] = []
    data_type: Any = "float64"
    chunk_shape: tuple[int, ...] = (7, 5)
    lossless = True
    rejects_unknown_configuration = True

    def sample(self, spec: ChunkSpec) -> np.ndarray:
        return random_chunk(spec)

    def _spec(self) -> ChunkSpec:
        data_type = data_type_from_json(self.data_type)
        return ChunkSpec(tuple(self.chunk_shape), data_type, data_type.default_fill_value(),
                         memory_layout("C"))

    def _codecs(self) -> list[Codec]:
        assert self.codec_documents, "set codec_documents to the metadata entries to test"
        return [codec_from_json(doc, field="codec_documents") for doc in self.codec_documents]

    def test_names_resolve_to_registered_codec_classes(self):
        for document, codec in zip(self.codec_documents, self._codecs()):
            name = document if isinstance(document, str) else document["name"]
            assert isinstance(codec, registry.codecs.get(name))
            assert isinstance(codec, (ArrayArrayCodec, ArrayBytesCodec, BytesBytesCodec))

    def test_to_json_is_json_and_rebuilds_an_equal_codec(self):
        spec = self._spec()
        for codec in self._codecs():
            codec = codec.evolve(spec)  # what an array records in its metadata
            document = codec.to_json()
            assert json.loads(json.dumps(document)) == document
            assert isinstance(document.get("name"), str)
            assert set(document) <= {"name", "configuration"}
            rebuilt = codec_from_json(document, field="to_json()")
            assert rebuilt.to_json() == document and rebuilt == codec

    def test_round_trip(self):
        spec = self._spec()
        for codec in self._codecs():
            codec = codec.evolve(spec)
            codec.validate(spec)
            chunk = self.sample(spec)
            if isinstance(codec, ArrayArrayCodec):
                encoded_spec = codec.resolve(spec)
                encoded = codec.encode(chunk, spec)
                assert encoded.shape == encoded_spec.shape and encoded.dtype == encoded_spec.dtype
                decoded = codec.decode(encoded, spec)
            elif isinstance(codec, ArrayBytesCodec):
                encoded = codec.encode(chunk, spec)
                expected = codec.encoded_size(spec)
                assert expected is None or expected == len(encoded)
                decoded = codec.decode(encoded, spec)
            else:
                data = chunk.tobytes()
                encoded = codec.encode(data)
                expected = codec.encoded_size(len(data))
                assert expected is None or expected == len(encoded)
                decoded_bytes = bytes(codec.decode(encoded))
                assert not self.lossless or decoded_bytes == data
                continue
            assert decoded.shape == chunk.shape
            assert not self.lossless or _same(np.asarray(decoded, dtype=chunk.dtype), chunk)

    def test_undecodable_input_raises_only_zarrforge_errors(self):
        spec = self._spec()
        rng = np.random.default_rng(1)
        for codec in self._codecs():
            codec = codec.evolve(spec)
            if isinstance(codec, ArrayArrayCodec):
                continue  # they receive arrays the chain has already checked
            chunk = self.sample(spec)
            good = bytes(codec.encode(chunk, spec) if isinstance(codec, ArrayBytesCodec)
                         else codec.encode(chunk.tobytes()))  # encoders may give memoryviews
            candidates = [b"", good[: len(good) // 2], good[:-1], good + b"\x00",
                          rng.integers(0, 256, 64, dtype=np.uint8).tobytes(), b"\xff" * 4096]
            for data in candidates:
                try:
                    if isinstance(codec, ArrayBytesCodec):
                        codec.decode(data, spec)
                    else:
                        codec.decode(data)
                except ZarrforgeError:
                    pass

    def test_unknown_configuration_keys_are_refused(self):
        if not self.rejects_unknown_configuration:
            return
        for codec in self._codecs():
            document = codec.to_json()
            configuration = dict(document.get("configuration", {}), no_such_option=1)
            try:
                codec_from_json({"name": document["name"], "configuration": configuration},
                                field="codecs[0]")
            except MetadataError as exc:
                assert "no_such_option" in str(exc)
            else:
                raise AssertionError(f"{document['name']} accepted an unknown configuration key")
