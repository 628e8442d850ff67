"""The one call that updates a chunk (issue #42): :meth:`ChunkUpdater.updated` chooses how
(whole chunk, partial codec, decode-modify-encode, plain) and answers with the stored
chunk or ``None`` (delete it); :meth:`ChunkUpdater.changed` does the same for a
change the caller computes on the decoded chunk (resizes)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.codec import ChunkSpec
from zarrforge.engine.chunk_context import current_chunk
from zarrforge.engine.chunk_update import KEEP, ChunkUpdater
from zarrforge.engine.codec_chain import CodecChain
from zarrforge.errors import ResourceLimitError
from zarrforge_std.stores.memory import MemoryStore

NO_LIMIT = (None, "")
WHOLE = (slice(0, 4), slice(0, 4))
ROW = (slice(1, 2), slice(0, 4))  # row 1 of a 4 x 4 chunk


def chain_and_spec(**options: Any) -> tuple[CodecChain, ChunkSpec]:
    """The codec chain of a new 8 x 8 int32 array with 4 x 4 chunks, fill value 0, and
    the spec of its chunk (0, 0)."""
    array = zf.create_array(
        MemoryStore(), "a", shape=(8, 8), chunks=(4, 4), dtype="int32", fill_value=0, **options
    )
    engine = array._engine_()
    return engine.chain, engine.spec_for((0, 0))


def update(
    updater: ChunkUpdater,
    old: bytes | None,
    spec: ChunkSpec,
    selection: tuple,
    values: Any,
    *,
    complete: bool = False,
    limit: Any = NO_LIMIT,
) -> Any:
    return updater.updated(
        old, spec, selection, values, complete=complete, coords=(0, 0), key="a/c/0/0", limit=limit
    )


def joined(result: Any) -> bytes:
    assert result is not None and result is not KEEP
    return b"".join(bytes(part) for part in result)


CHUNK = np.arange(1, 17, dtype="int32").reshape(4, 4)


def test_a_whole_chunk_is_encoded_from_the_values_without_reading_the_old_one():
    chain, spec = chain_and_spec()
    result = update(
        ChunkUpdater(chain, write_empty_chunks=False), b"not a chunk", spec, WHOLE, CHUNK, complete=True
    )
    assert joined(result) == chain.encode(CHUNK, spec)  # the old bytes were never decoded


def test_a_whole_chunk_is_encoded_from_the_callers_array_itself(monkeypatch):
    chain, spec = chain_and_spec()
    seen = []
    original = chain.encode_parts
    monkeypatch.setattr(chain, "encode_parts", lambda chunk, s: seen.append(chunk) or original(chunk, s))
    update(ChunkUpdater(chain, write_empty_chunks=False), None, spec, WHOLE, CHUNK, complete=True)
    assert len(seen) == 1 and seen[0] is CHUNK  # no copy


def test_a_part_of_a_stored_chunk_is_decoded_changed_and_encoded():
    chain, spec = chain_and_spec()
    old = chain.encode(CHUNK, spec)
    result = update(
        ChunkUpdater(chain, write_empty_chunks=False), old, spec, ROW, np.full((1, 4), 99, dtype="int32")
    )
    expected = CHUNK.copy()
    expected[1] = 99
    np.testing.assert_array_equal(chain.decode(joined(result), spec, key="k"), expected)


def test_a_part_of_a_chunk_never_written_starts_from_the_fill_value():
    chain, spec = chain_and_spec()
    result = update(
        ChunkUpdater(chain, write_empty_chunks=False), None, spec, ROW, np.full((1, 4), 5, dtype="int32")
    )
    expected = np.zeros((4, 4), dtype="int32")
    expected[1] = 5
    np.testing.assert_array_equal(chain.decode(joined(result), spec, key="k"), expected)


@pytest.mark.parametrize("compressors", [None, "auto"], ids=["plain-chain", "zstd"])
def test_a_chunk_left_all_fill_value_is_deleted_unless_empty_chunks_are_written(compressors):
    chain, spec = chain_and_spec(compressors=compressors)
    old = chain.encode(
        np.where(np.arange(16).reshape(4, 4) // 4 == 1, 7, 0).astype("int32"), spec
    )  # only row 1 holds data
    zeros = np.zeros((1, 4), dtype="int32")
    assert update(ChunkUpdater(chain, write_empty_chunks=False), old, spec, ROW, zeros) is None
    assert (
        update(
            ChunkUpdater(chain, write_empty_chunks=False),
            None,
            spec,
            WHOLE,
            np.zeros((4, 4), dtype="int32"),
            complete=True,
        )
        is None
    )
    kept = update(ChunkUpdater(chain, write_empty_chunks=True), old, spec, ROW, zeros)
    assert joined(kept) == chain.encode(np.zeros((4, 4), dtype="int32"), spec)


def test_the_fill_value_is_compared_bit_for_bit():  # -0.0 is not 0.0: the chunk is kept
    array = zf.create_array(
        MemoryStore(), "f", shape=(4,), chunks=(4,), dtype="float64", fill_value=0.0, compressors=None
    )
    engine = array._engine_()
    spec = engine.spec_for((0,))
    negative = np.array([0.0, -0.0, 0.0, 0.0])
    for plain in (None, engine.chain.plain_dtype(spec)):
        updater = ChunkUpdater(engine.chain, write_empty_chunks=False, plain=plain)
        result = updater.updated(
            None, spec, (slice(0, 4),), negative, complete=True, coords=(0,), key="f/c/0", limit=NO_LIMIT
        )
        assert joined(result) == negative.tobytes()


def test_the_plain_path_stores_what_the_codec_would_without_calling_it(monkeypatch):
    chain, spec = chain_and_spec(compressors=None)
    plain = chain.plain_dtype(spec)
    assert plain is not None
    old = chain.encode(CHUNK, spec)
    expected = CHUNK.copy()
    expected[1] = 99
    want = chain.encode(expected, spec)

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the plain path called the codec")

    monkeypatch.setattr(chain.array_bytes, "encode", refuse)
    updater = ChunkUpdater(chain, write_empty_chunks=False, plain=plain)
    result = update(updater, old, spec, ROW, np.full((1, 4), 99, dtype="int32"))
    assert joined(result) == want
    assert update(updater, None, spec, WHOLE, np.zeros((4, 4), dtype="int32"), complete=True) is None


def sharded_chain() -> tuple[CodecChain, ChunkSpec]:
    """An 8 x 8 shard of four 4 x 4 inner chunks."""
    array = zf.create_array(
        MemoryStore(), "s", shape=(8, 8), chunks=(4, 4), shards=(8, 8), dtype="int32", fill_value=0
    )
    engine = array._engine_()
    assert engine.chain.partial is not None
    return engine.chain, engine.spec_for((0, 0))


def test_a_stored_shard_is_updated_through_the_partial_codec(monkeypatch):
    chain, spec = sharded_chain()
    shard = np.arange(1, 65, dtype="int32").reshape(8, 8)
    old = chain.encode(shard, spec)
    calls = []
    original = chain.encode_partial
    monkeypatch.setattr(chain, "encode_partial", lambda *a, **k: calls.append(a[2]) or original(*a, **k))
    monkeypatch.setattr(chain, "decode", lambda *a, **k: pytest.fail("the shard was decoded"))
    selection = (slice(0, 2), slice(0, 2))
    result = update(
        ChunkUpdater(chain, write_empty_chunks=False),
        old,
        spec,
        selection,
        np.full((2, 2), -5, dtype="int32"),
    )
    assert calls == [selection]
    monkeypatch.undo()
    shard[:2, :2] = -5
    np.testing.assert_array_equal(chain.decode(joined(result), spec, key="k"), shard)
    # the inner chunks the write did not touch keep their stored bytes
    untouched = chain.array_bytes.inner.encode(shard[4:, 4:], chain.array_bytes._inner_spec(spec))
    assert untouched in joined(result)


def test_a_shard_left_all_fill_value_is_deleted_unless_empty_chunks_are_written():
    chain, spec = sharded_chain()
    shard = np.zeros((8, 8), dtype="int32")
    shard[0, 0] = 3  # one inner chunk holds data
    old = chain.encode(shard, spec)
    zero = np.zeros((1, 1), dtype="int32")
    assert (
        update(ChunkUpdater(chain, write_empty_chunks=False), old, spec, (slice(0, 1), slice(0, 1)), zero)
        is None
    )
    kept = update(ChunkUpdater(chain, write_empty_chunks=True), old, spec, (slice(0, 1), slice(0, 1)), zero)
    assert joined(kept) == chain.encode(np.zeros((8, 8), dtype="int32"), spec)


def test_a_shard_never_written_is_encoded_whole():
    chain, spec = sharded_chain()
    result = update(
        ChunkUpdater(chain, write_empty_chunks=False),
        None,
        spec,
        (slice(0, 1), slice(0, 1)),
        np.full((1, 1), 4, dtype="int32"),
    )
    expected = np.zeros((8, 8), dtype="int32")
    expected[0, 0] = 4
    assert joined(result) == chain.encode(expected, spec)


def test_a_chunk_held_whole_is_checked_against_the_limit():
    chain, spec = chain_and_spec()
    updater = ChunkUpdater(chain, write_empty_chunks=False)
    with pytest.raises(ResourceLimitError, match="a/c/0/0"):
        update(updater, None, spec, ROW, np.ones((1, 4), dtype="int32"), limit=(16, "max_chunk_bytes"))
    # a whole chunk from the caller's values is the caller's memory: not checked
    assert update(updater, None, spec, WHOLE, CHUNK, complete=True, limit=(16, "max_chunk_bytes")) is not None


def test_codecs_reading_the_chunk_position_see_it(monkeypatch):
    chain, spec = chain_and_spec()
    seen = []
    original = chain.encode_parts
    monkeypatch.setattr(chain, "uses_chunk_position", True)
    monkeypatch.setattr(
        chain, "encode_parts", lambda chunk, s: seen.append(current_chunk()) or original(chunk, s)
    )
    updater = ChunkUpdater(chain, write_empty_chunks=False)
    updater.updated(
        None,
        spec,
        ROW,
        np.ones((1, 4), dtype="int32"),
        complete=False,
        coords=(1, 0),
        key="a/c/1/0",
        limit=NO_LIMIT,
    )
    updater.changed(chain.encode(CHUNK, spec), spec, lambda chunk: chunk + 1, coords=(0, 1), key="a/c/0/1")
    assert seen == [(1, 0), (0, 1)] and current_chunk() is None


def test_changed_keeps_deletes_or_rewrites_the_chunk():
    chain, spec = chain_and_spec()
    old = chain.encode(CHUNK, spec)
    updater = ChunkUpdater(chain, write_empty_chunks=False)
    received = []
    assert (
        updater.changed(old, spec, lambda chunk: received.append(chunk) and None, coords=(0, 0), key="k")
        is KEEP
    )
    assert received[0].flags.writeable
    np.testing.assert_array_equal(received[0], CHUNK)
    assert updater.changed(old, spec, lambda chunk: chunk * 0, coords=(0, 0), key="k") is None
    result = updater.changed(old, spec, lambda chunk: chunk * 2, coords=(0, 0), key="k")
    assert joined(result) == chain.encode(CHUNK * 2, spec)
    kept = ChunkUpdater(chain, write_empty_chunks=True).changed(
        old, spec, lambda chunk: chunk * 0, coords=(0, 0), key="k"
    )
    assert joined(kept) == chain.encode(np.zeros((4, 4), dtype="int32"), spec)
