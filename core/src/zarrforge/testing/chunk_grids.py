"""The chunk grid conformance suite.

Subclass :class:`ChunkGridConformance` and set:

* ``chunk_grid_cases``: ``(document, shape)`` pairs, a grid's metadata entry and
  the array shape it is bound to, e.g.
  ``[({"name": "regular", "configuration": {"chunk_shape": [3, 4]}}, (10, 8))]``;
  each pair is its own test (the test id names the grid and the shape). List
  edge cases your grid allows: a dimension of length 0, a 0-d array (shape
  ``()``), a length that is not a multiple of the chunks, a huge shape (the
  suite enumerates at most a few thousand chunks per dimension at either end
  and otherwise relies on generated indexes). Every case also makes a real
  array, so keep chunks small (at most ``MAX_CHUNK_ELEMENTS``, 2**22: the suite
  says so rather than allocate a bigger one);
* ``invalid_chunk_grid_cases``: ``(document, shape, field)`` triples that must
  be refused with a :class:`~zarrforge.errors.MetadataError` naming ``field``
  (relative to the grid's entry: ``"configuration.chunk_shape"``, or a part of
  it such as ``"configuration.chunk_shape[1]"``); at least one;
* ``rejects_unknown_configuration = False`` if the grid deliberately accepts
  configuration keys it does not know;
* ``max_examples`` (default 25): how many cases hypothesis tries per test.
* ``shrink`` (default ``True``): minimise a failing example before reporting it; ``False``
  reports the first one found, which is faster when failures are expected.

What it checks, for each case, against :mod:`zarrforge.abc.chunk_grid`: the
name resolves through the installed ``zarrforge.chunk_grids`` registry to the
class, with one :class:`~zarrforge.abc.chunk_grid.DimensionChunking` per
dimension of the right length; ``to_json`` is JSON and rebuilds an equal grid
that partitions the array the same way; the chunks of every dimension tile it
exactly (chunk 0 starts at 0, each chunk starts where the one before ends, none
is empty or starts past the end, the last covers the end; an empty dimension
has no chunks) and ``index_of``, ``extent``, ``chunk_range``,
``distinct_sizes``, ``grid_shape``, ``nchunks`` and ``regular_chunk_shape``
agree with that tiling; edge chunks (the last along each dimension) report
their in-bounds extent; hypothesis-generated element indexes (chunk boundaries
favoured) map to a chunk that contains them and ranges to exactly the chunks
they touch; ``with_shape`` to the same shape gives an equal grid, and to a
grown shape and to shapes with zero-length dimensions a grid that tiles as
well (or a ``MetadataError``, if the grid cannot follow); invalid
configurations raise ``MetadataError`` naming the field, unknown configuration
keys are refused; and a real array created with the grid
(``create_array(chunks=document)``) round trips random data written and read
through hypothesis-chosen slices, stores exactly the chunks written, and reads
the same after reopening. Each failure names the case and the property, in a
sentence.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

import zarrforge as zf

from ..abc.chunk_grid import ChunkGrid, DimensionChunking
from ..errors import MetadataError
from ..plugin_api import chunk_grid_from_json, registry
from ._common import document_id as _document_id
from ._common import entry_name as _name
from ._common import (
    expect_refused_naming,
    expect_unknown_key_refused,
    hypothesis_settings,
    parametrize_cases,
    with_unknown_key,
)
from .kit_store import KitMemoryStore
from .scaffolding import FORMAT_NAME, KitScaffolding

# Chunks enumerated at each end of a dimension; positions checked one by one up to this length.
WINDOW = 2048
MAX_POSITIONS = 1 << 16
MAX_CHUNK_ELEMENTS = 1 << 22


def case_id(document: Any, shape: Sequence[int]) -> str:
    return f"{_document_id(document)}@{tuple(shape)}"


def _visited(nchunks: int) -> Iterable[int]:
    """The chunk indices enumerated: all of them, or a window at each end."""
    if nchunks <= 2 * WINDOW:
        return range(nchunks)
    return itertools.chain(range(WINDOW), range(nchunks - WINDOW, nchunks))


def check_dimension(where: str, dim: DimensionChunking, d: int, length: int) -> None:
    """Assert that ``dim`` tiles ``[0, length)`` exactly, and that its derived methods agree."""
    assert isinstance(dim, DimensionChunking), (
        f"{where}: dimension {d} is {type(dim).__name__}, not a DimensionChunking"
    )
    assert dim.length == length, f"{where}: dimension {d} has length {dim.length}; the array's is {length}"
    n = dim.nchunks
    assert isinstance(n, (int, np.integer)) and n >= 0, (
        f"{where}: dimension {d} reports nchunks {n!r}, not a count"
    )
    n = int(n)
    if length == 0:
        assert n == 0, (
            f"{where}: dimension {d} has length 0 but {n} chunk(s); an empty dimension has no chunks"
        )
        got = np.asarray(dim.index_of(np.zeros(0, dtype=np.int64)))
        assert got.shape == (0,), (
            f"{where}: index_of of no positions along the empty dimension {d} gave shape {got.shape}"
        )
        return
    assert n >= 1, f"{where}: dimension {d} has length {length} but no chunks"
    starts: dict[int, int] = {}
    sizes: dict[int, int] = {}
    end = 0  # where the chunk visited last ends (set by the first: n >= 1)
    for i in _visited(n):
        s, z = int(dim.start(i)), int(dim.size(i))
        starts[i], sizes[i] = s, z
        assert z >= 1, (
            f"{where}: chunk {i} along dimension {d} has stored size {z}; every "
            "chunk holds at least one element"
        )
        if i == 0:
            assert s == 0, (
                f"{where}: chunk 0 along dimension {d} starts at {s}, not 0: "
                f"elements 0..{s - 1} belong to no chunk"
            )
        elif i - 1 in starts:
            assert s <= end, (
                f"{where}: elements {end}..{s - 1} of dimension {d} belong to no "
                f"chunk (chunk {i - 1} ends before {end}, chunk {i} starts at {s})"
            )
            assert s >= end, (
                f"{where}: elements {s}..{end - 1} of dimension {d} belong to both "
                f"chunk {i - 1} and chunk {i}"
            )
        assert s < length, (
            f"{where}: chunk {i} along dimension {d} starts at {s}, at or past "
            f"the dimension's length {length}; nchunks ({n}) must count only "
            "chunks that hold elements"
        )
        expected_extent = min(z, length - s)
        assert int(dim.extent(i)) == expected_extent, (
            f"{where}: extent({i}) along dimension {d} is {dim.extent(i)}; the chunk covers "
            f"{s}..{s + z - 1} of a dimension of length {length}, so {expected_extent}"
        )
        end = s + z
    assert end >= length, (
        f"{where}: the last chunk ({n - 1}) along dimension {d} covers "
        f"{starts[n - 1]}..{end - 1}; elements {end}..{length - 1} belong to "
        "no chunk"
    )

    # index_of against the tiling: every position when that is affordable, else the
    # first and last element of each enumerated chunk.
    if length <= MAX_POSITIONS and n <= 2 * WINDOW:
        positions = np.arange(length, dtype=np.int64)
        expected = np.repeat(
            np.arange(n, dtype=np.int64), [min(sizes[i], length - starts[i]) for i in range(n)]
        )
    else:
        pairs = sorted({(p, i) for i in starts for p in (starts[i], min(starts[i] + sizes[i], length) - 1)})
        positions = np.array([p for p, _ in pairs], dtype=np.int64)
        expected = np.array([i for _, i in pairs], dtype=np.int64)
    got = np.asarray(dim.index_of(positions))
    assert got.shape == positions.shape, (
        f"{where}: index_of of {positions.size} positions along dimension {d} gave shape {got.shape}"
    )
    wrong = np.flatnonzero(got != expected)
    if wrong.size:
        p, c, g = int(positions[wrong[0]]), int(expected[wrong[0]]), int(got[wrong[0]])
        raise AssertionError(
            f"{where}: element {p} of dimension {d} lies in chunk {c} ({starts[c]}.."
            f"{starts[c] + sizes[c] - 1}) but index_of says chunk {g}"
        )
    if n <= 2 * WINDOW:
        distinct = tuple(sorted(set(sizes.values())))
        assert tuple(dim.distinct_sizes()) == distinct, (
            f"{where}: distinct_sizes() along dimension {d} is {tuple(dim.distinct_sizes())}; "
            f"the chunks' stored sizes are {distinct}"
        )
    for a, b in ((0, length), (0, 1), (length - 1, length), (length, length)):
        expected_range = (
            range(int(dim.index_of(np.array([a]))[0]), int(dim.index_of(np.array([b - 1]))[0]) + 1)
            if b > a
            else range(0)
        )
        assert _same_range(dim.chunk_range(a, b), expected_range), (
            f"{where}: chunk_range({a}, {b}) along dimension {d} is {dim.chunk_range(a, b)}; "
            f"the chunks touching {a}..{b - 1} are {expected_range}"
        )


def check_grid(where: str, grid: ChunkGrid, shape: Sequence[int]) -> None:
    """Assert that ``grid`` tiles an array of ``shape`` exactly, dimension by dimension."""
    assert isinstance(grid, ChunkGrid), f"{where}: {type(grid).__name__} is not a ChunkGrid"
    dims = grid.dimensions
    assert len(dims) == len(shape), (
        f"{where}: the grid has {len(dims)} dimension(s) for an array of shape {tuple(shape)}"
    )
    for d, (dim, length) in enumerate(zip(dims, shape)):
        check_dimension(where, dim, d, int(length))
    counts = tuple(int(dim.nchunks) for dim in dims)
    assert tuple(grid.grid_shape) == counts, (
        f"{where}: grid_shape is {tuple(grid.grid_shape)}; the dimensions have {counts} chunks"
    )
    total = int(np.prod(counts, dtype=object)) if counts else 1
    assert int(grid.nchunks) == total, f"{where}: nchunks is {grid.nchunks}, not {total}"
    regular = grid.regular_chunk_shape
    if regular is not None:
        regular = tuple(regular)
        for d, dim in enumerate(dims):
            for i in itertools.islice(_visited(int(dim.nchunks)), 64):
                assert int(dim.size(i)) == regular[d], (
                    f"{where}: regular_chunk_shape is {regular}, but chunk {i} along dimension "
                    f"{d} has stored size {dim.size(i)}"
                )


def check_edge_chunks(where: str, grid: ChunkGrid, shape: Sequence[int]) -> None:
    """The chunk at the far corner (the last along every dimension) through the grid's
    own helpers: origin, stored shape, in-bounds extent."""
    if any(n == 0 for n in shape):
        return
    last = tuple(int(dim.nchunks) - 1 for dim in grid.dimensions)
    origin = tuple(int(x) for x in grid.chunk_origin(last))
    stored = tuple(int(x) for x in grid.chunk_shape(last))
    extent = tuple(int(x) for x in grid.chunk_extent(last))
    expected = tuple(n - o for n, o in zip(shape, origin))
    assert extent == expected, (
        f"{where}: the edge chunk {last} starts at {origin} and has extent {extent}; the array "
        f"of shape {tuple(shape)} leaves it {expected}"
    )
    assert all(e <= s for e, s in zip(extent, stored)), (
        f"{where}: the edge chunk {last} has extent {extent}, larger than its stored shape {stored}"
    )


def selection_strategy(shape: Sequence[int], grid: ChunkGrid) -> Any:
    """Tuples of slices (steps 1 to 3) within ``shape``, starting at chunk boundaries or the
    array's ends as often as anywhere, each selecting at most a few thousand elements."""
    from hypothesis import strategies as st

    ndim = len(shape)
    most = max(1, min(64, int(4096 ** (1 / ndim)))) if ndim else 1

    def one(d: int, length: int) -> Any:
        dim = grid.dimensions[d]
        marks = sorted(
            {0, length, max(0, length - 1)}
            | {
                int(dim.start(i)) + k
                for i in itertools.islice(_visited(int(dim.nchunks)), 16)
                for k in (-1, 0, 1)
                if 0 <= int(dim.start(i)) + k <= length
            }
        )
        start = st.one_of(st.integers(0, length), st.sampled_from(marks))
        return st.tuples(start, st.integers(0, most), st.sampled_from([1, 1, 2, 3])).map(
            lambda t: slice(t[0], min(length, t[0] + t[1] * t[2]), t[2])
        )

    return st.tuples(*(one(d, int(n)) for d, n in enumerate(shape)))


def _ranges(selection: tuple[slice, ...], shape: Sequence[int]) -> list[range]:
    return [range(*s.indices(int(n))) for s, n in zip(selection, shape)]


def _chunk_of(grid: ChunkGrid, index: Sequence[int]) -> tuple[int, ...]:
    return tuple(
        int(dim.index_of(np.array([i], dtype=np.int64))[0]) for dim, i in zip(grid.dimensions, index)
    )


def _same_range(got: Any, expected: range) -> bool:
    """Whether ``chunk_range`` answered ``expected`` (ranges compare without expanding)."""
    if isinstance(got, range):
        return got == expected
    return len(expected) <= 1 << 20 and list(got) == list(expected)


def _grid_id(case: Any) -> str:
    return case_id(case[0], case[1])


class ChunkGridConformance(KitScaffolding):
    chunk_grid_cases: ClassVar[list[tuple[Any, Sequence[int]]]] = []
    invalid_chunk_grid_cases: ClassVar[list[tuple[Any, Sequence[int], str]]] = []
    rejects_unknown_configuration = True
    max_examples = 25
    shrink = True

    def pytest_generate_tests(self, metafunc: Any) -> None:
        parametrize_cases(
            metafunc,
            "case",
            self.chunk_grid_cases,
            _grid_id,
            "set chunk_grid_cases to (document, shape) pairs of the grids to test",
        )
        parametrize_cases(
            metafunc,
            "invalid_case",
            self.invalid_chunk_grid_cases,
            _grid_id,
            "set invalid_chunk_grid_cases to (document, shape, field) triples the "
            "grid must refuse with a MetadataError naming field",
        )

    def _grid(self, case: Any) -> tuple[str, ChunkGrid, tuple[int, ...]]:
        document, shape = case
        shape = tuple(int(n) for n in shape)
        return case_id(document, shape), chunk_grid_from_json(document, shape), shape

    def _settings(self) -> Any:
        return hypothesis_settings(self.max_examples, self.shrink)

    # --- the tests ------------------------------------------------------------------------

    def test_name_resolves_to_the_registered_grid_class(self, case):
        where, grid, shape = self._grid(case)
        registered = registry.chunk_grids.get(_name(case[0]))
        assert isinstance(grid, registered), (
            f"{where}: the document built {type(grid).__name__}, not the registered {registered.__name__}"
        )
        assert isinstance(grid, ChunkGrid), f"{where}: {type(grid).__name__} is not a ChunkGrid"
        assert len(grid.dimensions) == len(shape), (
            f"{where}: the grid has {len(grid.dimensions)} dimension(s) for shape {shape}"
        )

    def test_to_json_is_json_and_rebuilds_an_equal_grid(self, case):
        where, grid, shape = self._grid(case)
        written = grid.to_json()
        assert json.loads(json.dumps(written)) == written, f"{where}: to_json() is not JSON"
        assert isinstance(written, dict) and written.get("name") == _name(case[0]), (
            f"{where}: to_json() gives {written!r}, whose name is not {_name(case[0])!r}"
        )
        assert set(written) <= {"name", "configuration"}, (
            f"{where}: to_json() has members besides name and configuration: {sorted(written)}"
        )
        rebuilt = chunk_grid_from_json(written, shape, field="to_json()")
        assert rebuilt.to_json() == written, f"{where}: rebuilding changes to_json()"
        assert rebuilt == grid, (
            f"{where}: the grid rebuilt from to_json() is not equal to the original (define "
            "__eq__, or inherit ChunkGrid's: same type, to_json and dimension lengths)"
        )
        for d, (a, b) in enumerate(zip(grid.dimensions, rebuilt.dimensions)):
            mine = [(a.start(i), a.size(i)) for i in _visited(int(a.nchunks))]
            theirs = [(b.start(i), b.size(i)) for i in _visited(int(b.nchunks))]
            assert mine == theirs, (
                f"{where}: the grid rebuilt from to_json() splits dimension {d} differently"
            )

    def test_chunks_tile_the_array_exactly(self, case):
        where, grid, shape = self._grid(case)
        check_grid(where, grid, shape)

    def test_edge_chunks_report_their_extent(self, case):
        where, grid, shape = self._grid(case)
        check_grid(where, grid, shape)
        check_edge_chunks(where, grid, shape)

    def test_generated_indexes_map_to_the_chunk_containing_them(self, case):
        where, grid, shape = self._grid(case)
        if any(n == 0 for n in shape):
            assert grid.nchunks == 0, f"{where}: an empty array has {grid.nchunks} chunk(s)"
            return
        from hypothesis import given
        from hypothesis import strategies as st

        def position(d: int, length: int) -> Any:
            dim = grid.dimensions[d]
            marks = sorted(
                {
                    p
                    for i in itertools.islice(_visited(int(dim.nchunks)), 2 * WINDOW)
                    for s in (int(dim.start(i)),)
                    for p in (s - 1, s, s + int(dim.size(i)) - 1)
                    if 0 <= p < length
                }
                | {length - 1}
            )
            return st.one_of(st.integers(0, length - 1), st.sampled_from(marks))

        index_strategy = st.tuples(*(position(d, n) for d, n in enumerate(shape)))

        @self._settings()
        @given(st.lists(index_strategy, min_size=1, max_size=8), st.data())
        def indexes_map_to_their_chunks(indexes, data):
            for d, dim in enumerate(grid.dimensions):
                positions = np.array([index[d] for index in indexes], dtype=np.int64)
                together = np.asarray(dim.index_of(positions))
                for k, p in enumerate(positions.tolist()):
                    alone = int(np.asarray(dim.index_of(np.array([p], dtype=np.int64)))[0])
                    assert int(together[k]) == alone, (
                        f"{where}: index_of gives chunk {alone} for element {p} of dimension {d}"
                        f" alone and {int(together[k])} among other positions"
                    )
                    assert 0 <= alone < int(dim.nchunks), (
                        f"{where}: index_of maps element {p} of dimension {d} to chunk {alone}, "
                        f"outside the {dim.nchunks} chunks"
                    )
                    s, z = int(dim.start(alone)), int(dim.size(alone))
                    assert s <= p < s + z, (
                        f"{where}: index_of maps element {p} of dimension {d} to chunk {alone}, "
                        f"which covers {s}..{s + z - 1}"
                    )
                a, b = sorted(data.draw(st.tuples(position(d, shape[d]), position(d, shape[d]))))
                b += 1
                first, last = _chunk_of(grid, [0] * d + [a])[d], _chunk_of(grid, [0] * d + [b - 1])[d]
                assert _same_range(dim.chunk_range(a, b), range(first, last + 1)), (
                    f"{where}: chunk_range({a}, {b}) along dimension {d} is "
                    f"{dim.chunk_range(a, b)}; elements {a}..{b - 1} lie in chunks {first}.."
                    f"{last}"
                )
            for index in indexes:
                coords = _chunk_of(grid, index)
                origin = tuple(int(x) for x in grid.chunk_origin(coords))
                extent = tuple(int(x) for x in grid.chunk_extent(coords))
                assert all(o <= i < o + e for i, o, e in zip(index, origin, extent)), (
                    f"{where}: element {tuple(index)} maps to chunk {coords}, whose in-bounds "
                    f"part starts at {origin} with extent {extent}"
                )

        indexes_map_to_their_chunks()

    def test_with_shape_follows_resizes_and_empty_dimensions(self, case):
        where, grid, shape = self._grid(case)
        same = grid.with_shape(shape)
        assert same == grid, f"{where}: with_shape(the same shape) gives a grid not equal to it"
        targets = [tuple(2 * n + 1 for n in shape), tuple(0 for _ in shape)]
        targets += [(*shape[:d], 0, *shape[d + 1 :]) for d in range(len(shape))]
        for target in dict.fromkeys(targets):
            try:
                resized = grid.with_shape(target)
            except MetadataError:
                continue  # the contract lets a grid refuse a shape it cannot follow
            label = f"{where} resized to {target}"
            check_grid(label, resized, target)
            check_edge_chunks(label, resized, target)
            again = chunk_grid_from_json(resized.to_json(), target, field="to_json()")
            assert again == resized, f"{label}: the grid rebuilt from its to_json() is not equal to it"

    def test_invalid_configurations_are_refused_naming_the_field(self, invalid_case):
        document, shape, field = invalid_case
        where = case_id(document, shape)
        expected = f"chunk_grid.{field}" if field else "chunk_grid"
        expect_refused_naming(lambda: chunk_grid_from_json(document, tuple(shape)), where, expected)

    def test_unknown_configuration_keys_are_refused(self, case):
        if not self.rejects_unknown_configuration:
            return
        where, grid, shape = self._grid(case)
        document = with_unknown_key(grid.to_json())
        expect_unknown_key_refused(lambda: chunk_grid_from_json(document, shape), where)

    def test_arrays_with_the_grid_round_trip_through_a_store(self, case):
        """Random data written through hypothesis-chosen slices reads back, before and after
        reopening; exactly the chunks written are stored."""
        where, grid, shape = self._grid(case)
        from hypothesis import given
        from hypothesis import strategies as st

        largest = max((int(np.prod(s, dtype=object)) for s in grid.representative_chunk_shapes()), default=1)
        assert largest <= MAX_CHUNK_ELEMENTS, (
            f"{where}: a chunk of this case holds {largest} elements, too many for the suite to "
            f"make a real array of (at most {MAX_CHUNK_ELEMENTS}); list cases with smaller chunks"
        )
        selection = selection_strategy(shape, grid)

        @self._settings()
        @given(st.lists(selection, min_size=1, max_size=3), selection, st.integers(0, 2**32 - 1))
        def round_trip(writes, read, seed):
            rng = np.random.default_rng(seed)
            array = zf.create_array(
                KitMemoryStore(),
                shape=shape,
                dtype="int32",
                chunks=case[0],
                compressors=None,
                fill_value=0,
                zarr_format=FORMAT_NAME,
            )
            assert tuple(array.cdata_shape) == tuple(grid.grid_shape), (
                f"{where}: an array with the grid has {array.cdata_shape} chunks, the grid {grid.grid_shape}"
            )
            oracle: dict[tuple[int, ...], int] = {}
            for sel in writes:
                ranges = _ranges(sel, shape)
                values = rng.integers(1, 2**31 - 1, size=tuple(len(r) for r in ranges), dtype=np.int32)
                array[sel] = values
                for point in itertools.product(*(enumerate(r) for r in ranges)):
                    oracle[tuple(i for _, i in point)] = int(values[tuple(k for k, _ in point)])
            written_chunks = {_chunk_of(grid, index) for index in oracle}
            reopened = zf.open_array(array.store, zarr_format=FORMAT_NAME)
            for label, handle in (("written", array), ("reopened", reopened)):
                stored = set(handle.stored_chunks())
                assert stored == written_chunks, (
                    f"{where} ({label}): the store holds chunks {sorted(stored)[:8]}; the "
                    f"writes touched {sorted(written_chunks)[:8]}"
                )
                for sel in [*writes, read]:
                    ranges = _ranges(sel, shape)
                    got = np.asarray(handle[sel])
                    for point in itertools.product(*(enumerate(r) for r in ranges)):
                        index = tuple(i for _, i in point)
                        value = int(got[tuple(k for k, _ in point)])
                        if value != oracle.get(index, 0):
                            raise AssertionError(
                                f"{where} ({label}): element {index} (chunk "
                                f"{_chunk_of(grid, index)}) reads {value} through {sel}; "
                                f"{oracle.get(index, 0)} was written there"
                            )

        round_trip()
