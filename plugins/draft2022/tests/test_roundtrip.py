"""Arrays written and read back in both dialects: data types, layouts, codecs, sharding."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from _draft_helpers import doc

import zarrforge as zf
from zarrforge import registry
from zarrforge_draft2022 import Draft2022Format
from zarrforge_std.stores.memory import MemoryStore

DIALECTS = ("zarr-python", "editor")
SHARDING = "https://purl.org/zarr/spec/storage_transformers/sharding/1.0"

CORE_TYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


def sample(dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape))
    rng = np.random.default_rng(42)
    if dtype.kind == "b":
        values = rng.integers(0, 2, n).astype(bool)
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    elif dtype.kind == "f":
        values = rng.standard_normal(n).astype(dtype)
    elif dtype.kind == "c":
        values = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    else:
        values = np.frombuffer(rng.bytes(n * dtype.itemsize), dtype=dtype)
    return values.reshape(shape)


def reopen(store, path=""):
    return zf.open_array(store, path)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("dtype", CORE_TYPES)
def test_every_core_data_type_round_trips(dialect, dtype):
    store = MemoryStore()
    a = zf.create_array(
        store, "a", shape=(5, 7), chunks=(2, 3), dtype=dtype, fmt=Draft2022Format(dialect=dialect)
    )
    values = sample(np.dtype(dtype), a.shape)
    a[...] = values
    b = reopen(store, "a")
    assert b.dtype == np.dtype(dtype)
    assert np.array_equal(b[...], values)
    assert b.metadata == a.metadata
    document = doc(store, "meta/root/a.array.json")
    if dialect == "zarr-python":
        if np.dtype(dtype).kind == "c":
            assert document["data_type"]["type"] == np.dtype(dtype).newbyteorder("<").str
        else:
            expected = {"bool": "bool", "int8": "i1", "uint8": "u1"}.get(
                dtype, np.dtype(dtype).newbyteorder("<").str
            )
            assert document["data_type"] == expected
        assert "compressor" in document and "codecs" not in document
    else:
        assert document["data_type"] == dtype
        assert "codecs" in document and "compressor" not in document


def test_raw_types_round_trip_in_the_editor_dialect():
    store = MemoryStore()
    fmt = Draft2022Format(dialect="editor")
    a = zf.create_array(store, "r", shape=(6,), chunks=(4,), dtype="r24", fmt=fmt, fill_value=b"\x01\x02\x03")
    values = sample(np.dtype("V3"), (6,))
    a[...] = values
    document = doc(store, "meta/root/r.array.json")
    assert document["data_type"] == "r24" and document["fill_value"] == "0x010203"
    b = reopen(store, "r")
    assert b[...].tobytes() == values.tobytes()
    assert b.fill_value.tobytes() == b"\x01\x02\x03"


def test_raw_types_have_no_zarr_python_spelling():
    with pytest.raises(zf.errors.MetadataError, match="no spelling in the 'zarr-python'") as info:
        zf.create_array(MemoryStore(), shape=(6,), dtype="r16", zarr_format="draft-2022")
    assert info.value.field == "data_type"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_big_endian(dialect):
    store = MemoryStore()
    a = zf.create_array(
        store,
        "b",
        shape=(4,),
        chunks=(4,),
        dtype=">i4",
        compressors=None,
        fmt=Draft2022Format(dialect=dialect),
    )
    a[...] = [1, 2, 3, -4]
    assert store.get("data/root/b/c0") == np.array([1, 2, 3, -4], ">i4").tobytes()
    document = doc(store, "meta/root/b.array.json")
    if dialect == "zarr-python":
        assert document["data_type"] == ">i4"
    else:
        assert document["data_type"] == "int32"
        assert document["codecs"] == [
            {"type": "https://purl.org/zarr/spec/codec/endian/1.0", "configuration": {"endian": "big"}}
        ]
    assert reopen(store, "b")[...].tolist() == [1, 2, 3, -4]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("layout", ["C", "F"])
@pytest.mark.parametrize("shape,chunks", [((5, 7), (2, 3)), ((3, 4, 5), (2, 3, 2)), ((6,), (4,)), ((), ())])
def test_memory_layouts_give_the_chunk_bytes_in_that_order(dialect, layout, shape, chunks):
    store = MemoryStore()
    fmt = Draft2022Format(dialect=dialect, chunk_memory_layout=layout)
    a = zf.create_array(
        store, "m", shape=shape, chunks=chunks, dtype="<u2", compressors=None, fill_value=9, fmt=fmt
    )
    values = np.arange(int(np.prod(shape)), dtype="<u2").reshape(shape)
    a[...] = values
    assert doc(store, "meta/root/m.array.json")["chunk_memory_layout"] == layout
    # chunk (0, 0, ...): the padded chunk, flattened in the layout's order
    full = np.full(chunks, 9, dtype="<u2")
    region = tuple(slice(0, min(c, s)) for c, s in zip(chunks, shape))
    full[tuple(slice(0, r.stop) for r in region)] = values[region]
    scalar_key = "c" if dialect == "editor" else "c0"
    key = "data/root/m/" + ("c" + "/".join("0" * len(shape)) if shape else scalar_key)
    assert store.get(key) == full.tobytes(order=layout)
    b = reopen(store, "m")
    assert np.array_equal(b[...], values)
    assert b.metadata["chunk_memory_layout"] == layout


def test_the_layout_is_resolved_through_the_memory_layout_registry(hierarchy):
    document = {
        "shape": [2, 2],
        "data_type": "int8",
        "chunk_memory_layout": "Z",
        "chunk_grid": {"type": "regular", "chunk_shape": [2, 2]},
        "fill_value": 0,
    }
    store = hierarchy({"meta/root/z.array.json": document})
    with pytest.raises(zf.errors.UnknownExtensionError, match="unknown memory layout 'Z'") as info:
        zf.open_array(store, "z")
    assert (info.value.key, info.value.field) == ("meta/root/z.array.json", "chunk_memory_layout")


def codec_cases():
    cases = [
        ("gzip", {"level": 3}, "gzip", {"level": 3}),
        ("zstd", {"level": 5, "checksum": True}, "zstd", {"level": 5, "checksum": True}),
        (
            "blosc",
            {"cname": "zstd", "clevel": 4, "shuffle": 2, "blocksize": 0},
            "blosc",
            {"typesize": 8, "cname": "zstd", "clevel": 4, "shuffle": "bitshuffle", "blocksize": 0},
        ),
        ("zlib", {"level": 2}, "numcodecs.zlib", {"level": 2}),
        ("bz2", {"level": 1}, "numcodecs.bz2", {"level": 1}),
        ("lz4", {"acceleration": 1}, "numcodecs.lz4", {"acceleration": 1}),
        (
            "lzma",
            {"format": 1, "check": -1, "preset": None, "filters": None},
            "numcodecs.lzma",
            {"format": 1, "check": -1, "preset": None, "filters": None},
        ),
    ]
    return [pytest.param(*case, id=case[0]) for case in cases]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("codec_id,config,name,model_config", codec_cases())
def test_codecs_by_uri(dialect, codec_id, config, name, model_config):
    if name not in registry.codecs:
        pytest.skip(f"codec {name} is not installed")  # pragma: no cover
    uri = f"https://purl.org/zarr/spec/codec/{codec_id}/1.0"
    store = MemoryStore()
    a = zf.create_array(
        store,
        "c",
        shape=(10, 10),
        chunks=(5, 5),
        dtype="<f8",
        compressors=[{"codec": uri, "configuration": config}],
        fmt=Draft2022Format(dialect=dialect),
    )
    assert a.codecs[-1].to_json() == {"name": name, "configuration": model_config}
    values = sample(np.dtype("<f8"), (10, 10))
    a[...] = values
    document = doc(store, "meta/root/c.array.json")
    if dialect == "zarr-python":
        assert document["compressor"] == {"codec": uri, "configuration": config}
    else:
        assert document["codecs"] == [{"type": uri, "configuration": config}]
    b = reopen(store, "c")
    assert np.array_equal(b[...], values)
    assert b.codecs[-1].to_json() == {"name": name, "configuration": model_config}


def test_codec_uri_spellings(hierarchy):
    """``.../spec/codec/...`` and ``.../spec/codecs/...`` (the codec documents) both resolve."""
    document = {
        "shape": [4],
        "data_type": "uint8",
        "chunk_memory_layout": "C",
        "fill_value": 0,
        "chunk_grid": {"type": "regular", "chunk_shape": [4], "separator": "/"},
        "codecs": [{"type": "https://purl.org/zarr/spec/codecs/gzip/1.0", "configuration": {"level": 9}}],
    }
    store = hierarchy({"meta/root/u.array.json": document, "data/root/u/c0": gzip.compress(b"\1\2\3\4")})
    a = zf.open_array(store, "u", mode="r+")
    assert a[...].tolist() == [1, 2, 3, 4]
    assert a.metadata["codecs"] == document["codecs"]  # the spelling read is the one written


def test_transpose_and_endian_codecs_of_the_editors_draft(hierarchy):
    document = {
        "shape": [2, 3],
        "data_type": "int16",
        "chunk_memory_layout": "C",
        "fill_value": 0,
        "chunk_grid": {"type": "regular", "chunk_shape": [2, 3], "separator": "/"},
        "codecs": [
            {"type": "https://purl.org/zarr/spec/codecs/transpose/1.0", "configuration": {"order": "F"}},
            {"type": "https://purl.org/zarr/spec/codecs/endian/1.0", "configuration": {"endian": "big"}},
        ],
    }
    values = np.arange(6, dtype="int16").reshape(2, 3)
    store = hierarchy(
        {"meta/root/t.array.json": document, "data/root/t/c0/0": values.T.astype(">i2").tobytes()}
    )
    a = zf.open_array(store, "t")
    assert [k.to_json()["name"] for k in a.codecs] == ["transpose", "bytes"]
    assert np.array_equal(a[...], values)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_sharded_arrays(dialect):
    store = MemoryStore()
    a = zf.create_array(
        store,
        "s",
        shape=(8, 9),
        chunks=(2, 3),
        shards=(4, 9),
        dtype="<i4",
        compressors=None,
        fmt=Draft2022Format(dialect=dialect),
    )
    values = np.arange(72, dtype="<i4").reshape(8, 9)
    a[...] = values
    document = doc(store, "meta/root/s.array.json")
    assert document["storage_transformers"] == [
        {"extension": SHARDING, "type": "indexed", "configuration": {"chunks_per_shard": [2, 3]}}
    ]
    assert sorted(k for k in store._data if k.startswith("data/")) == [
        "data/root/s/c0/0",
        "data/root/s/c1/0",
    ]  # keyed by shard position
    shard = store.get("data/root/s/c0/0")
    index = np.frombuffer(shard[-6 * 16 :], "<u8").reshape(2, 3, 2)
    first = shard[int(index[0, 1, 0]) : int(index[0, 1, 0] + index[0, 1, 1])]
    assert first == values[0:2, 3:6].tobytes()
    b = reopen(store, "s")
    assert np.array_equal(b[...], values)
    assert b.nchunks_initialized == 12
    assert b.metadata["storage_transformers"] == document["storage_transformers"]


def test_shards_must_hold_whole_chunks():
    with pytest.raises(zf.errors.MetadataError, match="multiple of the chunk shape") as info:
        zf.create_array(
            MemoryStore(), shape=(8,), chunks=(3,), shards=(4,), dtype="i4", zarr_format="draft-2022"
        )
    assert info.value.field == "shards"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_dot_separator(dialect):
    store = MemoryStore()
    a = zf.create_array(
        store,
        "d",
        shape=(4, 4),
        chunks=(2, 2),
        dtype="u1",
        chunk_key_encoding=".",
        fmt=Draft2022Format(dialect=dialect),
    )
    a[...] = 1
    assert sorted(k for k in store._data if k.startswith("data/")) == [
        f"data/root/d/c{i}.{j}" for i in range(2) for j in range(2)
    ]
    assert doc(store, "meta/root/d.array.json")["chunk_grid"]["separator"] == "."
    assert reopen(store, "d")[...].sum() == 16


@pytest.mark.parametrize("dialect", DIALECTS)
def test_attributes_and_dimension_names(dialect):
    store = MemoryStore()
    a = zf.create_array(
        store,
        "n",
        shape=(2, 3),
        dtype="f4",
        attributes={"units": "m"},
        dimension_names=["y", "x"],
        fmt=Draft2022Format(dialect=dialect),
    )
    a.attrs["more"] = [1, 2]
    b = reopen(store, "n")
    assert dict(b.attrs) == {"units": "m", "more": [1, 2]}
    assert b.dimension_names == ("y", "x")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_resize(dialect):
    store = MemoryStore()
    a = zf.create_array(store, "r", shape=(4,), chunks=(2,), dtype="i2", fmt=Draft2022Format(dialect=dialect))
    a[...] = [1, 2, 3, 4]
    a.resize((6,))
    assert doc(store, "meta/root/r.array.json")["shape"] == [6]
    assert reopen(store, "r")[...].tolist() == [1, 2, 3, 4, 0, 0]


def test_numcodecs_filters_live_in_attributes_in_the_zarr_python_dialect():
    if "numcodecs.delta" not in registry.codecs:
        pytest.skip("zarrforge-numcodecs is not installed")  # pragma: no cover
    store = MemoryStore()
    a = zf.create_array(
        store,
        "f",
        shape=(6,),
        chunks=(6,),
        dtype="<i4",
        attributes={"x": 1},
        filters=[{"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}}],
        compressors=None,
        zarr_format="draft-2022",
    )
    a[...] = [1, 3, 6, 10, 15, 21]
    document = doc(store, "meta/root/f.array.json")
    assert document["attributes"] == {"x": 1, "filters": [{"id": "delta", "dtype": "<i4", "astype": "<i4"}]}
    assert store.get("data/root/f/c0") == np.array([1, 2, 3, 4, 5, 6], "<i4").tobytes()
    b = reopen(store, "f")
    assert dict(b.attrs) == {"x": 1}
    assert b[...].tolist() == [1, 3, 6, 10, 15, 21]
