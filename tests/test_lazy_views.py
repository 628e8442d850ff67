"""``Array.lazy`` (issue #48): zarr-indexing's ``LazyArray`` over zarrforge arrays.

zarr-indexing's own Hypothesis state machine (``ChainedIndexingStateMachine``) composes
basic, orthogonal and vectorized steps and checks each view against NumPy, here with the
reader ``Array.lazy`` uses, over every format and grid zarrforge writes, with chunks that
the selections cross. The tests after it cover what the machine does not: the reader
surviving derivation, one engine read per ``result()``, touching exactly the chunks the
final selection needs (counted at the store), and writes.

zarr-indexing needs Python 3.12: on an older Python this module is skipped, saying so
(tests/test_lazy_extra.py checks there that ``Array.lazy`` names the extra to install).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.engine.pipeline import ChunkEngine
from zarrforge.storage import MemoryStore

if sys.version_info < (3, 12):
    pytest.skip(
        "zarr-indexing needs Python 3.12, which make test's environment has where the machine "
        "has one (the Makefile's PYTHON); tests/test_lazy_extra.py runs here",
        allow_module_level=True,
    )

from hypothesis import settings
from zarr_indexing import LazyArray
from zarr_indexing.testing import (
    DEFAULT_DATA,
    DEFAULT_SETTINGS,
    ChainedIndexingStateMachine,
    state_machine_test,
)

from zarrforge.user_api.lazy_views import ENGINE_READER
from zarrforge_std.runtime_transformers import RequestCounter

DRAFT_SHARDING = {
    "name": "https://purl.org/zarr/spec/storage_transformers/sharding/1.0",
    "configuration": {"type": "indexed", "chunks_per_shard": [2, 2, 1]},
}
# the machine's data is 7 x 5 x 4: every layout below has chunks its selections cross
LAYOUTS: dict[str, dict[str, Any]] = {
    "v3": {"chunks": (3, 2, 3)},
    "v3-order-F": {"chunks": (3, 2, 3), "order": "F"},
    "v3-sharded": {"chunks": (3, 2, 2), "shards": (6, 4, 4)},
    "v2": {"chunks": (3, 2, 3), "zarr_format": 2},
    "draft-2022": {"chunks": (3, 2, 3), "zarr_format": "draft-2022"},
    "draft-2022-sharded": {
        "chunks": (3, 2, 3),
        "zarr_format": "draft-2022",
        "storage_transformers": [DRAFT_SHARDING],
    },
    "rectilinear": {"chunks": [[3, 4], [2, 2, 1], [1, 3]]},
}


def machine_for(layout: str) -> type[ChainedIndexingStateMachine]:
    class Machine(ChainedIndexingStateMachine):
        readers = (ENGINE_READER,)

        def make_source(self, data: Any) -> Any:
            array = zf.create_array(MemoryStore(), "a", shape=data.shape, dtype=data.dtype, **LAYOUTS[layout])
            array[...] = data
            return array

    Machine.__name__ = Machine.__qualname__ = f"LazyIndexing_{layout.replace('-', '_')}"
    return Machine


# zarr-indexing's budget (250 examples of up to 10 steps) for each of six layouts would take
# minutes on two cores: 40 examples each here, every one reading through the engine
SETTINGS = settings(DEFAULT_SETTINGS, max_examples=40)
for _layout in LAYOUTS:
    globals()[f"TestLazyIndexing_{_layout.replace('-', '_')}"] = state_machine_test(
        machine_for(_layout), config=SETTINGS
    )


def test_the_machine_reads_through_the_engine_reader() -> None:
    """(The machine draws from its ``readers`` and ``basic_reader``: ours is among them.)"""
    machine = machine_for("v3")()
    assert ENGINE_READER in machine.reader_choices


VALUES = np.arange(1024 * 1024, dtype="i4").reshape(1024, 1024)


def engine_calls(monkeypatch: pytest.MonkeyPatch, *methods: str) -> list[str]:
    """The names of the ``ChunkEngine`` methods among ``methods`` called from now on, one
    entry per call."""
    calls: list[str] = []
    for method in methods:
        original = getattr(ChunkEngine, method)

        def counted(self: Any, *args: Any, _original: Any = original, _name: str = method) -> Any:
            calls.append(_name)
            return _original(self, *args)

        monkeypatch.setattr(ChunkEngine, method, counted)
    return calls


def written(store: Any, **layout: Any) -> zf.Array:
    array = zf.create_array(store, "a", shape=VALUES.shape, dtype="i4", chunks=(64, 64), **layout)
    array[...] = VALUES
    return array


def test_every_derived_view_keeps_the_engine_reader_and_reads_its_array() -> None:
    array = written(MemoryStore())
    view = array.lazy
    assert isinstance(view, LazyArray) and view.array is array
    derived = [
        view[::2],
        view[::2][10:200],
        view.oindex[[3, 1], :],
        view.vindex[[1, 2], [3, 4]],
        view.with_parts((64, 64)),
    ]
    assert all(d.reader is ENGINE_READER and d.array is array for d in derived)
    assert view.parts is not None and len(list(view.parts())) == 1  # unpartitioned by default


@pytest.mark.parametrize(
    "compose",
    [
        lambda v: v[::2][10:200],
        lambda v: v[5:900:3, ::-7][None, 3:50, ..., 2],
        lambda v: v.oindex[[5, 700, 700], 30:400][::-1],
        lambda v: v.vindex[[5, 1, 1000], [0, 1023, 4]],
        lambda v: v[100:300, 100:300].vindex[[0, 199], [199, 0]],
    ],
    ids=[
        "strided-then-sliced",
        "negative-steps-new-axis",
        "orthogonal-reversed",
        "points",
        "points-of-a-window",
    ],
)
def test_a_composed_selection_is_one_engine_read_of_exactly_the_chunks_it_touches(
    compose: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = RequestCounter(MemoryStore())
    array = written(counter)
    view = compose(array.lazy)
    expected = compose(LazyArray.from_numpy(VALUES)).result()
    reads = engine_calls(monkeypatch, "read", "read_gathered")
    counter.reset()
    np.testing.assert_array_equal(view.result(), expected)
    assert len(reads) == 1
    fetched = [key for kind, detail in counter.calls if kind == "get_many" for key, _ in detail]
    needed = {f"a/c/{r // 64}/{c // 64}" for r, c in zip(*touched(compose, VALUES.shape))}
    assert sorted(fetched) == sorted(needed)  # none the selection misses, none twice


def touched(compose: Any, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The source coordinates a composed selection reads, by reading a coordinate array."""
    rows = LazyArray.from_numpy(np.broadcast_to(np.arange(shape[0])[:, None], shape).copy())
    columns = LazyArray.from_numpy(np.broadcast_to(np.arange(shape[1])[None, :], shape).copy())
    return compose(rows).result().ravel(), compose(columns).result().ravel()


def test_a_sharded_view_reads_inner_chunks_by_range_not_whole_shards() -> None:
    counter = RequestCounter(MemoryStore())
    array = written(counter, shards=(512, 512))
    counter.reset()
    np.testing.assert_array_equal(array.lazy[::2][10:20, 5:9].result(), VALUES[::2][10:20, 5:9])
    whole = [key for kind, detail in counter.calls if kind == "get_many" for key, r in detail if r is None]
    assert whole == []  # the one shard is read by its index and one inner chunk's range


def test_a_user_split_reads_once_per_part(monkeypatch: pytest.MonkeyPatch) -> None:
    array = written(MemoryStore())
    calls = engine_calls(monkeypatch, "read")
    view = array.lazy[:256, :256].with_parts((128, 128))
    np.testing.assert_array_equal(view.result(), VALUES[:256, :256])
    assert len(calls) == 4


def test_an_affine_write_is_one_engine_write_and_reads_back(monkeypatch: pytest.MonkeyPatch) -> None:
    array = written(MemoryStore())
    calls = engine_calls(monkeypatch, "write")
    array.lazy[::2][10:200, 3:900:5] = -1
    assert len(calls) == 1
    expected = VALUES.copy()
    expected[::2][10:200, 3:900:5] = -1
    np.testing.assert_array_equal(array[...], expected)


def test_an_index_array_write_goes_chunk_by_chunk_each_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the docs say of the limit: an ``oindex``/``vindex`` write is one engine write
    per chunk it touches (zarr-indexing's cell-by-cell scatter), not one for the call."""
    array = written(MemoryStore())
    calls = engine_calls(monkeypatch, "write")
    array.lazy.oindex[[1, 2, 600], [5, 700]] = -3
    expected = VALUES.copy()
    expected[np.ix_([1, 2, 600], [5, 700])] = -3
    np.testing.assert_array_equal(array[...], expected)
    assert len(calls) == 4  # chunks (0, 0), (0, 10), (9, 0), (9, 10)


def test_a_lazy_view_reads_through_the_arrays_chunk_cache() -> None:
    store = MemoryStore()
    written(store)
    array = zf.open_array(store, "a", chunk_cache=2**22)
    for start in range(0, 128, 8):
        np.testing.assert_array_equal(
            array.lazy[start : start + 8, :128].result(), VALUES[start : start + 8, :128]
        )
    assert array.chunk_cache is not None and array.chunk_cache.stats().misses == 4


def test_the_machines_data_fits_the_layouts() -> None:
    """(The layouts above are drawn for the machine's 7 x 5 x 4 data.)"""
    assert DEFAULT_DATA.shape == (7, 5, 4)


def test_the_reader_reorders_and_broadcasts_what_an_affine_transform_asks() -> None:
    """Transforms zarr-indexing's NumPy dialect does not compose but its ``Reader``
    protocol allows (TensorStore's transposes, an input dimension no source dimension
    follows, a zero stride): read through the reader directly."""
    from zarr_indexing import ConstantMap, DimensionMap, IndexDomain, IndexTransform, ReadContext

    array = written(MemoryStore())
    domain = IndexDomain.from_shape((3, 4, 2))
    transform = IndexTransform(
        domain=domain,
        output=(
            DimensionMap(input_dimension=1, offset=900, stride=-5),  # source rows follow input 1
            DimensionMap(input_dimension=0, offset=7, stride=3),  # source columns follow input 0
        ),
    )  # input 2 is followed by nothing: each value repeats along it
    out = np.empty(domain.shape, dtype="i4")
    ENGINE_READER.read_into(array, ReadContext(transform), out)
    rows, columns = np.arange(4) * -5 + 900, np.arange(3) * 3 + 7
    expected = np.broadcast_to(VALUES[np.ix_(rows, columns)].T[:, :, None], (3, 4, 2))
    np.testing.assert_array_equal(out, expected)
    repeated = IndexTransform(
        domain=IndexDomain.from_shape((2, 3)),
        output=(ConstantMap(offset=5), DimensionMap(input_dimension=0, offset=11, stride=0)),
    )
    out = np.empty((2, 3), dtype="i4")
    ENGINE_READER.read_into(array, ReadContext(repeated), out)
    np.testing.assert_array_equal(out, np.full((2, 3), VALUES[5, 11]))
