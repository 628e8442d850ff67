"""Suites of the conformance kit, run where nothing but the core is installed.

Not collected here: tests/test_conformance_kit_alone.py runs this module with every
installed plugin hidden, and tests/test_packaging.py in a fresh environment holding the
core's wheel, pytest and hypothesis only. Each suite tries something defined in this
module (a codec, a key encoding), a stand-in of the kit (data types) or the kit's own
store, and every test must pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zarrforge.abc.chunk_key_encoding import ChunkKeyEncoding
from zarrforge.abc.codec import BytesBytesCodec
from zarrforge.abc.store import Store
from zarrforge.errors import MetadataError
from zarrforge.plugin_api import registry
from zarrforge.testing import (
    ChunkKeyEncodingConformance,
    CodecConformance,
    ConditionalWriteConformance,
    DataTypeConformance,
    StoreConformance,
)
from zarrforge.testing.kit_store import KitMemoryStore


class XorCodec(BytesBytesCodec):
    """Each byte XOR ``key``."""

    name = "test.xor"

    def __init__(self, key: int) -> None:
        self.key = key

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> XorCodec:
        configuration = dict(configuration or {})
        key = configuration.pop("key", 90)
        if configuration:
            raise MetadataError(
                f"unknown configuration {sorted(configuration)}",
                field=f"configuration.{sorted(configuration)[0]}",
            )
        if not isinstance(key, int) or isinstance(key, bool) or not 0 <= key < 256:
            raise MetadataError("key must be a byte", field="configuration.key", value=key)
        return cls(key)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"key": self.key}}

    def encode(self, data: bytes | memoryview) -> bytes:
        return bytes(b ^ self.key for b in bytes(data))

    def decode(self, data: bytes | memoryview) -> bytes:
        return self.encode(data)

    def encoded_size(self, decoded_size: int | None) -> int | None:
        return decoded_size


class DashedKeys(ChunkKeyEncoding):
    """``k-1-0`` (``k`` for a 0-d array)."""

    name = "test.dashed"

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> DashedKeys:
        if configuration:
            first = sorted(configuration)[0]
            raise MetadataError(
                f"unknown configuration {sorted(configuration)}",
                field=f"configuration.{first}",
                value=configuration,
            )
        return cls()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name}

    def encode_key(self, coords: Sequence[int]) -> str:
        return "-".join(["k", *map(str, map(int, coords))])

    def decode_key(self, key: str, ndim: int) -> tuple[int, ...] | None:
        head, *parts = key.split("-")
        if (
            head != "k"
            or len(parts) != ndim
            or not all(p.isascii() and p.isdigit() and (p == "0" or p[0] != "0") for p in parts)
        ):
            return None
        return tuple(int(p) for p in parts)


registry.codecs.register("test.xor", XorCodec)
registry.chunk_key_encodings.register("test.dashed", DashedKeys)


class TestXorCodec(CodecConformance):
    codec_documents = ["test.xor", {"name": "test.xor", "configuration": {"key": 7}}]


class TestXorOnIntegers(CodecConformance):
    codec_documents = ["test.xor"]
    data_type = "int16"
    chunk_shape = (3, 4, 2)


class TestStandInNumbers(DataTypeConformance):
    data_type_documents = ["int8", "uint64", "float16", "float64"]
    valid_fill_values = [0, 1]
    invalid_fill_values = ["three", None]


class TestStandInComplex(DataTypeConformance):
    data_type_documents = ["complex64", "complex128"]
    valid_fill_values = [[0, 1], ["NaN", -1.5]]
    invalid_fill_values = [0, ["x", 1], [1, 2, 3]]


class TestStandInFloats(DataTypeConformance):
    data_type_documents = ["float32", "float64"]
    valid_fill_values = [1.5, "NaN", "Infinity", "-Infinity", -0.0]
    invalid_fill_values = ["nan", True, [1.0]]


class TestStandInBool(DataTypeConformance):
    data_type_documents = ["bool"]
    valid_fill_values = [True, False]
    invalid_fill_values = [2, "true", None]


class TestDashedKeys(ChunkKeyEncodingConformance):
    key_encoding_documents = ["test.dashed"]
    invalid_key_encoding_documents = [({"name": "test.dashed", "configuration": {"x": 1}}, "configuration.x")]


class TestKitMemoryStore(StoreConformance, ConditionalWriteConformance):
    def make_store(self, tmp_path: Any) -> KitMemoryStore:
        return KitMemoryStore()

    def make_read_only_store(self, store: Store) -> KitMemoryStore:
        assert isinstance(store, KitMemoryStore)  # what make_store made
        return store.read_only_view()
