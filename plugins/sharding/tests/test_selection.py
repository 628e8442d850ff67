"""``analyse`` (which inner chunks a selection of a shard touches, and the box around
them) takes ints and unit-step slices, a read's usual entries, by a short way of its own;
it must give the box the general per-entry helpers give, for every entry form.
``one_inner_chunk`` answers for a selection inside one inner chunk alone, without a box;
where it answers, the box must name that one chunk and select the same values."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrforge_sharding import selection
from zarrforge_sharding.selection import Box, analyse, one_inner_chunk


def _by_the_general_helpers(
    sel: tuple[Any, ...], shard: tuple[int, ...], inner: tuple[int, ...]
) -> Box | None:
    touched, start, shape, shifted = [], [], [], []
    for entry, length, size in zip(sel, shard, inner):
        chunks = selection._touched(entry, length, size)
        if chunks is None:
            return None
        lo = int(chunks[0]) * size
        touched.append(chunks)
        start.append(lo)
        shape.append((int(chunks[-1]) + 1) * size - lo)
        shifted.append(selection._shift(entry, lo, length))
    return Box(tuple(touched), tuple(start), tuple(shape), tuple(shifted))


@st.composite
def selections(draw: Any) -> tuple[tuple[Any, ...], tuple[int, ...], tuple[int, ...]]:
    ndim = draw(st.integers(1, 3))
    shard = tuple(draw(st.integers(1, 40)) for _ in range(ndim))
    inner = tuple(draw(st.integers(1, 12)) for _ in range(ndim))
    entries = []
    for length in shard:
        bound = st.one_of(st.none(), st.integers(-length - 3, length + 3))
        entries.append(
            draw(
                st.one_of(
                    st.integers(0, length - 1),
                    st.builds(slice, bound, bound, st.sampled_from([None, 1, 2, 3, -1, -2])),
                    st.integers(0, length - 1).map(np.int64),
                    st.lists(st.integers(0, length - 1), min_size=1, max_size=4).map(np.array),
                )
            )
        )
    return tuple(entries), shard, inner


@settings(max_examples=500, deadline=None, database=None)
@given(selections())
def test_the_box_is_the_one_the_general_helpers_give(case) -> None:
    sel, shard, inner = case
    got, expected = analyse(sel, shard, inner), _by_the_general_helpers(sel, shard, inner)
    if expected is None:
        assert got is None
        return
    assert got is not None
    assert [list(t) for t in got.touched] == [list(t) for t in expected.touched]
    assert (got.start, got.shape) == (expected.start, expected.shape)
    for mine, theirs in zip(got.selection, expected.selection):
        if isinstance(theirs, np.ndarray):
            np.testing.assert_array_equal(mine, theirs)
        else:
            assert mine == theirs


@settings(max_examples=500, deadline=None, database=None)
@given(selections())
def test_one_inner_chunk_agrees_with_the_box(case) -> None:
    sel, shard, inner = case
    one = one_inner_chunk(sel, shard, inner)
    b = analyse(sel, shard, inner)
    in_bounds_plain = all(
        (type(e) is int and 0 <= e < n)
        or (
            type(e) is slice
            and type(e.start) is int
            and type(e.stop) is int
            and e.step in (None, 1)
            and 0 <= e.start < e.stop <= n
        )
        for e, n in zip(sel, shard)
    )
    if not in_bounds_plain or b is None or len(list(b.inner_chunks())) != 1:
        assert one is None
        return
    assert one is not None
    coords, within, shape = one
    assert [coords] == list(b.inner_chunks())
    # the same values: a shard of distinct numbers, read through the box and directly
    values = np.arange(int(np.prod(shard))).reshape(shard)
    box = values[tuple(slice(s, s + n) for s, n in zip(b.start, b.shape))]
    chunk = values[tuple(slice(c * n, (c + 1) * n) for c, n in zip(coords, inner))]
    np.testing.assert_array_equal(chunk[within], box[b.selection])
    assert chunk[within].shape == shape == values[sel].shape
