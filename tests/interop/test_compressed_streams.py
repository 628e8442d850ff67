"""Compressed chunks in the less common shapes their formats allow.

zstd chunks written as streaming frames, which do not record their decoded size.

Implementations usually compress a chunk in one call, which puts the content
size in the frame header; streaming compressors (the ``zstandard`` package's
``stream_writer``, ``zstd`` on the command line reading a pipe, ...) do not.
The zstd codec accepts any zstd frame, so every reader must decode both.

Each case: an array with the zstd codec is written by one implementation
(every chunk written through its API), then two of its chunks are replaced by
frames crafted with ``zstandard.ZstdCompressor().stream_writer`` -- the
interior chunk (0, 0) and the edge chunk (1, 1) (the latter with a content
checksum, and fed in several pieces so it holds several blocks) -- and every
implementation reads the array.

Also: zstd data made of several frames, or with skippable frames (RFC 8878:
"one or more frames"; decoders skip skippable frames), and gzip data made of
several members (RFC 1952), as produced by parallel or appending compressors.
zarrforge and zarr-python read them; tensorstore decodes the first frame or
member only and reports the chunk as too short (asserted).
"""

from __future__ import annotations

import gzip
import io
import struct

import _interop as X
import numpy as np
import pytest
import zstandard

import zarrforge as zf

CASE = X.Case("zstd-stream", "int32", (4, 5), (2, 3), (X.bytes_codec(), X.zstd(3)), fill=-1)
IMPLEMENTATIONS = ("zarrforge", *X.PEERS)


def streaming_frame(raw: bytes, *, checksum: bool = False, pieces: int = 1) -> bytes:
    buffer = io.BytesIO()
    compressor = zstandard.ZstdCompressor(level=3, write_checksum=checksum)
    with compressor.stream_writer(buffer, closefd=False) as writer:
        step = max(1, -(-len(raw) // pieces))
        for start in range(0, len(raw), step):
            writer.write(raw[start : start + step])
            writer.flush(zstandard.FLUSH_BLOCK)  # end a block: several blocks per frame
    frame = buffer.getvalue()
    # the point of the exercise: the frame header has no decoded size
    assert zstandard.get_frame_parameters(frame).content_size == zstandard.CONTENTSIZE_UNKNOWN
    assert zstandard.ZstdDecompressor().decompressobj().decompress(frame) == raw
    return frame


def chunk_bytes(values: np.ndarray, coords: tuple[int, int]) -> bytes:
    """The bytes codec's output for chunk ``coords`` of ``values`` (padded with the fill value)."""
    chunk = np.full(CASE.chunks, X.fill_scalar(CASE.dtype, CASE.fill_json), dtype="<i4")
    box = tuple(slice(c * n, (c + 1) * n) for c, n in zip(coords, CASE.chunks))
    part = values[box]
    chunk[tuple(slice(0, s) for s in part.shape)] = part
    return chunk.tobytes()


def test_crafted_frames_lack_the_content_size():
    raw = np.arange(6, dtype="<i4").tobytes()
    zstandard.ZstdDecompressor().decompress(zstandard.ZstdCompressor().compress(raw))  # one-shot: size known
    with pytest.raises(zstandard.ZstdError, match="could not determine content size"):
        zstandard.ZstdDecompressor().decompress(streaming_frame(raw))  # the one-shot API needs it


@pytest.mark.parametrize("reader", IMPLEMENTATIONS)
@pytest.mark.parametrize("writer", IMPLEMENTATIONS)
def test_chunks_written_as_streaming_zstd_frames(tmp_path, writer, reader):
    data = X.make_data(CASE.dtype, CASE.shape, seed=4)
    X.WRITERS[writer](tmp_path, CASE, data)
    assert X.stored_chunk_keys(tmp_path) == ["c/0/0", "c/0/1", "c/1/0", "c/1/1"]

    streamed = X.make_data(CASE.dtype, CASE.shape, seed=5)
    base = X.array_dir(tmp_path)
    (base / "c/0/0").write_bytes(streaming_frame(chunk_bytes(streamed, (0, 0))))
    (base / "c/1/1").write_bytes(streaming_frame(chunk_bytes(streamed, (1, 1)), checksum=True, pieces=3))

    expected = data.copy()
    expected[0:2, 0:3] = streamed[0:2, 0:3]
    expected[2:4, 3:5] = streamed[2:4, 3:5]
    view = X.READERS[reader](tmp_path)
    X.assert_same_bits(view.values, expected, f"{reader} reading {writer}'s array")
    # and the selection path that touches only the streamed chunks
    if reader == "zarrforge":
        a = zf.open_array(str(tmp_path), X.ARRAY)
        X.assert_same_bits(a.get_chunk((1, 1))[:2, :2], streamed[2:4, 3:5], "zarrforge get_chunk")
        X.assert_same_bits(a[3, 4], streamed[3, 4], "zarrforge single element")


# --------------------------------------------------------------------------------------
# several frames / members in one chunk

RAW = np.arange(10, 16, dtype="<i4")
HEAD, TAIL = RAW[:2].tobytes(), RAW[2:].tobytes()


def _frame(raw: bytes) -> bytes:
    return zstandard.ZstdCompressor(level=3).compress(raw)


def _skippable(magic: int, payload: bytes) -> bytes:
    return struct.pack("<II", magic, len(payload)) + payload


MULTI = {
    "zstd-two-frames": ("zstd", _frame(HEAD) + _frame(TAIL)),
    "zstd-two-streaming-frames": ("zstd", streaming_frame(HEAD) + streaming_frame(TAIL)),
    "zstd-skippable-then-frame": ("zstd", _skippable(0x184D2A50, b"meta") + _frame(RAW.tobytes())),
    "zstd-frame-then-skippable": ("zstd", _frame(RAW.tobytes()) + _skippable(0x184D2A5F, b"end")),
    "gzip-two-members": ("gzip", gzip.compress(HEAD, mtime=0) + gzip.compress(TAIL, mtime=0)),
}
# tensorstore stops after the first frame or member (a skippable frame counts as one)
TENSORSTORE_READS = {"zstd-frame-then-skippable"}


@pytest.mark.parametrize("reader", IMPLEMENTATIONS)
@pytest.mark.parametrize("writer", IMPLEMENTATIONS)
@pytest.mark.parametrize("variant", MULTI)
def test_chunk_of_several_frames_or_members(tmp_path, variant, writer, reader):
    """``writer`` creates the array and writes its chunk; the chunk is then replaced."""
    codec, payload = MULTI[variant]
    compressor = X.zstd(3) if codec == "zstd" else X.gzip(5)
    case = X.Case(variant, "int32", (6,), (6,), (X.bytes_codec(), compressor))
    X.WRITERS[writer](tmp_path, case, np.ones(6, dtype="int32"))
    assert X.stored_chunk_keys(tmp_path) == ["c/0"]
    (X.array_dir(tmp_path) / "c/0").write_bytes(payload)
    if reader == "tensorstore" and variant not in TENSORSTORE_READS:
        with pytest.raises(ValueError, match="Not enough data"):
            X.read_tensorstore(tmp_path)
        return
    X.assert_same_bits(X.READERS[reader](tmp_path).values, RAW.astype("int32"), f"{reader} {variant}")
