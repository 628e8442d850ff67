"""Fill value encodings read from (and written back to) ``zarr.json``.

Every case creates an array, replaces its ``zarr.json`` with a copy whose
``fill_value`` is edited, and opens it. Valid encodings must give the right
value bit for bit, must be what never-written chunks read as and what pads
edge chunks in the store, and must be written back in the same encoding when
the metadata is rewritten. Invalid encodings must raise ``MetadataError``
naming ``fill_value`` and the offending value.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError
from zarrforge_std.stores.memory import MemoryStore

NUMPY = {"r8": "V1", "r16": "V2", "r24": "V3"}


def np_dtype(name: str) -> np.dtype:
    return np.dtype(NUMPY.get(name, name))


def with_fill_value(dtype: str, fill_value, *, shape=(3,), chunks=(2,)):
    """A store holding array ``a`` whose zarr.json says ``fill_value``."""
    store = MemoryStore()
    zf.create_array(store, "a", shape=shape, dtype=dtype, chunks=chunks, compressors=None)
    stored = store.get("a/zarr.json")
    assert stored is not None
    document = json.loads(stored)
    document["fill_value"] = fill_value
    store.set("a/zarr.json", json.dumps(document).encode())
    return store


def bits(value, dtype: np.dtype) -> bytes:
    return np.asarray(value, dtype=dtype).tobytes()


def stored_fill_json(store) -> object:
    return json.loads(store.get("a/zarr.json"))["fill_value"]


# (data type, fill_value in zarr.json, expected value as bytes of the little-endian item,
#  fill_value written back)
def f16(u):
    return np.array([u], "<u2").view("<f2")[0]


def f32(u):
    return np.array([u], "<u4").view("<f4")[0]


def f64(u):
    return np.array([u], "<u8").view("<f8")[0]


def c64(re, im):
    v = np.zeros((), "<c8")
    v.real, v.imag = re, im
    return v[()]


def c128(re, im):
    v = np.zeros((), "<c16")
    v.real, v.imag = re, im
    return v[()]


VALID = [
    # floats: special strings
    ("float16", "NaN", np.float16(np.nan), "NaN"),
    ("float32", "NaN", np.float32(np.nan), "NaN"),
    ("float64", "NaN", np.float64(np.nan), "NaN"),
    ("float16", "Infinity", np.float16(np.inf), "Infinity"),
    ("float32", "Infinity", np.float32(np.inf), "Infinity"),
    ("float64", "Infinity", np.float64(np.inf), "Infinity"),
    ("float16", "-Infinity", np.float16(-np.inf), "-Infinity"),
    ("float32", "-Infinity", np.float32(-np.inf), "-Infinity"),
    ("float64", "-Infinity", np.float64(-np.inf), "-Infinity"),
    # floats: hex bit patterns
    ("float32", "0x7fc00001", f32(0x7FC00001), "0x7fc00001"),
    ("float32", "0x7f800001", f32(0x7F800001), "0x7f800001"),  # signalling NaN
    ("float32", "0xffc00000", f32(0xFFC00000), "0xffc00000"),  # negative quiet NaN
    ("float64", "0x3ff0000000000000", np.float64(1.0), 1.0),
    ("float64", "0x7ff8000000000001", f64(0x7FF8000000000001), "0x7ff8000000000001"),
    ("float64", "0x7ff0000000000000", np.float64(np.inf), "Infinity"),
    ("float16", "0x3c00", np.float16(1.0), 1.0),
    ("float16", "0x7e01", f16(0x7E01), "0x7e01"),
    ("float32", "0x3F800000", np.float32(1.0), 1.0),  # upper-case hex digits
    ("float32", "0x80000000", np.float32(-0.0), -0.0),
    # floats: numbers
    ("float32", 1.5, np.float32(1.5), 1.5),
    ("float64", -2, np.float64(-2.0), -2.0),
    ("float64", -0.0, np.float64(-0.0), -0.0),
    ("float16", 65504, np.float16(65504), 65504.0),
    # complex pairs
    ("complex64", [1, 2], np.complex64(1 + 2j), [1.0, 2.0]),
    ("complex128", [1, 2], np.complex128(1 + 2j), [1.0, 2.0]),
    ("complex64", ["NaN", "-Infinity"], c64(np.nan, -np.inf), ["NaN", "-Infinity"]),
    ("complex128", ["Infinity", "NaN"], c128(np.inf, np.nan), ["Infinity", "NaN"]),
    ("complex64", ["0x7fc00001", 0.5], c64(f32(0x7FC00001), 0.5), ["0x7fc00001", 0.5]),
    (
        "complex128",
        [-0.0, "0x7ff8000000000001"],
        c128(-0.0, f64(0x7FF8000000000001)),
        [-0.0, "0x7ff8000000000001"],
    ),
    # integers
    ("int8", -128, np.int8(-128), -128),
    ("int8", 127, np.int8(127), 127),
    ("int16", -12345, np.int16(-12345), -12345),
    ("int32", 42, np.int32(42), 42),
    ("int64", -(2**63), np.int64(-(2**63)), -(2**63)),
    ("int64", 2**63 - 1, np.int64(2**63 - 1), 2**63 - 1),
    ("uint8", 255, np.uint8(255), 255),
    ("uint16", 65535, np.uint16(65535), 65535),
    ("uint32", 4000000000, np.uint32(4000000000), 4000000000),
    ("uint64", 2**64 - 1, np.uint64(2**64 - 1), 2**64 - 1),
    ("uint64", 2**53 + 1, np.uint64(2**53 + 1), 2**53 + 1),  # not representable as a double
    # bool
    ("bool", True, np.bool_(True), True),
    ("bool", False, np.bool_(False), False),
    ("bool", 1, np.bool_(True), True),  # legacy spelling: read, written as true
    ("bool", 0, np.bool_(False), False),
    # raw bits
    ("r8", [255], np.frombuffer(b"\xff", "V1")[0], [255]),
    ("r16", [1, 2], np.frombuffer(b"\x01\x02", "V2")[0], [1, 2]),
    ("r24", [0, 128, 7], np.frombuffer(b"\x00\x80\x07", "V3")[0], [0, 128, 7]),
]


def _id(case):
    return f"{case[0]}-{json.dumps(case[1])}"


@pytest.mark.parametrize("dtype, encoded, expected, written_back", VALID, ids=[_id(c) for c in VALID])
def test_valid_fill_value_is_decoded_bit_for_bit(dtype, encoded, expected, written_back):
    store = with_fill_value(dtype, encoded)
    a = zf.open_array(store, "a")
    dt = np_dtype(dtype)
    assert bits(a.fill_value, dt) == bits(expected, dt)
    # never-written chunks read as the fill value, bit for bit
    data = a[...]
    assert data.dtype == dt
    assert np.ascontiguousarray(data).tobytes() == bits(expected, dt) * 3


@pytest.mark.parametrize("dtype, encoded, expected, written_back", VALID, ids=[_id(c) for c in VALID])
def test_valid_fill_value_is_written_back_in_the_same_encoding(dtype, encoded, expected, written_back):
    store = with_fill_value(dtype, encoded)
    a = zf.open_array(store, "a", mode="r+")
    assert _json_equal(a.metadata["fill_value"], written_back)
    a.attrs["touched"] = True  # rewrites zarr.json
    assert _json_equal(stored_fill_json(store), written_back)
    b = zf.open_array(store, "a")
    assert bits(b.fill_value, np_dtype(dtype)) == bits(expected, np_dtype(dtype))


@pytest.mark.parametrize("dtype, encoded, expected, written_back", VALID, ids=[_id(c) for c in VALID])
def test_valid_fill_value_pads_edge_chunks_and_fills_unwritten_elements(
    dtype, encoded, expected, written_back
):
    store = with_fill_value(dtype, encoded)
    a = zf.open_array(store, "a", mode="r+")
    dt = np_dtype(dtype)
    other = np.zeros((), dtype=dt)
    if other.tobytes() == bits(expected, dt):
        other = np.frombuffer(b"\x01" * dt.itemsize, dtype=dt)[0] if dt.kind != "b" else np.True_
    # the edge chunk (index 1) holds element 2 and one element of padding
    a[2] = other
    little = dt.newbyteorder("<") if dt.kind not in "bV" and dt.itemsize > 1 else dt
    assert store.get("a/c/1") == np.array([other, expected], dtype=dt).astype(little).tobytes()
    result = a[...]
    assert np.ascontiguousarray(result).tobytes() == bits(expected, dt) * 2 + bits(other, dt)
    # writing the fill value itself back leaves no chunk in the store
    a[2] = expected
    assert store.get("a/c/1") is None


def _json_equal(actual, expected) -> bool:
    """JSON equality that also tells -0.0 from 0.0."""
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(_json_equal(x, y) for x, y in zip(actual, expected))
        )
    if isinstance(expected, float):
        return (
            isinstance(actual, (int, float))
            and not isinstance(actual, bool)
            and actual == expected
            and math.copysign(1, actual) == math.copysign(1, expected)
        )
    return type(actual) is type(expected) and actual == expected


def test_payload_nan_fill_value_survives_resize_and_reopen():
    store = with_fill_value("float32", "0x7fc00001", shape=(4,), chunks=(3,))
    a = zf.open_array(store, "a", mode="r+")
    a[...] = [1, 2, 3, 4]
    a.resize(2)
    a.resize(5)
    assert stored_fill_json(store) == "0x7fc00001"
    tail = zf.open_array(store, "a")[2:]
    assert tail.view("<u4").tolist() == [0x7FC00001] * 3


def test_canonical_nan_data_is_not_mistaken_for_a_payload_nan_fill_value():
    store = with_fill_value("float32", "0x7fc00001", shape=(2,), chunks=(2,))
    a = zf.open_array(store, "a", mode="r+")
    a[...] = np.float32(np.nan)  # canonical NaN: different bits from the fill value
    assert store.get("a/c/0") is not None
    assert a[...].view("<u4").tolist() == [0x7FC00000] * 2


def test_negative_zero_fill_value_differs_from_positive_zero_data():
    store = with_fill_value("float64", -0.0, shape=(2,), chunks=(2,))
    a = zf.open_array(store, "a", mode="r+")
    a[...] = 0.0
    assert store.get("a/c/0") is not None
    assert [math.copysign(1, v) for v in a[...]] == [1.0, 1.0]


# --- invalid encodings ---------------------------------------------------------------------

# (data type, fill_value in zarr.json, the value the message must name)
INVALID = [
    ("uint8", 300, 300),
    ("uint8", -1, -1),
    ("int8", 128, 128),
    ("int16", -32769, -32769),
    ("uint64", 2**64, 2**64),
    ("int64", 2**63, 2**63),
    ("int32", True, True),
    ("int32", 1.5, 1.5),
    ("int32", "1", "1"),
    ("int32", "NaN", "NaN"),
    ("int32", None, None),
    ("int32", [1], [1]),
    ("bool", 2, 2),  # 0 and 1 are read leniently as false/true (docs/formats.md)
    ("bool", -1, -1),
    ("bool", "true", "true"),
    ("bool", None, None),
    ("float32", "nan", "nan"),
    ("float32", "inf", "inf"),
    ("float64", "infinity", "infinity"),
    ("float64", "-inf", "-inf"),
    ("float32", True, True),
    ("float32", None, None),
    ("float32", [1.0], [1.0]),
    ("float32", "0x123", "0x123"),
    ("float32", "0x7fc0000", "0x7fc0000"),
    ("float32", "0x7fc000001", "0x7fc000001"),
    ("float32", "0x7fc0000g", "0x7fc0000g"),
    ("float64", "0x7fc00001", "0x7fc00001"),  # a float32 pattern for a float64
    ("float16", "0x7fc00001", "0x7fc00001"),
    ("float32", "1.5", "1.5"),
    ("complex64", [1], [1]),
    ("complex64", [1, 2, 3], [1, 2, 3]),
    ("complex64", 1.5, 1.5),
    ("complex128", "NaN", "NaN"),
    ("complex128", None, None),
    ("complex64", ["nan", 0], "nan"),
    ("complex128", [0, "0x123"], "0x123"),
    ("complex64", [True, 0], True),
    ("r16", [1], [1]),
    ("r16", [1, 2, 3], [1, 2, 3]),
    ("r16", [1, 256], [1, 256]),
    ("r16", [1, -1], [1, -1]),
    ("r16", [True, 1], [True, 1]),
    ("r16", "0x0102", "0x0102"),
    ("r16", 258, 258),
    ("r8", None, None),
]


def _names_value(message: str, value) -> bool:
    return repr(value) in message or json.dumps(value) in message


@pytest.mark.parametrize("dtype, encoded, offending", INVALID, ids=[_id(c) for c in INVALID])
def test_invalid_fill_value_raises_metadata_error_naming_field_and_value(dtype, encoded, offending):
    store = with_fill_value(dtype, encoded)
    with pytest.raises(MetadataError) as info:
        zf.open_array(store, "a")
    message = str(info.value)
    assert "fill_value" in message
    assert _names_value(message, offending), message
    assert info.value.field == "fill_value"
    assert "a/zarr.json" in message


@pytest.mark.parametrize(
    "dtype, value",
    [
        ("uint8", 300),
        ("int8", -129),
        ("int32", True),
        ("int32", 1.5),
        ("float32", "nan"),
        ("float32", "0x123"),
        ("complex64", [1]),
        ("r16", [1]),
        ("r16", [1, 256]),
        ("bool", 2),
    ],
)
def test_invalid_fill_value_at_creation_raises_metadata_error_and_writes_nothing(dtype, value):
    store = MemoryStore()
    with pytest.raises(MetadataError) as info:
        zf.create_array(store, "a", shape=(3,), dtype=dtype, chunks=(2,), compressors=None, fill_value=value)
    assert "fill_value" in str(info.value)
    assert _names_value(str(info.value), value)
    assert list(store.list()) == []


@pytest.mark.parametrize(
    "dtype, value, written",
    [
        ("float32", "NaN", "NaN"),
        ("float32", np.float32(np.nan), "NaN"),
        ("float32", f32(0x7FC00001), "0x7fc00001"),
        ("float32", "0x7fc00001", "0x7fc00001"),
        ("float64", float("-inf"), "-Infinity"),
        ("float64", -0.0, -0.0),
        ("complex64", (float("nan"), 1.0), ["NaN", 1.0]),
        ("complex128", 1 + 2j, [1.0, 2.0]),
        ("int16", -7, -7),
        ("uint64", 2**64 - 1, 2**64 - 1),
        ("bool", True, True),
        ("r16", b"\x01\x02", [1, 2]),
        ("r16", [3, 4], [3, 4]),
    ],
)
def test_fill_value_given_at_creation_is_encoded_in_metadata(dtype, value, written):
    store = MemoryStore()
    a = zf.create_array(store, "a", shape=(3,), dtype=dtype, chunks=(2,), compressors=None, fill_value=value)
    assert _json_equal(stored_fill_json(store), written)
    assert _json_equal(a.metadata["fill_value"], written)
    b = zf.open_array(store, "a")
    assert bits(b.fill_value, np_dtype(dtype)) == bits(a.fill_value, np_dtype(dtype))
