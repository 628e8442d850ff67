"""Concurrent writers of one array (local directory store, and the memory store for threads).

Guarantees shown here:

* writers of **disjoint chunks** (threads sharing one handle, threads with a
  handle each, processes) lose nothing: every chunk ends with its writer's
  last value;
* writers of **disjoint shards** likewise (each shard is one stored value), v3 and
  the 2022 draft's transformer, whole shards deleted among them too;
* writers of **the same chunk**, each writing the whole chunk: the last
  writer wins per chunk and no reader ever sees a torn chunk (a mixture of
  two writers' values);
* **attributes** updated concurrently (threads, processes, stale handles):
  every change is applied to the latest stored document and written only if
  nobody changed it meanwhile, so no update is lost, and a reader always
  sees a whole document; the same for consolidated views under concurrent
  creation.

* writers of different **parts** of one chunk, or of different inner chunks of
  one shard, on a store with conditional writes (memory, local): each
  read-modify-write stores its result only if the value is still the one it
  read, and is redone otherwise (up to ``config.conflict_retries`` times, then
  ``ConflictError``), so no part is lost.

Not guaranteed, and shown as such: the same through the 2022 draft's sharding
storage transformer, which has no conditional writes; a part can be lost
(never torn).
"""

from __future__ import annotations

import itertools
import json
import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from _reliability import create, generation_values, start_worker

import zarrforge
from zarrforge import config
from zarrforge.errors import ConflictError
from zarrforge.testing.faults import ChangeBetweenReads
from zarrforge.testing.races import run_threads
from zarrforge_std.stores import local as local_module
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore

SHAPE, CHUNKS = (48, 64), (4, 4)
THREADS = 16
ROUNDS = 6


def _store(kind: str, tmp_path: Path):
    return MemoryStore() if kind == "memory" else LocalStore(tmp_path / "store")


def _chunks_of(worker: int, workers: int, step=CHUNKS) -> list[tuple[slice, ...]]:
    grid = [range(0, n, s) for n, s in zip(SHAPE, step)]
    return [
        tuple(slice(o, min(o + s, n)) for o, s, n in zip(origin, step, SHAPE))
        for i, origin in enumerate(itertools.product(*grid))
        if i % workers == worker
    ]


# --- disjoint chunks and shards -------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["memory", "local"])
@pytest.mark.parametrize("handles", ["shared", "one per thread"])
@pytest.mark.parametrize(
    "layout,unit",
    [("v3", "chunk"), ("v2", "chunk"), ("v3-sharded", "shard"), ("draft-2022-sharded", "shard")],
)
def test_threads_writing_disjoint_units_lose_nothing(tmp_path, kind, handles, layout, unit) -> None:
    store = _store(kind, tmp_path)
    shared = create(store, layout, shape=SHAPE, chunks=CHUNKS)
    step = tuple(2 * c for c in CHUNKS) if unit == "shard" else CHUNKS  # create(): shards x2
    values = {g: generation_values(SHAPE, CHUNKS, g) for g in range(1, ROUNDS + 1)}

    def work(i: int) -> None:
        array = shared if handles == "shared" else zarrforge.open_array(store, "a", mode="r+", threads=1)
        for g in range(1, ROUNDS + 1):
            for region in _chunks_of(i, THREADS, step):
                array[region] = values[g][region]

    assert run_threads(work, THREADS) == []
    assert np.array_equal(zarrforge.open_array(store, "a")[...], values[ROUNDS])


@pytest.mark.parametrize(
    "layout,unit",
    [("v3", "chunk"), ("v3-sharded", "shard"), ("v2", "chunk"), ("draft-2022-sharded", "shard")],
)
def test_processes_writing_disjoint_units_lose_nothing(tmp_path, layout, unit) -> None:
    root = tmp_path / "store"
    create(str(root), layout, shape=SHAPE, chunks=CHUNKS)
    workers = 4
    rounds = 4
    processes = [
        start_worker(
            "disjoint",
            str(root),
            ",".join(map(str, SHAPE)),
            ",".join(map(str, CHUNKS)),
            str(w),
            str(workers),
            str(rounds),
            unit,
        )
        for w in range(workers)
    ]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in processes]
    for p in processes:
        p.stdout.close()
        p.stderr.close()
    assert all(code == 0 for code, _ in results), [err[-1500:] for code, err in results if code]
    assert np.array_equal(zarrforge.open_array(str(root), "a")[...], generation_values(SHAPE, CHUNKS, rounds))


@pytest.mark.parametrize("handles", ["shared", "one per thread"])
@pytest.mark.parametrize(
    "layout,unit,seconds",
    [("v3", "chunk", 5), ("v3-sharded", "shard", 1.5), ("draft-2022-sharded", "shard", 1.5)],
)
def test_threads_writing_and_deleting_disjoint_chunks(tmp_path, handles, layout, unit, seconds) -> None:
    """As above, but odd rounds write the fill value, so chunks (or whole shards) are
    deleted (and emptied directories pruned) while other threads write chunks in the
    same directories. Runs for ``seconds``, or until the first error."""
    store = LocalStore(tmp_path / "store")
    shared = create(store, layout, shape=SHAPE, chunks=CHUNKS, compressors=None)
    step = tuple(2 * c for c in CHUNKS) if unit == "shard" else CHUNKS  # create(): shards x2
    values = generation_values(SHAPE, CHUNKS, 1)
    deadline = time.monotonic() + seconds
    failed = threading.Event()

    def work(i: int) -> None:
        array = shared if handles == "shared" else zarrforge.open_array(store, "a", mode="r+", threads=1)
        try:
            while time.monotonic() < deadline and not failed.is_set():
                for fill in (True, False):
                    for region in _chunks_of(i, THREADS, step):
                        array[region] = 0 if fill else values[region]
        except BaseException:
            failed.set()
            raise

    errors = run_threads(work, THREADS)
    assert errors == [], errors[:3]
    assert np.array_equal(zarrforge.open_array(store, "a")[...], values)


def test_local_set_survives_a_concurrent_prune(tmp_path, monkeypatch) -> None:
    """The race of the test above made deterministic: the directory of the key being
    written is removed (as a concurrent ``delete`` of its last other file does) right
    after ``_set`` created it."""
    store = LocalStore(tmp_path)
    store.set("a/c/0/1", b"other")
    real_makedirs = local_module.os.makedirs

    def makedirs_then_concurrent_delete(path, exist_ok=False):
        real_makedirs(path, exist_ok=exist_ok)
        if path.endswith("/c/0") and store.exists("a/c/0/1"):
            store.delete("a/c/0/1")  # another writer deletes the directory's last file

    monkeypatch.setattr(local_module.os, "makedirs", makedirs_then_concurrent_delete)
    store.set("a/c/0/0", b"value")
    assert store.get("a/c/0/0") == b"value"


@pytest.mark.skipif(os.name != "posix", reason="directory descriptors are used on POSIX")
def test_local_batch_survives_a_concurrent_prune(tmp_path: Path, monkeypatch, local_batches: str) -> None:
    """A concurrent delete may prune the directory a batch opened (Linux then creates
    nothing in it): the batch goes on the path-based way, which makes it again; in Python
    and through the C helper alike."""
    store = LocalStore(tmp_path)
    (tmp_path / "a").mkdir()
    real_open_directory = local_module._open_directory
    pruned: list[str] = []

    def opened_then_pruned(directory: str, *, make: bool) -> int | None:
        at = real_open_directory(directory, make=make)
        if at is not None and not pruned:
            os.rmdir(directory)  # what a concurrent delete's pruning does
            pruned.append(directory)
        return at

    monkeypatch.setattr(local_module, "_open_directory", opened_then_pruned)
    store.set_many([(f"a/{i}", bytes([i])) for i in range(4)])
    assert pruned == [str(tmp_path / "a")]
    assert store.get_many([(f"a/{i}", None) for i in range(4)]) == [bytes([i]) for i in range(4)]
    assert sorted(os.listdir(tmp_path / "a")) == ["0", "1", "2", "3"]


def test_local_conditional_write_survives_a_concurrent_prune(tmp_path, monkeypatch) -> None:
    """The same race on the conditional path, found by tests/test_transaction.py's
    concurrent commits: another writer creates the lock file's directory and a prune
    removes it again while ``makedirs`` runs, so ``makedirs(exist_ok=True)`` raises
    FileExistsError for a directory that is no longer there."""
    store = LocalStore(tmp_path)
    real_makedirs = local_module.os.makedirs
    raced: list[str] = []

    def makedirs_losing_the_race(path, exist_ok=False):
        if not raced:
            raced.append(path)
            raise FileExistsError(17, "File exists", path)
        real_makedirs(path, exist_ok=exist_ok)

    monkeypatch.setattr(local_module.os, "makedirs", makedirs_losing_the_race)
    store.set_if_absent("records/r1", b"value")
    assert raced and store.get("records/r1") == b"value"


# --- one chunk, many writers ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["memory", "local"])
@pytest.mark.parametrize("layout", ["v3", "v3-sharded", "v2"])
def test_same_chunk_last_writer_wins_and_nothing_is_torn(tmp_path, kind, layout) -> None:
    store = _store(kind, tmp_path)
    shape, chunks = (64, 64), (32, 32)
    create(store, layout, shape=shape, chunks=chunks)
    writers, rounds = 8, 40
    chunk = zarrforge.open_array(store, "a").chunks
    region = tuple(slice(0, c) for c in chunk)
    stop = threading.Event()
    seen: list[int] = []
    problems: list[str] = []

    def reader() -> None:
        array = zarrforge.open_array(store, "a")
        while not stop.is_set():
            block = array[region]
            values = np.unique(block)
            if len(values) != 1:
                problems.append(f"torn read: values {values[:10]}")
                return
            seen.append(int(values[0]))

    def writer(i: int) -> None:
        array = zarrforge.open_array(store, "a", mode="r+", threads=1)
        for r in range(rounds):
            array[region] = np.full(chunk, (i + 1) * 1000 + r, dtype="int32")

    reading = threading.Thread(target=reader)
    reading.start()
    errors = run_threads(writer, writers)
    stop.set()
    reading.join()
    assert errors == [] and problems == []
    final = np.unique(zarrforge.open_array(store, "a")[region])
    assert len(final) == 1 and final[0] % 1000 == rounds - 1  # some writer's last round
    assert len(seen) > 0


@pytest.mark.parametrize("layout", ["v3", "v3-sharded"])
def test_same_chunk_from_processes(tmp_path, layout) -> None:
    root = tmp_path / "store"
    create(str(root), layout, shape=(64, 64), chunks=(32, 32))
    writers, rounds = 4, 60
    processes = [start_worker("same-chunk", str(root), str(i + 1), str(rounds)) for i in range(writers)]
    array = zarrforge.open_array(str(root), "a")
    region = tuple(slice(0, c) for c in array.chunks)
    reads = 0
    while any(p.poll() is None for p in processes):
        block = array[region]
        assert len(np.unique(block)) == 1, "a reader saw a torn chunk"
        reads += 1
    for p in processes:
        assert p.wait() == 0, p.stderr.read()[-1500:]
        p.stdout.close()
        p.stderr.close()
    final = np.unique(array[region])
    assert len(final) == 1 and final[0] % 1000 == rounds - 1


# --- parts of one stored value: read-modify-write with conditional writes -------------------------------


@pytest.mark.parametrize("kind", ["memory", "local"])
@pytest.mark.parametrize("layout", ["v3", "v3-sharded", "v2"])
def test_parts_of_one_chunk_lose_no_update(tmp_path, kind, layout) -> None:
    """Threads writing different elements of the same chunk (or different inner chunks
    of one shard): each write reads the stored value, changes its part and stores it
    only if nobody changed it meanwhile, else does it again, so no part is lost."""
    store = _store(kind, tmp_path)
    shape = (8, 8)
    create(store, layout, shape=shape, chunks=(8, 8) if layout != "v3-sharded" else (2, 2))
    for trial in range(5):
        zarrforge.open_array(store, "a", mode="r+")[...] = 0

        def writer(i: int) -> None:
            array = zarrforge.open_array(store, "a", mode="r+", threads=1)
            row, col = divmod(i, 4)
            array[row * 2 : (row + 1) * 2, col * 2 : (col + 1) * 2] = i + 1

        assert run_threads(writer, 16) == []
        result = zarrforge.open_array(store, "a")[...]
        expected = np.kron(np.arange(1, 17).reshape(4, 4), np.ones((2, 2), dtype=int))
        assert np.array_equal(result, expected), (trial, result)


@pytest.mark.parametrize("layout", ["v3", "v3-sharded", "v2"])
def test_parts_of_one_chunk_from_threads_on_a_store_without_conditional_writes(tmp_path, layout) -> None:
    """A store without conditional writes (an fsspec store, say) cannot order writers in
    other processes, but threads of one process take turns on a chunk (the engine holds a
    lock for each chunk it reads, changes and writes back), so none loses an update: the
    dask threaded scheduler writing misaligned blocks, for one."""
    from zarrforge.abc.store import WrapperStore

    store = WrapperStore(MemoryStore())  # passes no conditional writes through
    assert not store.capabilities.conditional_writes
    create(store, layout, shape=(8, 8), chunks=(8, 8) if layout != "v3-sharded" else (2, 2))
    for trial in range(5):
        zarrforge.open_array(store, "a", mode="r+")[...] = 0

        def writer(i: int) -> None:
            array = zarrforge.open_array(store, "a", mode="r+", threads=1)
            row, col = divmod(i, 4)
            for _ in range(3):
                array[row * 2 : (row + 1) * 2, col * 2 : (col + 1) * 2] = i + 1

        assert run_threads(writer, 16) == []
        result = zarrforge.open_array(store, "a")[...]
        expected = np.kron(np.arange(1, 17).reshape(4, 4), np.ones((2, 2), dtype=int))
        assert np.array_equal(result, expected), (trial, result)


@pytest.mark.parametrize("layout", ["v3", "v3-sharded", "v2"])
def test_parts_of_one_chunk_from_processes_lose_no_update(tmp_path, layout) -> None:
    """Four processes, each writing every fourth element of a 2x2-chunk array (so every
    chunk, and every inner chunk of a shard, has four writers) for many rounds: in the
    end every element holds its writer's last round."""
    root = tmp_path / "store"
    create(str(root), layout, shape=(16, 16), chunks=(4, 4) if layout == "v3-sharded" else (8, 8))
    writers, rounds = 4, 25
    processes = [start_worker("parts", str(root), str(i), str(writers), str(rounds)) for i in range(writers)]
    for p in processes:
        assert p.wait() == 0, p.stderr.read()[-1500:]
        p.stdout.close()
        p.stderr.close()
    result = zarrforge.open_array(str(root), "a")[...]
    owner = np.arange(result.size).reshape(result.shape) % writers
    assert np.array_equal(result, owner * 1000 + rounds - 1)


@pytest.mark.parametrize("kind", ["memory", "local"])
@pytest.mark.parametrize("layout", ["v3", "v3-sharded", "v2"])
def test_a_part_of_a_chunk_that_keeps_changing_gives_up_with_a_conflict(tmp_path, kind, layout) -> None:
    """The bound on the redoing: a read-modify-write that meets another writer's change
    of its chunk after every read is tried ``config.conflict_retries`` + 1 times, then
    raises ``ConflictError`` naming the chunk, and the chunk holds the other writer's
    last value (never this write's part on top of an older one)."""
    store = _store(kind, tmp_path)
    other = create(store, layout, shape=(4, 4), chunks=(2, 2) if layout == "v3-sharded" else (4, 4))
    other[...] = 100
    rounds = itertools.count(1)
    last = []

    def change() -> None:
        last.append(next(rounds))
        other[...] = last[-1]

    wrapper = ChangeBetweenReads(store, change, times=10**6, versioned_only=True)
    array = zarrforge.open_array(wrapper, "a", mode="r+", threads=1)
    wrapper.reads = 0
    (chunk_key,) = [k for k in store.list_prefix("a/") if k.rsplit("/", 1)[-1][0] in "c0"]
    with (
        config.set(conflict_retries=3),
        pytest.raises(ConflictError, match="kept changing.*conflict_retries") as caught,
    ):
        array[0, 0] = -1
    assert caught.value.key == chunk_key
    assert wrapper.reads == 4
    assert np.array_equal(zarrforge.open_array(store, "a")[...], np.full((4, 4), last[-1]))


def test_shards_of_the_draft_transformer_may_still_lose_parts(tmp_path) -> None:
    """Not guaranteed: the 2022 draft's sharding storage transformer groups chunks into
    shard objects itself and offers no conditional writes, so writers of different
    chunks of one shard do a plain read-modify-write of the shard; a part can be lost,
    never torn (every element ends as the fill value or its writer's)."""
    store = LocalStore(tmp_path / "store")
    create(store, "draft-2022-sharded", shape=(8, 8), chunks=(2, 2))
    array = zarrforge.open_array(store, "a")
    assert not array.chunk_store.capabilities.conditional_writes
    lost = 0
    for trial in range(5):
        zarrforge.open_array(store, "a", mode="r+")[...] = 0

        def writer(i: int) -> None:
            handle = zarrforge.open_array(store, "a", mode="r+", threads=1)
            row, col = divmod(i, 4)
            handle[row * 2 : (row + 1) * 2, col * 2 : (col + 1) * 2] = i + 1

        assert run_threads(writer, 16) == []
        result = zarrforge.open_array(store, "a")[...]
        for i in range(16):
            row, col = divmod(i, 4)
            block = result[row * 2 : (row + 1) * 2, col * 2 : (col + 1) * 2]
            assert np.all(block == i + 1) or np.all(block == 0), (trial, i, block)
            lost += int(np.all(block == 0))
    print(f"draft-2022-sharded: {lost} of 80 concurrent partial updates lost")


# --- attributes -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["v3", "v2", "draft-2022"])
def test_attribute_update_from_a_stale_handle_keeps_the_other_update(tmp_path, layout) -> None:
    """The semantics, deterministically: a change is applied to the latest stored
    document, so an update made through another handle (opened earlier) is kept, and
    the stale handle sees it afterwards."""
    store = LocalStore(tmp_path / "store")
    create(store, layout, shape=(4,), chunks=(2,))
    first = zarrforge.open_array(store, "a", mode="r+")
    second = zarrforge.open_array(store, "a", mode="r+")
    first.attrs["a"] = 1
    second.attrs["b"] = 2
    assert dict(zarrforge.open_array(store, "a").attrs) == {"a": 1, "b": 2}
    assert dict(second.attrs) == {"a": 1, "b": 2}
    del first.attrs["a"]  # first's copy is stale ({"a": 1}); b survives the delete
    assert dict(zarrforge.open_array(store, "a").attrs) == {"b": 2}
    second.resize(6)  # a resize from a stale handle keeps attributes set elsewhere too
    assert dict(zarrforge.open_array(store, "a").attrs) == {"b": 2}


# where each layout keeps an array's attributes, and how to find them in that document
ATTRIBUTES_DOCUMENT = {
    "v3": ("a/zarr.json", lambda doc: doc["attributes"]),
    "v2": ("a/.zattrs", lambda doc: doc),
    "draft-2022": ("meta/root/a.array.json", lambda doc: doc["attributes"]),
}


@pytest.mark.parametrize("layout", sorted(ATTRIBUTES_DOCUMENT))
@pytest.mark.parametrize("kind", ["memory", "local"])
def test_concurrent_attribute_updates_lose_nothing(tmp_path, kind, layout) -> None:
    store = _store(kind, tmp_path)
    create(store, layout, shape=(4,), chunks=(2,))
    key, attributes_of = ATTRIBUTES_DOCUMENT[layout]
    rounds = 15

    def writer(i: int) -> None:
        for r in range(rounds):
            zarrforge.open_array(store, "a", mode="r+").attrs[f"w{i}-{r}"] = r

    stop = threading.Event()
    documents: list[int] = []
    problems: list[str] = []

    def reader() -> None:
        while not stop.is_set():
            try:
                documents.append(len(attributes_of(json.loads(store.get(key) or b"{}"))))
            except (ValueError, KeyError, TypeError) as exc:
                problems.append(repr(exc))

    reading = threading.Thread(target=reader)
    reading.start()
    assert run_threads(writer, 8) == []
    stop.set()
    reading.join()
    assert problems == []  # every document a reader saw was whole
    attributes = dict(zarrforge.open_array(store, "a").attrs)
    lost = {f"w{i}-{r}" for i in range(8) for r in range(rounds)} - set(attributes)
    print(
        f"{layout}, {kind}, 8 threads x {rounds} keys: {len(lost)} lost, "
        f"{len(documents)} whole documents read meanwhile"
    )
    assert lost == set()


@pytest.mark.parametrize("layout", sorted(ATTRIBUTES_DOCUMENT))
def test_concurrent_attribute_updates_from_processes_lose_nothing(tmp_path, layout) -> None:
    root = tmp_path / "store"
    create(str(root), layout, shape=(4,), chunks=(2,))
    key, attributes_of = ATTRIBUTES_DOCUMENT[layout]
    rounds = 20
    processes = [start_worker("set-attr", str(root), str(w), str(rounds)) for w in range(4)]
    while any(p.poll() is None for p in processes):
        path = root.joinpath(*key.split("/"))
        if path.exists():
            attributes_of(json.loads(path.read_bytes()))  # always a whole document
    for p in processes:
        assert p.wait() == 0, p.stderr.read()[-1500:]
        p.stdout.close()
        p.stderr.close()
    attributes = dict(zarrforge.open_array(str(root), "a").attrs)
    expected = {f"w{w}-{r}": r for w in range(4) for r in range(rounds)}
    print(f"{layout}, 4 processes x {rounds} keys: {len(set(expected) - set(attributes))} lost")
    assert attributes == expected


def test_concurrent_creation_under_a_consolidated_root_keeps_every_entry(tmp_path) -> None:
    store = LocalStore(tmp_path / "store")
    zarrforge.create_group(store)
    zarrforge.consolidate_metadata(store)

    def creator(i: int) -> None:
        zarrforge.create_array(store, f"g{i}/a", shape=(2,), dtype="int8")

    assert run_threads(creator, 8) == []
    entries = zarrforge.open_group(store, mode="r").metadata_model.consolidated
    assert sorted(entries) == sorted([f"g{i}" for i in range(8)] + [f"g{i}/a" for i in range(8)])


@pytest.mark.parametrize("kind", ["memory", "local"])
def test_a_shrinking_resize_keeps_a_partial_write_that_lands_in_its_edge_chunk(tmp_path, kind):
    """The trim of an edge chunk is a read-modify-write like any other: another writer's
    element written between the trim's read and its write survives (the trim is redone
    on the changed chunk)."""
    from zarrforge.abc.store import WrapperStore

    store = _store(kind, tmp_path)
    zarrforge.create_array(store, "a", shape=(8,), chunks=(4,), dtype="i4", fill_value=0)[...] = 1
    other = zarrforge.open_array(store, "a", mode="r+")

    class WriterInBetween(WrapperStore):
        forwards_conditional_writes = True
        done = False

        def _after_reading(self, key):
            if key == "a/c/1" and not self.done:
                type(self).done = True
                other[4] = 42  # lands after the trim read the edge chunk

        def _get_versioned(self, key):
            answer = super()._get_versioned(key)
            self._after_reading(key)
            return answer

        def get(self, key, byte_range=None):
            answer = super().get(key, byte_range)
            self._after_reading(key)
            return answer

    zarrforge.open_array(WriterInBetween(store), "a", mode="r+").resize(6)
    assert zarrforge.open_array(store, "a")[...].tolist() == [1, 1, 1, 1, 42, 1]
    zarrforge.open_array(store, "a", mode="r+").resize(8)
    assert zarrforge.open_array(store, "a")[...].tolist() == [1, 1, 1, 1, 42, 1, 0, 0]
