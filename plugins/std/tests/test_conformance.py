"""zarrforge-std against the conformance kit of zarrforge.testing."""

from __future__ import annotations

from zarrforge.testing import CodecConformance, DataTypeConformance, StoreConformance
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore


class TestMemoryStore(StoreConformance):
    def make_store(self, tmp_path):
        return MemoryStore()

    def make_read_only_store(self, store):
        return MemoryStore(read_only=True, data=store._data)


class TestLocalStore(StoreConformance):
    def make_store(self, tmp_path):
        return LocalStore(tmp_path / "root")

    def make_read_only_store(self, store):
        return LocalStore(store.root, read_only=True)


class TestBytesCodec(CodecConformance):
    codec_documents = ["bytes", {"name": "bytes", "configuration": {"endian": "little"}},
                       {"name": "bytes", "configuration": {"endian": "big"}}]
    data_type = "int32"


class TestBytesCodecOnComplex(TestBytesCodec):
    data_type = "complex128"


class TestTransposeCodec(CodecConformance):
    codec_documents = [{"name": "transpose", "configuration": {"order": [1, 0]}},
                       {"name": "transpose", "configuration": {"order": [0, 1]}}]


class TestIntegerTypes(DataTypeConformance):
    data_type_documents = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
    valid_fill_values = [0, 1, 127]
    invalid_fill_values = [1.5, "1", True, None, [1]]


class TestFloatTypes(DataTypeConformance):
    data_type_documents = ["float16", "float32", "float64"]
    valid_fill_values = [0, -0.0, 1.5, "NaN", "Infinity", "-Infinity", 1e-3]
    invalid_fill_values = ["nan", "0x12", True, None, [1.0]]


class TestComplexTypes(DataTypeConformance):
    data_type_documents = ["complex64", "complex128"]
    valid_fill_values = [[0, 0], [1.5, "NaN"], ["-Infinity", 2]]
    invalid_fill_values = [1.0, [1], [1, 2, 3], "NaN", None]


class TestBoolType(DataTypeConformance):
    data_type_documents = ["bool"]
    valid_fill_values = [True, False, 0, 1]  # 0 / 1: legacy spelling, read only
    invalid_fill_values = [2, -1, 0.0, "true", None]


class TestRawTypes(DataTypeConformance):
    data_type_documents = ["r8", "r16", "r24"]
    valid_fill_values = []
    invalid_fill_values = [0, "0x00", [256], [-1]]
