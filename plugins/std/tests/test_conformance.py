"""zarrforge-std against the conformance kit of zarrforge.testing."""

from __future__ import annotations

import threading

import numpy as np

from zarrforge.testing import (
    ChunkGridConformance,
    ChunkKeyEncodingConformance,
    CodecConformance,
    ConditionalWriteConformance,
    CrossProcessConditionalConformance,
    DataTypeConformance,
    MemoryLayoutConformance,
    PipelineCase,
    StoreConformance,
    URLAdapterConformance,
)
from zarrforge.testing.conditional import increment
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore


class TestMemoryStore(StoreConformance, ConditionalWriteConformance):
    def make_store(self, tmp_path):
        return MemoryStore()

    def make_read_only_store(self, store):
        return MemoryStore(read_only=True, data=store._data)


class TestLocalStore(StoreConformance, ConditionalWriteConformance, CrossProcessConditionalConformance):
    def make_store(self, tmp_path):
        return LocalStore(tmp_path / "root")

    def make_read_only_store(self, store):
        return LocalStore(store.root, read_only=True)

    def reopen_args(self, store):
        return LocalStore, (store.root,)

    def test_lock_files_are_never_listed_and_never_left(self, tmp_path):
        store = self.make_store(tmp_path)
        store.set("a/b", b"1")
        _, generation = store.get_versioned("a/b")
        store.set_if("a/b", b"2", if_generation=generation)
        store.delete_if("a/b", if_generation=store.get_versioned("a/b")[1])
        store.set_if_absent("a/c", b"3")
        assert list(store.list()) == ["a/c"] and store.list_dir("a/").keys == ["c"]
        assert sorted(p.name for p in (tmp_path / "root").rglob("*")) == ["a", "c"]

    def test_stores_opened_at_different_roots_exclude_each_other(self, tmp_path):
        first = self.make_store(tmp_path)
        first.set("sub/counter", b"0")
        second = LocalStore(tmp_path / "root" / "sub")  # the same file, another root
        errors = []

        def bump(store):
            try:
                increment(store, "sub/counter" if store is first else "counter", 100)
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

        workers = [threading.Thread(target=bump, args=(s,)) for s in (first, second) * 2]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert not errors and int(first.get("sub/counter")) == 400


class TestBytesCodec(CodecConformance):
    codec_documents = [
        "bytes",
        {"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "bytes", "configuration": {"endian": "big"}},
    ]
    data_type = "int32"


class TestBytesCodecOnComplex(TestBytesCodec):
    data_type = "complex128"


class TestTransposeCodec(CodecConformance):
    codec_documents = [
        {"name": "transpose", "configuration": {"order": [1, 0]}},
        {"name": "transpose", "configuration": {"order": [0, 1]}},
    ]


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
    valid_fill_values = [True, False]
    invalid_fill_values = [2, -1, 0.0, "true", None]

    def test_legacy_integer_fill_values_read_and_are_written_as_booleans(self):
        import zarrforge as zf

        bool_type = zf.registry.data_types.get("bool").from_json("bool", None)
        assert bool_type.fill_value_from_json(1) is np.True_
        assert bool_type.fill_value_from_json(0) is np.False_
        assert bool_type.fill_value_to_json(bool_type.fill_value_from_json(1)) is True


class TestRawTypes(DataTypeConformance):
    data_type_documents = ["r8", "r16", "r24"]
    valid_fill_values = []
    invalid_fill_values = [0, "0x00", [256], [-1]]


def regular(*chunk_shape):
    return {"name": "regular", "configuration": {"chunk_shape": list(chunk_shape)}}


class TestRegularChunkGrid(ChunkGridConformance):
    chunk_grid_cases = [
        (regular(3, 4), (10, 8)),  # edge chunks along the first dimension only
        (regular(4, 4), (8, 8)),  # no edge chunks
        (regular(5), (3,)),  # one chunk larger than the array
        (regular(1, 1, 1), (2, 3, 1)),
        (regular(7, 2), (0, 5)),  # a zero-length dimension
        (regular(), ()),  # 0-d
        (regular(1000), (2**40 + 1,)),  # a billion chunks, the last holding one element
        (regular(3, 5), (11, 2**41 - 1)),
    ]
    invalid_chunk_grid_cases = [
        (regular(0, 4), (10, 8), "configuration.chunk_shape"),
        (regular(-1), (10,), "configuration.chunk_shape"),
        (regular(3), (10, 8), "configuration.chunk_shape"),
        (regular(3, 4.0), (10, 8), "configuration.chunk_shape"),
        (regular(True), (10,), "configuration.chunk_shape"),
        (regular(2**63), (10,), "configuration.chunk_shape"),
        ({"name": "regular", "configuration": {"chunk_shape": "3,4"}}, (10, 8), "configuration.chunk_shape"),
        ({"name": "regular"}, (10,), "configuration"),
        ({"name": "regular", "configuration": {}}, (10,), "configuration"),
    ]


class TestDefaultAndV2KeyEncodings(ChunkKeyEncodingConformance):
    key_encoding_documents = [
        {"name": "default"},
        {"name": "default", "configuration": {"separator": "/"}},
        {"name": "default", "configuration": {"separator": "."}},
        {"name": "v2"},
        {"name": "v2", "configuration": {"separator": "."}},
        {"name": "v2", "configuration": {"separator": "/"}},
    ]
    invalid_key_encoding_documents = [
        ({"name": "default", "configuration": {"separator": "-"}}, "configuration.separator"),
        ({"name": "default", "configuration": {"separator": ""}}, "configuration.separator"),
        ({"name": "v2", "configuration": {"separator": 1}}, "configuration.separator"),
        ({"name": "v2", "configuration": {"separator": ["/"]}}, "configuration.separator"),
        ({"name": "default", "configuration": {"sep": "/"}}, "configuration"),
    ]


class TestCAndFLayouts(MemoryLayoutConformance):
    layout_names = ["C", "F"]
    max_examples = 30


# --- URL adapters: the format segments and the file:/memory: roots ------------------------


class TestZarr3Segment(URLAdapterConformance):
    scheme = "zarr3"
    invalid_bodies = ["a//b", "../up", "x?query", "%ZZ"]

    def pipelines(self, tmp_path):
        store = f"memory:{self.scheme}-{tmp_path.name}"  # named: every resolution finds it
        return [
            PipelineCase(f"{store}|zarr3:"),
            PipelineCase(f"{store}|zarr3:grp/sub"),
            PipelineCase(f"file:{tmp_path}/d.zarr|zarr3:g"),
        ]


class TestZarrSegment(TestZarr3Segment):
    scheme = "zarr"

    def pipelines(self, tmp_path):
        return [PipelineCase(f"memory:zarr-{tmp_path.name}|zarr:g")]


class TestFileRoot(URLAdapterConformance):
    scheme = "file"
    place = "root"
    invalid_bodies = ["//elsewhere.example/x", "/data?version=2"]

    def pipelines(self, tmp_path):
        return [
            PipelineCase(f"file:{tmp_path}/a.zarr|zarr:"),
            PipelineCase(f"file://{tmp_path}/b.zarr|zarr:"),
            PipelineCase(f"file:{tmp_path}/c.zarr|zarr3:inner"),
        ]

    def _pipeline(self, body):
        # generated bodies are read-only and relative to a directory of the suite's own
        return f"file:{body}|zarr:" if body.startswith("/") else super()._pipeline(body)


class TestMemoryRoot(URLAdapterConformance):
    scheme = "memory"
    place = "root"
    invalid_bodies = ["a/../b"]

    def pipelines(self, tmp_path):
        return [
            PipelineCase(f"memory:conformance-{tmp_path.name}|zarr:"),
            PipelineCase(f"memory:conformance-{tmp_path.name}-2|zarr2:"),
        ]


# --- the v3 format -------------------------------------------------------------------------

from zarrforge.testing import FormatConformance  # noqa: E402


class TestV3Format(FormatConformance):
    format_name = "3"

    def document_keys(self, path):
        return [f"{path}/zarr.json"]
