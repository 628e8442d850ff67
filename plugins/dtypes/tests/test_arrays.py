"""Arrays of every type of this package: create, write, read, reopen (memory store).

Each case writes a partial selection, so some chunks are never written and
must read as the fill value, and edge chunks are partial; the array is then
reopened from the store and read again. Cases cover C and F order, the
``bytes`` codec with both byte orders for the fixed-size types, compression,
and 0-d and empty arrays.
"""

from __future__ import annotations

import json
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import CodecError, CorruptChunkError, MetadataError
from zarrforge_dtypes.ml_floats import ALL as ML_FLOATS
from zarrforge_std.stores.memory import MemoryStore

T = np.dtypes.StringDType()
VLEN_UTF8 = {"name": "vlen-utf8"}
VLEN_BYTES = {"name": "vlen-bytes"}
ZSTD = [{"name": "zstd", "configuration": {"level": 1, "checksum": False}}]


def strings(shape, seed=0):
    rng = np.random.default_rng(seed)
    alphabet = ["", "a", "ß", "日本", "😀", "x" * 40, "\u0000z", "tab\t"]
    flat = [
        alphabet[i] + str(j) * int(j % 3)
        for j, i in enumerate(rng.integers(0, len(alphabet), int(np.prod(shape))))
    ]
    return np.array(flat, dtype=T).reshape(shape)


def byte_strings(shape, seed=0):
    rng = np.random.default_rng(seed)
    out = np.empty(int(np.prod(shape)), dtype=object)
    for i in range(out.size):
        out[i] = rng.bytes(int(rng.integers(0, 12))) + b"\x00" * int(i % 2)
    return out.reshape(shape)


def fixed_strings(shape, n, seed=0):
    return np.array(
        ["".join(chr(0x61 + (i + k) % 26) for k in range(i % (n + 1))) for i in range(int(np.prod(shape)))],
        dtype=f"U{n}",
    ).reshape(shape)


def times(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.integers(-(10**12), 10**12, size=shape).astype("i8")
    values.reshape(-1)[::5] = np.iinfo(np.int64).min  # some NaT
    return values.view(dtype)


def floats(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    info = ml_dtypes.finfo(dtype)
    values = rng.uniform(-float(info.max), float(info.max), size=shape)
    if np.dtype(dtype) == np.dtype(ml_dtypes.float8_e8m0fnu):
        values = np.abs(values) + float(info.tiny)
    return values.astype(dtype)


def equal(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "OT":
        return all(x == y and type(x) is type(y) for x, y in zip(a.ravel().tolist(), b.ravel().tolist()))
    return a.tobytes() == b.tobytes()  # bitwise: NaN, NaT and -0.0 compare exactly


def filled(shape, dtype, fill):
    out = np.empty(shape, dtype=dtype)
    out[...] = fill
    return out


CASES = [
    # id, creation keywords, data maker, fill value as read back
    ("string", {"dtype": "string", "serializer": VLEN_UTF8, "fill_value": "∅"}, lambda s: strings(s), "∅"),
    ("string-str", {"dtype": str, "serializer": VLEN_UTF8}, lambda s: strings(s, 1), ""),
    (
        "string-StringDType-zstd",
        {"dtype": T, "serializer": VLEN_UTF8, "compressors": ZSTD},
        lambda s: strings(s, 2),
        "",
    ),
    (
        "bytes",
        {"dtype": "bytes", "serializer": VLEN_BYTES, "fill_value": b"\x00\xff"},
        lambda s: byte_strings(s),
        b"\x00\xff",
    ),
    (
        "bytes-type-zstd",
        {"dtype": bytes, "serializer": VLEN_BYTES, "compressors": ZSTD},
        lambda s: byte_strings(s, 1),
        b"",
    ),
    ("U5", {"dtype": "U5", "fill_value": "fill"}, lambda s: fixed_strings(s, 5), np.str_("fill")),
    (
        "U3-big",
        {"dtype": "U3", "serializer": {"name": "bytes", "configuration": {"endian": "big"}}},
        lambda s: fixed_strings(s, 3),
        np.str_(""),
    ),
    ("datetime64[ms]", {"dtype": "datetime64[ms]"}, lambda s: times(s, "M8[ms]"), np.datetime64("NaT", "ms")),
    (
        "datetime64[10s]-big",
        {
            "dtype": "datetime64[10s]",
            "fill_value": 0,
            "serializer": {"name": "bytes", "configuration": {"endian": "big"}},
        },
        lambda s: times(s, "M8[10s]"),
        np.array(0, dtype="M8[10s]")[()],  # np.datetime64(0, "10s"); numpy's stubs know no "10s" unit
    ),
    (
        "timedelta64[us]",
        {"dtype": "timedelta64[us]", "fill_value": np.timedelta64(1, "s")},
        lambda s: times(s, "m8[us]"),
        np.timedelta64(10**6, "us"),
    ),
    *[
        (
            cls.name,
            {"dtype": cls.name, "fill_value": "NaN" if cls.nan_bits is not None else 1},
            (lambda name: lambda s: floats(s, getattr(ml_dtypes, name)))(cls.name),
            np.array(np.nan if cls.nan_bits is not None else 1).astype(getattr(ml_dtypes, cls.name))[()],
        )
        for cls in ML_FLOATS
    ],
    (
        "bfloat16-big",
        {"dtype": ml_dtypes.bfloat16, "serializer": {"name": "bytes", "configuration": {"endian": "big"}}},
        lambda s: floats(s, ml_dtypes.bfloat16),
        ml_dtypes.bfloat16(0),
    ),
]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_round_trip(case, order):
    _, kwargs, make, fill = case
    store = MemoryStore()
    shape, chunks = (7, 5), (3, 2)
    a = zf.create_array(
        store, "x", shape=shape, chunks=chunks, order=order, **{"compressors": None, **kwargs}
    )
    expected = filled(shape, a.dtype, fill)
    assert equal(a[...], expected)  # nothing written: all fill value
    data = make((5, 4))
    a[1:6, :4] = data
    expected[1:6, :4] = data
    assert equal(a[...], expected)
    assert equal(a[2:4, 1], expected[2:4, 1])
    # chunks entirely outside the written region were never stored
    assert store.get("x/c/2/2") is None and store.get("x/c/0/2") is None
    b = zf.open_array(store, "x", order=order)
    assert b.dtype == a.dtype and b.metadata == a.metadata
    assert equal(b[...], expected)
    assert equal(np.asarray(b.fill_value, dtype=a.dtype), filled((), a.dtype, fill))
    # overwrite part of it with the fill value: those chunks are deleted again
    b = zf.open_array(store, "x", mode="r+")
    b[...] = filled(shape, a.dtype, fill)
    assert list(b.stored_chunks()) == []
    assert equal(b[...], filled(shape, a.dtype, fill))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_zero_d_and_empty(case):
    _, kwargs, make, fill = case
    a = zf.create_array(None, shape=(), **{"compressors": None, **kwargs})
    assert equal(np.asarray(a[...], dtype=a.dtype), filled((), a.dtype, fill))
    value = make((1,))
    a[...] = value.reshape(())
    assert equal(np.asarray(a[...], dtype=a.dtype), value.reshape(()))
    e = zf.create_array(None, shape=(0, 3), chunks=(2, 2), **{"compressors": None, **kwargs})
    assert e[...].shape == (0, 3)


def test_single_element_writes_and_scalars():
    s = zf.create_array(None, shape=(4,), chunks=(3,), dtype="string", serializer=VLEN_UTF8)
    s[2] = "héllo"
    s[3] = "tail"
    assert s[2] == "héllo" and type(s[2]) is str and s[0] == ""
    b = zf.create_array(None, shape=(4,), chunks=(3,), dtype="bytes", serializer=VLEN_BYTES)
    b[1] = b"\x00\x01"
    assert b[1] == b"\x00\x01" and type(b[1]) is bytes and b[0] == b""


@pytest.mark.parametrize(
    "dtype, serializer, value", [("bytes", VLEN_BYTES, b"a\x00"), ("string", VLEN_UTF8, "a\x00")]
)
def test_trailing_nul_in_plain_python_values(dtype, serializer, value):
    a = zf.create_array(None, shape=(2,), dtype=dtype, serializer=serializer)
    a[0] = value
    a[1:] = [value]
    assert a[0] == value and a[1] == value


def test_stored_layout_of_fixed_size_types():
    # fixed_length_utf32 and datetime64 through the std bytes codec: zero-padded UTF-32 and
    # int64 in the configured byte order
    store = MemoryStore()
    u = zf.create_array(
        store,
        "u",
        shape=(2,),
        dtype="U3",
        compressors=None,
        serializer={"name": "bytes", "configuration": {"endian": "big"}},
    )
    u[:] = ["Hi", "é😀"]
    assert store.get("u/c/0") == "Hi\0é😀\0".encode("utf-32-be")
    d = zf.create_array(store, "d", shape=(2,), dtype="datetime64[s]", compressors=None)
    d[:] = np.array(["1970-01-01T00:00:01", "NaT"], dtype="M8[s]")
    assert store.get("d/c/0") == np.array([1, -(2**63)], "<i8").tobytes()
    f = zf.create_array(store, "f", shape=(2,), dtype="bfloat16", compressors=None)
    f[:] = [1.5, -2]
    assert store.get("f/c/0") == bytes([0xC0, 0x3F, 0x00, 0xC0])
    f = zf.create_array(
        store,
        "fb",
        shape=(2,),
        dtype="bfloat16",
        compressors=None,
        serializer={"name": "bytes", "configuration": {"endian": "big"}},
    )
    f[:] = [1.5, -2]
    assert store.get("fb/c/0") == bytes([0x3F, 0xC0, 0xC0, 0x00])
    assert f[:].tolist() == [1.5, -2]
    assert json.loads(store.get("f/zarr.json"))["codecs"][0] == {
        "name": "bytes",
        "configuration": {"endian": "little"},
    }
    g = zf.create_array(store, "g", shape=(2,), dtype="float8_e4m3fnuz", compressors=None)
    g[:] = [1.0, float("nan")]
    assert store.get("g/c/0") == bytes([0x40, 0x80])
    assert json.loads(store.get("g/zarr.json"))["codecs"][0] == {"name": "bytes"}


def test_vlen_chunks_are_padded_with_the_fill_value():
    store = MemoryStore()
    a = zf.create_array(
        store,
        "a",
        shape=(3,),
        chunks=(2,),
        dtype="string",
        serializer=VLEN_UTF8,
        compressors=None,
        fill_value="f",
    )
    a[:] = ["x", "yy", "z"]
    # the edge chunk holds a full chunk of items; the one past the edge is the fill value
    assert store.get("a/c/1") == b"\x02\x00\x00\x00" + b"\x01\x00\x00\x00z" + b"\x01\x00\x00\x00f"


def test_metadata_documents():
    store = MemoryStore()
    zf.create_array(store, "s", shape=(2,), dtype=str, serializer=VLEN_UTF8, fill_value="a")
    zf.create_array(
        store, "b", shape=(2,), dtype="bytes", serializer="vlen-bytes", fill_value=b"\x01\x02\x03"
    )
    s = json.loads(store.get("s/zarr.json"))
    b = json.loads(store.get("b/zarr.json"))
    assert s["data_type"] == "string" and s["fill_value"] == "a"
    assert s["codecs"][0] == {"name": "vlen-utf8", "configuration": {}}
    assert b["data_type"] == "bytes" and b["fill_value"] == "AQID"
    assert b["codecs"][0] == {"name": "vlen-bytes", "configuration": {}}


def test_zarr_python_bytes_name_is_kept():
    store = MemoryStore()
    zf.create_array(store, "b", shape=(2,), dtype="bytes", serializer=VLEN_BYTES)
    document = json.loads(store.get("b/zarr.json"))
    document["data_type"] = "variable_length_bytes"
    store.set("b/zarr.json", json.dumps(document).encode())
    b = zf.open_array(store, "b", mode="r+")
    b[:] = np.array([b"a", b"b"], dtype=object)
    assert b.metadata["data_type"] == "variable_length_bytes"
    b.attrs["k"] = 1  # rewrites zarr.json
    assert json.loads(store.get("b/zarr.json"))["data_type"] == "variable_length_bytes"
    assert list(zf.open_array(store, "b")[:]) == [b"a", b"b"]


@pytest.mark.parametrize(
    "dtype, serializer",
    [
        ("string", {"name": "bytes"}),
        ("bytes", {"name": "bytes"}),
        ("string", VLEN_BYTES),
        ("bytes", VLEN_UTF8),
        ("U4", VLEN_UTF8),
        ("int32", VLEN_BYTES),
    ],
)
def test_incompatible_serializers_are_refused(dtype, serializer):
    with pytest.raises(MetadataError) as info:
        zf.create_array(None, shape=(2,), dtype=dtype, serializer=serializer)
    assert info.value.field.startswith("codecs[0]") or info.value.field.startswith("serializer")


def test_vlen_codec_configuration():
    for name in ("vlen-utf8", "vlen-bytes"):
        with pytest.raises(MetadataError) as info:
            zf.create_array(
                None, shape=(2,), dtype="string", serializer={"name": name, "configuration": {"x": 1}}
            )
        assert "configuration" in info.value.field


def test_writing_text_to_a_bytes_array_is_a_codec_error():
    b = zf.create_array(None, shape=(2,), dtype="bytes", serializer=VLEN_BYTES)
    with pytest.raises(CodecError, match="element 0"):
        b[:] = np.array(["text", "more"], dtype=object)


def test_corrupt_stored_chunk_is_reported_with_its_key():
    store = MemoryStore()
    a = zf.create_array(
        store, "a", shape=(4,), chunks=(2,), dtype="string", serializer=VLEN_UTF8, compressors=None
    )
    a[:] = ["a", "b", "c", "d"]
    store.set("a/c/1", b"\x02\x00\x00\x00\x01\x00\x00\x00c\x05\x00\x00\x00d")
    with pytest.raises(CorruptChunkError) as info:
        a[:]
    assert "a/c/1" in str(info.value)
    assert list(a[:2]) == ["a", "b"]


@pytest.mark.parametrize("dtype, value, codec", [("string", "x", "vlen-utf8"), ("bytes", b"x", "vlen-bytes")])
def test_default_serializer(dtype, value, codec):
    a = zf.create_array(None, shape=(2,), dtype=dtype)
    a[0] = value
    assert a[0] == value
    assert a.metadata["codecs"][0] == {"name": codec, "configuration": {}}


def test_ml_dtypes_is_imported_only_when_needed():
    code = (
        "import sys, zarrforge as zf\n"
        "zf.create_array(None, shape=(1,), dtype='f4')\n"
        "zf.create_array(None, shape=(1,), dtype='U3')\n"
        "zf.create_array(None, shape=(1,), dtype='string', serializer='vlen-utf8')\n"
        "assert 'ml_dtypes' not in sys.modules, 'ml_dtypes imported too early'\n"
        "assert zf.create_array(None, shape=(1,), dtype='bfloat16').dtype.name == 'bfloat16'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_object_arrays_of_str_write_into_string_arrays():
    a = zf.create_array(None, shape=(3,), dtype="string")
    a[:] = np.array(["a", "bb", "ccc"], dtype=object)
    assert a[:].tolist() == ["a", "bb", "ccc"]
