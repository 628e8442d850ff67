"""zarrforge writes Zarr v2, reopens it, and reads back what it wrote.

Every case writes part of the array, so edge chunks are partial and some
chunks are never written (they must read as the fill value); the array is
then reopened from the store (format detected) and read again.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrforge as zf
from zarrforge_std.stores.memory import MemoryStore

CORE_DTYPES = [
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


def sample(dtype: np.dtype, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype.kind == "b":
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if dtype.kind == "V":
        return np.frombuffer(rng.bytes(n * dtype.itemsize), dtype=dtype).reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True).reshape(shape)
    values = rng.normal(0, 1000, n)
    if dtype.kind == "c":
        values = values + 1j * rng.normal(0, 1000, n)
    return values.astype(dtype).reshape(shape)


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal element for element, NaNs included (compared as bytes)."""
    return (
        a.shape == b.shape
        and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b.astype(a.dtype)).tobytes()
    )


def zarray(store: MemoryStore, path: str = "a") -> dict:
    document = store.get(f"{path}/.zarray")
    assert document is not None
    return json.loads(document)


def expected_after_partial_write(data, fill, region):
    expected = np.full(data.shape, fill, dtype=data.dtype)
    expected[region] = data[region]
    return expected


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [*CORE_DTYPES, "r24"])
def test_every_core_data_type(dtype, order):
    store = MemoryStore()
    filters = [{"name": "transpose", "configuration": {"order": [1, 0]}}] if order == "F" else None
    a = zf.create_array(store, "a", shape=(7, 5), chunks=(3, 2), dtype=dtype, zarr_format=2, filters=filters)
    data = sample(a.dtype, a.shape)
    region = (slice(0, 5), slice(1, 5))  # chunk row 2 never written; edge chunks partial
    a[region] = data[region]
    doc = zarray(store)
    assert doc["order"] == order
    assert doc["dtype"] == (np.dtype(a.dtype).str if dtype != "r24" else "|V3")
    reopened = zf.open_array(store, "a")
    assert reopened.metadata_model.format_name == "2"
    assert reopened.dtype == a.dtype
    expected = expected_after_partial_write(data, a.fill_value, region)
    assert same(reopened[:], expected)
    assert sorted(reopened.stored_chunks()) == [(i, j) for i in range(2) for j in range(3)]


@pytest.mark.parametrize("dtype", [">i2", ">u4", ">f8", ">c8", "<f4"])
def test_byte_order_is_kept(dtype):
    store = MemoryStore()
    a = zf.create_array(store, "a", shape=(6,), chunks=(4,), dtype=dtype, zarr_format=2, compressors=None)
    data = sample(np.dtype(dtype).newbyteorder("="), (6,))
    a[:] = data
    assert zarray(store)["dtype"] == dtype
    assert store.get("a/0") == data[:4].astype(dtype).tobytes()  # raw, in the stored order
    assert same(zf.open_array(store, "a")[:], data)


def test_serializer_endian_sets_the_byte_order():
    store = MemoryStore()
    zf.create_array(
        store,
        "a",
        shape=(3,),
        dtype="float64",
        zarr_format=2,
        serializer={"name": "bytes", "configuration": {"endian": "big"}},
    )
    assert zarray(store)["dtype"] == ">f8"


@pytest.mark.parametrize(
    "compressor, expected",
    [
        ({"id": "zlib", "level": 3}, {"id": "zlib", "level": 3}),
        ({"id": "gzip", "level": 1}, {"id": "gzip", "level": 1}),
        (
            {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0},
            {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0},
        ),
        (
            {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0},
            {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0},
        ),
        ({"id": "zstd", "level": 5}, {"id": "zstd", "level": 5}),
        ({"id": "zstd", "level": 1, "checksum": True}, {"id": "zstd", "level": 1, "checksum": True}),
        ({"id": "lz4", "acceleration": 1}, {"id": "lz4", "acceleration": 1}),
        ({"name": "gzip", "configuration": {"level": 2}}, {"id": "gzip", "level": 2}),
        ({"name": "zstd", "configuration": {"level": 2, "checksum": False}}, {"id": "zstd", "level": 2}),
        (
            {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 1}},
            {"id": "blosc", "cname": "lz4", "clevel": 1, "shuffle": 1, "blocksize": 0},
        ),
        ("numcodecs.zlib", {"id": "zlib", "level": 1}),
        (None, None),
    ],
)
def test_compressors(compressor, expected):
    store = MemoryStore()
    a = zf.create_array(
        store, "a", shape=(50, 3), chunks=(20, 2), dtype="int32", zarr_format=2, compressors=compressor
    )
    data = np.arange(150, dtype="int32").reshape(50, 3)
    a[:40] = data[:40]
    assert zarray(store)["compressor"] == expected
    out = zf.open_array(store, "a")[:]
    assert (out[:40] == data[:40]).all() and (out[40:] == 0).all()


def test_numcodecs_objects_are_accepted():
    import numcodecs

    store = MemoryStore()
    zf.create_array(
        store,
        "a",
        shape=(4,),
        dtype="<i4",
        zarr_format=2,
        filters=[numcodecs.Delta(dtype="<i4")],
        compressors=numcodecs.Zlib(level=2),
    )
    doc = zarray(store)
    assert doc["filters"] == [{"id": "delta", "dtype": "<i4", "astype": "<i4"}]
    assert doc["compressor"] == {"id": "zlib", "level": 2}


def test_default_compressor_is_zarr_pythons():
    store = MemoryStore()
    zf.create_array(store, "a", shape=(4,), dtype="int8", zarr_format=2)
    assert zarray(store)["compressor"] == {"id": "zstd", "level": 0}


@pytest.mark.parametrize("order", ["C", "F"])
def test_filters(order):
    store = MemoryStore()
    filters = [{"id": "delta", "dtype": "<i8", "astype": "<i2"}]
    if order == "F":
        filters = [{"name": "transpose", "configuration": {"order": [2, 1, 0]}}, *filters]
    a = zf.create_array(
        store,
        "a",
        shape=(4, 5, 6),
        chunks=(3, 4, 5),
        dtype="int64",
        zarr_format=2,
        filters=filters,
        compressors={"id": "zlib", "level": 1},
    )
    data = np.arange(120, dtype="int64").reshape(4, 5, 6) % 1000
    a[:] = data
    doc = zarray(store)
    assert doc["filters"] == [{"id": "delta", "dtype": "<i8", "astype": "<i2"}]
    assert doc["order"] == order
    assert (zf.open_array(store, "a")[:] == data).all()


def test_complete_codec_list():
    store = MemoryStore()
    zf.create_array(
        store,
        "a",
        shape=(4, 4),
        dtype="float32",
        zarr_format=2,
        codecs=[
            {"name": "transpose", "configuration": {"order": [1, 0]}},
            {"name": "bytes", "configuration": {"endian": "big"}},
            {"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}},
            {"name": "gzip", "configuration": {"level": 1}},
        ],
    )
    doc = zarray(store)
    assert (doc["order"], doc["dtype"]) == ("F", ">f4")
    assert doc["filters"] == [{"id": "shuffle", "elementsize": 4}]
    assert doc["compressor"] == {"id": "gzip", "level": 1}


@pytest.mark.parametrize("separator", [".", "/"])
def test_separators(separator):
    store = MemoryStore()
    a = zf.create_array(
        store,
        "g/a",
        shape=(4, 4),
        chunks=(2, 2),
        dtype="uint8",
        zarr_format=2,
        chunk_key_encoding={"name": "v2", "separator": separator},
    )
    a[:3, :] = 7
    assert zarray(store, "g/a")["dimension_separator"] == separator
    keys = sorted(k for k in store.list_prefix("g/a/") if not k.split("/")[-1].startswith("."))
    assert keys == [f"g/a/{i}{separator}{j}" for i in range(2) for j in range(2)]
    b = zf.open_array(store, "g/a")
    assert (b[:3] == 7).all() and (b[3:] == 0).all()
    assert sorted(b.stored_chunks()) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert zf.open_group(store, "g", mode="r").keys() == ["a"]


def test_separator_short_forms():
    store = MemoryStore()
    zf.create_array(store, "a", shape=(2,), dtype="i1", zarr_format=2, chunk_key_encoding="/")
    assert zarray(store)["dimension_separator"] == "/"


@pytest.mark.parametrize("order", ["C", "F"])
def test_zero_dimensional(order):
    store = MemoryStore()
    filters = [{"name": "transpose", "configuration": {"order": []}}] if order == "F" else None
    a = zf.create_array(
        store, "a", shape=(), dtype="float64", zarr_format=2, fill_value=-1.5, filters=filters
    )
    assert zf.open_array(store, "a")[()] == -1.5
    a[()] = 4.25
    doc = zarray(store)
    assert (doc["shape"], doc["chunks"], doc["order"]) == ([], [], order)
    assert store.get("a/0") is not None
    assert zf.open_array(store, "a")[()] == 4.25


def test_never_written_chunks_read_as_fill_value():
    store = MemoryStore()
    a = zf.create_array(store, "a", shape=(10,), chunks=(3,), dtype="int16", zarr_format=2, fill_value=-7)
    a[3:5] = [1, 2]
    assert sorted(k for k in store.list_prefix("a/") if not k.endswith(("zarray", "zattrs"))) == ["a/1"]
    assert zf.open_array(store, "a")[:].tolist() == [-7, -7, -7, 1, 2, -7, -7, -7, -7, -7]
    assert zarray(store)["fill_value"] == -7


@pytest.mark.parametrize(
    "dtype, fill, encoded",
    [
        ("float32", float("nan"), "NaN"),
        ("float64", float("inf"), "Infinity"),
        ("float16", float("-inf"), "-Infinity"),
        ("float64", -0.5, -0.5),
        ("int64", -(2**63), -(2**63)),
        ("uint64", 2**64 - 1, 2**64 - 1),
        ("int8", -1, -1),
        ("bool", True, True),
        ("complex64", complex(1, float("nan")), [1.0, "NaN"]),
        ("r16", b"\x01\xff", "Af8="),
    ],
)
def test_fill_values(dtype, fill, encoded):
    store = MemoryStore()
    zf.create_array(store, "a", shape=(3,), chunks=(2,), dtype=dtype, zarr_format=2, fill_value=fill)
    assert zarray(store)["fill_value"] == encoded
    a = zf.open_array(store, "a")
    expected = np.full(3, fill, dtype=a.dtype) if dtype != "r16" else np.frombuffer(fill * 3, "V2")
    assert same(a[:], expected)


def test_nan_payloads_are_written_as_nan():
    store = MemoryStore()
    payload = np.array([0x7FF8000000000001], dtype="<u8").view("<f8")[0]
    zf.create_array(store, "a", shape=(1,), dtype="float64", zarr_format=2, fill_value=payload)
    assert zarray(store)["fill_value"] == "NaN"


def test_null_fill_value_reads_as_default_and_stays_null():
    store = MemoryStore()
    store.set(".zgroup", b'{"zarr_format": 2}')
    store.set(
        "a/.zarray",
        json.dumps(
            {
                "shape": [3],
                "chunks": [2],
                "dtype": "<f4",
                "fill_value": None,
                "order": "C",
                "filters": None,
                "compressor": None,
                "zarr_format": 2,
            }
        ).encode(),
    )
    a = zf.open_array(store, "a", mode="r+")
    assert a.fill_value == 0 and a[:].tolist() == [0, 0, 0]
    assert a.metadata[".zarray"]["fill_value"] is None
    a.attrs["x"] = 1  # rewrites .zarray
    assert zarray(store)["fill_value"] is None
    a[:2] = 5
    assert zf.open_array(store, "a")[:].tolist() == [5, 5, 0]


def test_attributes_and_dimension_names():
    store = MemoryStore()
    zf.create_array(
        store,
        "a",
        shape=(2, 3),
        dtype="int8",
        zarr_format=2,
        attributes={"units": "m", "nested": {"k": [1, 2]}},
        dimension_names=["y", "x"],
    )
    attrs = json.loads(store.get("a/.zattrs"))
    assert attrs == {"units": "m", "nested": {"k": [1, 2]}, "_ARRAY_DIMENSIONS": ["y", "x"]}
    b = zf.open_array(store, "a", mode="r+")
    assert b.dimension_names == ("y", "x")
    assert b.attrs["units"] == "m" and b.attrs["_ARRAY_DIMENSIONS"] == ["y", "x"]
    b.attrs["units"] = "km"
    assert json.loads(store.get("a/.zattrs"))["units"] == "km"
    b.attrs["_ARRAY_DIMENSIONS"] = ["row", "col"]
    assert zf.open_array(store, "a").dimension_names == ("row", "col")


def test_malformed_array_dimensions_is_just_an_attribute():
    store = MemoryStore()
    zf.create_array(
        store, "a", shape=(2, 3), dtype="int8", zarr_format=2, attributes={"_ARRAY_DIMENSIONS": ["only-one"]}
    )
    a = zf.open_array(store, "a")
    assert a.dimension_names is None and a.attrs["_ARRAY_DIMENSIONS"] == ["only-one"]


def test_groups_and_hierarchy():
    store = MemoryStore()
    root = zf.create_group(store, zarr_format=2, attributes={"title": "t"})
    sub = root.create_group("sub", attributes={"k": 1})
    sub.create_array("x", shape=(3,), dtype="float32")
    zf.create_array(store, "deep/er/y", shape=(1,), dtype="int8", zarr_format=2)
    assert json.loads(store.get(".zgroup")) == {"zarr_format": 2}
    assert json.loads(store.get(".zattrs")) == {"title": "t"}
    assert store.get("deep/er/.zgroup") is not None  # parents created as v2 groups
    g = zf.open_group(store, mode="r")
    assert g.metadata_model.format_name == "2"
    assert g.keys() == ["deep", "sub"]
    assert [name for name, _ in g.members(max_depth=None)] == ["deep", "deep/er", "deep/er/y", "sub", "sub/x"]
    assert g["sub"].attrs.asdict() == {"k": 1}
    assert g["sub/x"].metadata_model.format_name == "2"
    del zf.open_group(store, mode="r+")["sub"]
    assert zf.open_group(store, mode="r").keys() == ["deep"]
    assert not any(k.startswith("sub/") for k in store.list())


def test_resize_and_overwrite():
    store = MemoryStore()
    a = zf.create_array(store, "a", shape=(4,), chunks=(2,), dtype="int32", zarr_format=2)
    a[:] = [1, 2, 3, 4]
    a.resize((6,))
    assert zarray(store)["shape"] == [6]
    assert zf.open_array(store, "a")[:].tolist() == [1, 2, 3, 4, 0, 0]
    zf.create_array(store, "a", shape=(2,), dtype="uint8", zarr_format=2, overwrite=True)
    assert zarray(store)["dtype"] == "|u1"
    assert zf.open_array(store, "a")[:].tolist() == [0, 0]


def test_documents_are_written_like_zarr_python():
    store = MemoryStore()
    zf.create_array(
        store,
        "a",
        shape=(5,),
        chunks=(2,),
        dtype="<f8",
        zarr_format=2,
        fill_value=float("nan"),
        compressors={"id": "zlib", "level": 1},
    )
    text = store.get("a/.zarray").decode()
    assert text == json.dumps(
        {
            "shape": [5],
            "chunks": [2],
            "dtype": "<f8",
            "fill_value": "NaN",
            "order": "C",
            "filters": None,
            "dimension_separator": ".",
            "compressor": {"id": "zlib", "level": 1},
            "zarr_format": 2,
        },
        indent=2,
    )
    assert store.get("a/.zattrs") == b"{}"
    assert store.get(".zgroup") == b'{\n  "zarr_format": 2\n}'


def test_unknown_zarray_keys_are_kept():
    store = MemoryStore()
    store.set(
        "a/.zarray",
        json.dumps(
            {
                "shape": [2],
                "chunks": [2],
                "dtype": "|u1",
                "fill_value": 0,
                "order": "C",
                "filters": None,
                "compressor": None,
                "zarr_format": 2,
                "custom": {"x": 1},
            }
        ).encode(),
    )
    a = zf.open_array(store, "a", mode="r+")
    a.attrs["k"] = 1
    assert zarray(store)["custom"] == {"x": 1}


def test_attributes_with_nan_tokens_are_read():
    store = MemoryStore()
    zf.create_array(store, "a", shape=(2,), dtype="float32", zarr_format=2)
    store.set("a/.zattrs", b'{"_FillValue": NaN, "scale": Infinity}')
    a = zf.open_array(store, "a", mode="r+")
    assert np.isnan(a.attrs["_FillValue"]) and a.attrs["scale"] == float("inf")
    a.resize((3,))  # rewrites .zattrs: the tokens survive
    assert store.get("a/.zattrs") == b'{\n  "_FillValue": NaN,\n  "scale": Infinity\n}'
