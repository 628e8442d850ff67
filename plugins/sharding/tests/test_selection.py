"""``analyse`` (which inner chunks a selection of a shard touches, and the box around
them) takes ints and unit-step slices, a read's usual entries, by a short way of its own;
it must give the box the general per-entry helpers give, for every entry form."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrforge_sharding import selection
from zarrforge_sharding.selection import Box, analyse


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
