"""The vlen-utf8 / vlen-bytes codecs: byte layout, and decoding hostile input.

The layout is checked against numcodecs' VLenUTF8 / VLenBytes in both
directions. Every malformed buffer must raise ``CorruptChunkError`` (never
another exception, never a large allocation); hypothesis feeds random and
mutated buffers.
"""

from __future__ import annotations

import struct
import tracemalloc

import numcodecs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrforge.abc.codec import ChunkSpec
from zarrforge.errors import CodecError, CorruptChunkError, MetadataError
from zarrforge_dtypes import vlen_format
from zarrforge_dtypes.bytes_type import Bytes
from zarrforge_dtypes.string_type import String
from zarrforge_dtypes.vlen_codecs import VLenBytesCodec, VLenUTF8Codec
from zarrforge_std.memory_layouts import COrder

T = np.dtypes.StringDType()
UTF8 = VLenUTF8Codec()
BYTES = VLenBytesCodec()


def spec(shape, data_type):
    return ChunkSpec(tuple(shape), data_type, data_type.default_fill_value(), COrder())


def u32(n):
    return struct.pack("<I", n)


def frame(*items):
    return u32(len(items)) + b"".join(u32(len(i)) + i for i in items)


# --- layout ----------------------------------------------------------------------------------


def test_utf8_layout_is_c_order_and_matches_numcodecs():
    chunk = np.array([["a", "ßü"], ["", "日本😀"]], dtype=T)
    data = UTF8.encode(chunk, spec((2, 2), String()))
    assert data == frame(b"a", "ßü".encode(), b"", "日本😀".encode())
    ours_from_fortran = UTF8.encode(np.asfortranarray(chunk), spec((2, 2), String()))
    assert ours_from_fortran == data
    assert data == bytes(numcodecs.VLenUTF8().encode(chunk.astype(object)))
    decoded = UTF8.decode(data, spec((2, 2), String()))
    assert decoded.dtype == T and decoded.tolist() == chunk.tolist()


def test_bytes_layout_matches_numcodecs():
    chunk = np.empty(3, dtype=object)
    chunk[:] = [b"\x00", b"", b"xyz\x00"]
    data = BYTES.encode(chunk, spec((3,), Bytes()))
    assert data == frame(b"\x00", b"", b"xyz\x00")
    assert data == bytes(numcodecs.VLenBytes().encode(chunk))
    decoded = BYTES.decode(memoryview(data), spec((3,), Bytes()))
    assert decoded.dtype == object and decoded.tolist() == chunk.tolist()
    assert all(type(v) is bytes for v in decoded.tolist())


def test_numcodecs_output_decodes():
    chunk = np.array(["x", "", "y" * 300, "é"], dtype=object)
    encoded = numcodecs.VLenUTF8().encode(chunk)
    assert UTF8.decode(encoded, spec((2, 2), String())).tolist() == [["x", ""], ["y" * 300, "é"]]
    raw = np.array([b"1", b"22", b""], dtype=object)
    assert BYTES.decode(numcodecs.VLenBytes().encode(raw), spec((3,), Bytes())).tolist() == [b"1", b"22", b""]


def test_empty_and_zero_d_chunks():
    assert UTF8.encode(np.array([], dtype=T), spec((0,), String())) == u32(0)
    assert UTF8.decode(u32(0), spec((0, 3), String())).shape == (0, 3)
    assert BYTES.decode(u32(0), spec((0,), Bytes())).shape == (0,)
    zero_d = np.array("z", dtype=T)
    assert UTF8.decode(UTF8.encode(zero_d, spec((), String())), spec((), String()))[()] == "z"


def test_bytes_like_elements_are_stored_as_bytes():
    chunk = np.empty(3, dtype=object)
    chunk[:] = [bytearray(b"ab"), memoryview(b"cd"), np.bytes_(b"ef")]
    assert BYTES.encode(chunk, spec((3,), Bytes())) == frame(b"ab", b"cd", b"ef")


@pytest.mark.parametrize(
    "codec, element", [(BYTES, "text"), (BYTES, None), (BYTES, 3), (UTF8, b"bytes"), (UTF8, None), (UTF8, 1)]
)
def test_encoding_wrong_elements_is_a_codec_error(codec, element):
    chunk = np.empty(2, dtype=object)
    chunk[:] = [element, element]
    data_type = Bytes() if codec is BYTES else String()
    with pytest.raises(CodecError, match="element 0"):
        codec.encode(chunk, spec((2,), data_type))


def test_to_json_and_configuration():
    assert UTF8.to_json() == {"name": "vlen-utf8", "configuration": {}}
    assert BYTES.to_json() == {"name": "vlen-bytes", "configuration": {}}
    assert VLenUTF8Codec.from_json("vlen-utf8", None) == UTF8
    assert VLenBytesCodec.from_json("vlen-bytes", {}) == BYTES
    for bad in ({"x": 1}, [1], "x"):
        with pytest.raises(MetadataError) as info:
            VLenUTF8Codec.from_json("vlen-utf8", bad)
        assert info.value.field == "configuration"


# --- hostile input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, shape, message",
    [
        (b"", (1,), "4-byte item count"),
        (b"\x01\x00\x00", (1,), "4-byte item count"),
        (u32(2) + u32(1) + b"a", (1,), "declares 2 item"),  # count != shape
        (u32(0), (1,), "declares 0 item"),
        (u32(1), (1,), "need at least 8 bytes"),  # no length
        (u32(2) + u32(0) + b"\x00", (2,), "need at least 12 bytes"),
        (u32(1) + u32(5) + b"abc", (1,), "past the end"),  # truncated item
        (u32(1) + u32(2**32 - 1) + b"abc", (1,), "past the end"),  # absurd length
        (u32(2) + u32(3) + b"abc" + b"\x00\x00", (2,), "inside the length of item 1"),
        (u32(1) + u32(1) + b"ab", (1,), "follow the last"),  # trailing bytes
        (frame(b"a", b"b", b"c"), (2,), "declares 3 item"),
    ],
)
@pytest.mark.parametrize("codec", [UTF8, BYTES], ids=["utf8", "bytes"])
def test_malformed_buffers(codec, data, shape, message):
    data_type = String() if codec is UTF8 else Bytes()
    with pytest.raises(CorruptChunkError, match=message):
        codec.decode(data, spec(shape, data_type))


@pytest.mark.parametrize("item", [b"\xff", b"\xc3", b"\xed\xa0\x80", b"a\x80b", b"\xf8\x88\x80\x80\x80"])
def test_invalid_utf8_is_corrupt(item):
    with pytest.raises(CorruptChunkError, match="item 1 is not valid UTF-8"):
        UTF8.decode(frame(b"ok", item), spec((2,), String()))
    # the same bytes are fine for vlen-bytes
    assert BYTES.decode(frame(b"ok", item), spec((2,), Bytes()))[1] == item


def test_huge_declared_count_allocates_nothing_large():
    # A chunk shape of 10**9 elements and a header claiming exactly that many items:
    # the size check must fail before a billion-element array is allocated.
    data = u32(10**9) + u32(1) + b"x"
    tracemalloc.start()
    try:
        with pytest.raises(CorruptChunkError, match="need at least"):
            UTF8.decode(data, spec((10**9,), String()))
        with pytest.raises(CorruptChunkError, match="need at least"):
            BYTES.decode(data, spec((10**5, 10**4), Bytes()))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_many_empty_items_are_fine():
    n = 100_000
    data = u32(n) + u32(0) * n
    out = BYTES.decode(data, spec((n,), Bytes()))
    assert out.shape == (n,) and out[0] == b"" and out[-1] == b""


@settings(max_examples=400, deadline=None)
@given(data=st.binary(max_size=64), n=st.integers(0, 6))
def test_random_bytes_only_ever_raise_corrupt_chunk(data, n):
    for codec, data_type in ((UTF8, String()), (BYTES, Bytes())):
        try:
            out = codec.decode(data, spec((n,), data_type))
        except CorruptChunkError:
            continue
        assert out.shape == (n,)


@settings(max_examples=300, deadline=None)
@given(
    items=st.lists(st.text(max_size=8), max_size=6),
    cut=st.integers(0, 200),
    flip=st.tuples(st.integers(0, 200), st.integers(1, 255)),
)
def test_mutated_valid_buffers(items, cut, flip):
    chunk = np.array(items, dtype=T)
    s = spec((len(items),), String())
    data = UTF8.encode(chunk, s)
    assert UTF8.decode(data, s).tolist() == items
    for damaged in (
        data[:cut],
        data[: flip[0]] + bytes([data[flip[0]] ^ flip[1]]) + data[flip[0] + 1 :]
        if flip[0] < len(data)
        else data + b"\x00",
    ):
        try:
            out = UTF8.decode(damaged, s)
        except CorruptChunkError:
            continue
        assert out.shape == (len(items),)


def test_pack_refuses_nothing_it_can_frame():
    assert vlen_format.unpack(vlen_format.pack([b"", b"a" * 1000]), 2) == [b"", b"a" * 1000]


# --- validate ---------------------------------------------------------------------------------


def test_validate_pairs_codecs_with_their_data_types():
    from zarrforge_dtypes.bytes_type import VariableLengthBytes
    from zarrforge_dtypes.utf32_type import FixedLengthUTF32

    UTF8.validate(spec((1,), String()))
    BYTES.validate(spec((1,), Bytes()))
    BYTES.validate(spec((1,), VariableLengthBytes()))
    for codec, data_type in ((UTF8, Bytes()), (BYTES, String()), (UTF8, FixedLengthUTF32(4))):
        with pytest.raises(MetadataError) as info:
            codec.validate(spec((1,), data_type))
        assert info.value.field == "name"


@settings(max_examples=200, deadline=None)
@given(items=st.lists(st.binary(max_size=20), max_size=8))
def test_bytes_round_trip(items):
    chunk = np.empty(len(items), dtype=object)
    chunk[:] = items
    s = spec((len(items),), Bytes())
    data = BYTES.encode(chunk, s)
    assert data == bytes(numcodecs.VLenBytes().encode(chunk))
    assert BYTES.decode(data, s).tolist() == items
