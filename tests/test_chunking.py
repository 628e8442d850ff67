"""The chunk shape of a new array: one rule picks it (zarrforge.engine.chunking), every format
reads ``chunks=`` the same way, and a bad value or an oversized chunk is refused at
creation, naming the dimension, the value and what is valid."""

from __future__ import annotations

import pytest

import zarrforge as zf
from zarrforge.engine.chunking import auto_chunks
from zarrforge.errors import MetadataError, ResourceLimitError

FORMATS = [3, 2, "draft-2022"]


def test_a_large_array_gets_chunks_a_reader_can_hold_by_default():
    """A 50,000 x 50,000 float32 array used to be one 9.3 GiB chunk: writing one element
    raised MemoryError."""
    array = zf.create_array(None, shape=(50_000, 50_000), dtype="float32")
    assert array.chunks == (782, 782)
    array[0, 0] = 1.5
    assert array[0, 0] == 1.5 and array[0, 1] == 0


@pytest.mark.parametrize("zarr_format", FORMATS)
def test_chunks_auto_and_none_follow_one_rule_in_every_format(zarr_format):
    for chunks in (None, "auto"):
        array = zf.create_array(
            None, shape=(3000, 1000), dtype="float64", chunks=chunks, zarr_format=zarr_format
        )
        assert array.chunks == auto_chunks((3000, 1000), 8) == (750, 500)
    small = zf.create_array(None, shape=(10, 20), dtype="int8", zarr_format=zarr_format)
    assert small.chunks == (10, 20)  # an array that fits keeps one chunk


def test_the_rule_halves_the_longest_side_until_a_chunk_fits():
    with zf.config.set(auto_chunk_bytes=1024):
        assert auto_chunks((100, 100), 8) == (7, 13)  # 100 50 25 13 7 down, 100 50 25 13 across
        assert auto_chunks((0, 5), 4) == (1, 5)
        assert auto_chunks((), 4) == ()
    assert auto_chunks((10**6,), None) == (250_000,)  # 16 bytes an element of a variable size


@pytest.mark.parametrize("zarr_format", FORMATS)
def test_minus_one_and_none_mean_the_whole_dimension_in_every_format(zarr_format):
    for chunks, expected in ((-1, (6, 4)), ((-1, 2), (6, 2)), ((None, 3), (6, 3)), (2, (2, 2))):
        array = zf.create_array(None, shape=(6, 4), dtype="int16", chunks=chunks, zarr_format=zarr_format)
        assert array.chunks == expected, chunks


@pytest.mark.parametrize(
    "chunks, message",
    [
        ((0, 2), r"chunks\[0\] = 0 is not a chunk length: give a positive int, or -1 or None"),
        ((2, -2), r"chunks\[1\] = -2 is not a chunk length"),
        ((2.5, 2), r"chunks\[0\] = 2.5 is not a chunk length"),
        ((True, 2), r"chunks\[0\] = True is not a chunk length"),
        (2.5, r"chunks=2.5 is not a chunk shape: give 'auto'"),
        ("big", r"chunks='big' is not a chunk shape"),
        ((2,), r"chunks=\[2\] gives 1 lengths but the array has 2 dimensions \(shape \(6, 4\)\)"),
    ],
)
@pytest.mark.parametrize("zarr_format", FORMATS)
def test_a_bad_chunk_argument_is_refused_naming_the_dimension_before_writing(chunks, message, zarr_format):
    store = zf.create_group(None).store
    with pytest.raises(MetadataError, match=message):
        zf.create_array(store, "a", shape=(6, 4), dtype="int16", chunks=chunks, zarr_format=zarr_format)
    assert [key for key in store.list() if key.startswith("a/")] == []


def test_a_chunk_over_the_per_chunk_limit_is_refused_at_creation():
    store = zf.create_group(None).store
    with pytest.raises(
        ResourceLimitError,
        match=r"chunks of \(50000, 50000\) elements of "
        r"float32 take 10,000,000,000 bytes each .*"
        r"max_chunk_bytes",
    ):
        zf.create_array(store, "a", shape=(50_000, 50_000), dtype="float32", chunks=(50_000, 50_000))
    assert [key for key in store.list() if key.startswith("a/")] == []
    with zf.config.set(max_chunk_bytes=None):
        zf.create_array(store, "a", shape=(50_000, 50_000), dtype="float32", chunks=(50_000, 50_000))


def test_automatic_chunks_inside_given_shards_divide_them():
    with zf.config.set(auto_chunk_bytes=1000):
        array = zf.create_array(None, shape=(100, 100), dtype="float64", shards=(100, 60))
    assert array.shards == (100, 60) and array.chunks == (10, 6)
    assert all(s % c == 0 for s, c in zip(array.shards, array.chunks))


def test_shards_auto_group_chunks_up_to_the_target_size_within_the_array():
    big = zf.create_array(None, shape=(50_000, 50_000), dtype="float32", shards="auto")
    assert big.chunks == (782, 782) and big.shards == (3128, 3128)  # 16 chunks, 37 MiB
    tall = zf.create_array(None, shape=(10_000, 10), chunks=(100, 10), dtype="f8", shards="auto")
    assert tall.shards == (10_000, 10)  # the whole extent in chunks: 7.6 MiB
    small = zf.create_array(None, shape=(100,), dtype="f4", shards="auto")
    assert small.shards == small.chunks == (100,)
    with zf.config.set(auto_shard_bytes=1000):
        few = zf.create_array(None, shape=(1000,), chunks=(10,), dtype="i8", shards="auto")
    assert few.shards == (80,)  # 10, 20, 40, 80 elements of 8 bytes; 160 would be 1280 bytes
    assert all(s % c == 0 for s, c in zip(big.shards, big.chunks))
