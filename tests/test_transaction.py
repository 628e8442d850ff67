"""zarrforge.transaction: buffered writes, reads of one's own writes, conditional commits.

The semantics under test are those of the module docstring of zarrforge.storing.transaction:
nothing reaches the store before commit, a commit that meets another writer's change
writes nothing (or puts back what it wrote), and a store without conditional writes
is refused.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import zarrforge as zf
from zarrforge import config
from zarrforge.abc.store import WrapperStore
from zarrforge.errors import ConflictError, ResourceLimitError, StoreError, TransactionError
from zarrforge.storing.storage import resolve_store


@pytest.fixture(params=["memory", "local"])
def store(request, tmp_path):
    return resolve_store(None if request.param == "memory" else str(tmp_path / "data.zarr"))


def _array(store, path="x", shape=(12,), chunks=(4,), value=1):
    array = zf.create_array(store, path, shape=shape, chunks=chunks, dtype="i4", fill_value=0)
    array[...] = value
    return array


def _snapshot(store) -> dict[str, bytes]:
    return {key: store.get(key) for key in store.list_prefix("")}


def test_nothing_reaches_the_store_before_commit_and_reads_see_the_transactions_writes(store):
    _array(store)
    before = _snapshot(store)
    with zf.transaction(store) as tx:
        inside = zf.open_array(tx, "x", mode="r+")
        inside[1:3] = 7
        inside.attrs["units"] = "m"
        new = zf.create_array(tx, "group/y", shape=(2, 2), chunks=(1, 2), dtype="f8")
        new[...] = 2.5
        assert _snapshot(store) == before
        assert inside[:4].tolist() == [1, 7, 7, 1]
        assert zf.open_array(tx, "x").attrs["units"] == "m"
        assert [name for name, _ in zf.open_group(tx, mode="r").members(max_depth=None)] == [
            "group",
            "group/y",
            "x",
        ]
        assert zf.open_array(tx, "group/y")[...].tolist() == [[2.5, 2.5], [2.5, 2.5]]
    assert tx.state == "committed"
    assert zf.open_array(store, "x")[:4].tolist() == [1, 7, 7, 1]
    assert zf.open_array(store, "x").attrs["units"] == "m"
    assert zf.open_array(store, "group/y")[...].tolist() == [[2.5, 2.5], [2.5, 2.5]]
    assert zf.unfinished_commits(store) == []


def test_abort_and_an_exception_in_the_block_leave_the_store_as_it_was(store):
    _array(store)
    before = _snapshot(store)
    tx = zf.transaction(store)
    zf.open_array(tx, "x", mode="r+")[...] = 5
    tx.abort()
    assert _snapshot(store) == before and tx.state == "aborted"
    with pytest.raises(RuntimeError, match="boom"):
        with zf.transaction(store) as tx2:
            zf.open_array(tx2, "x", mode="r+")[...] = 6
            raise RuntimeError("boom")
    assert tx2.state == "aborted"
    assert _snapshot(store) == before


def test_deletes_and_erases_are_buffered_too(store):
    _array(store)
    _array(store, "g/z")
    with zf.transaction(store) as tx:
        zf.open_array(tx, "x", mode="r+")[...] = 0  # the fill value: chunks are deleted
        tx.erase_prefix("g/")
        assert sorted(tx.list_prefix("")) == ["x/zarr.json", "zarr.json"]
        assert "x/c/0" in set(store.list_prefix(""))
    assert sorted(store.list_prefix("")) == ["x/zarr.json", "zarr.json"]


def test_a_key_read_and_written_that_another_writer_changed_refuses_the_whole_commit(store):
    outside = _array(store)
    tx = zf.transaction(store)
    inside = zf.open_array(tx, "x", mode="r+")
    inside[1] = 7  # a partial write of chunk 0: read, then written
    inside[4:8] = 8  # chunk 1 whole: written without reading
    outside[2] = 5  # another writer changes chunk 0 meanwhile
    before = _snapshot(store)
    with pytest.raises(ConflictError) as caught:
        tx.commit()
    assert caught.value.keys == ["x/c/0"]
    assert "nothing was written" in str(caught.value)
    assert _snapshot(store) == before
    assert zf.open_array(store, "x")[:8].tolist() == [1, 1, 5, 1, 1, 1, 1, 1]
    assert tx.state == "aborted"


def test_attribute_changes_are_checked_against_the_document_read(store):
    outside = _array(store)
    tx = zf.transaction(store)
    zf.open_array(tx, "x", mode="r+").attrs["a"] = 1
    outside.attrs["b"] = 2
    with pytest.raises(ConflictError, match="x/zarr.json"):
        tx.commit()
    assert dict(zf.open_array(store, "x").attrs) == {"b": 2}


def test_a_whole_chunk_written_without_reading_needs_no_condition(store):
    outside = _array(store)
    tx = zf.transaction(store)
    zf.open_array(tx, "x", mode="r+")[4:8] = 8
    outside[4:8] = 3
    tx.commit()
    assert zf.open_array(store, "x")[4:8].tolist() == [8, 8, 8, 8]


def test_a_second_read_that_finds_another_value_is_a_conflict_at_once(store):
    outside = _array(store)
    tx = zf.transaction(store)
    inside = zf.open_array(tx, "x", mode="r+")
    assert inside[0] == 1
    outside[0] = 9
    with pytest.raises(ConflictError, match="after this transaction read it"):
        inside[0]
    tx.abort()


def test_threads_writing_parts_of_one_chunk_inside_one_transaction_lose_nothing(store):
    _array(store, shape=(64,), chunks=(64,), value=0)
    tx = zf.transaction(store)
    inside = zf.open_array(tx, "x", mode="r+")

    def write(worker: int) -> None:
        for i in range(worker, 64, 8):
            inside[i] = i + 1

    threads = [threading.Thread(target=write, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    tx.commit()
    assert zf.open_array(store, "x")[...].tolist() == list(range(1, 65))


def test_a_conflict_during_the_commit_puts_back_what_was_written(store):
    _array(store)
    _array(store, "y")
    tx = zf.transaction(store)
    zf.open_array(tx, "x", mode="r+")[1] = 7
    zf.open_array(tx, "y", mode="r+")[1] = 7
    original = {key: store.get(key) for key in ("x/c/0", "y/c/0")}

    class ChangesYFirst(WrapperStore):
        """Another writer changes y/c/0 just before the commit writes it."""

        forwards_conditional_writes = True

        def _set_if(self, key, value, if_generation):
            if key == "y/c/0":
                store.set(key, b"other writer")
            return super()._set_if(key, value, if_generation)

    tx.store = ChangesYFirst(store)
    with pytest.raises(ConflictError, match="put back") as caught:
        tx.commit()
    assert caught.value.keys == ["y/c/0"]
    assert store.get("x/c/0") == original["x/c/0"]
    assert store.get("y/c/0") == b"other writer"
    assert zf.unfinished_commits(store) == []


def _committing_through_a_fault(store, method: str, key: str):
    """A transaction writing x[1] and y[1], committing through a store whose ``method``
    of ``key`` fails."""
    from zarrforge.testing.faults import Fail, FaultyStore, on

    tx = zf.transaction(store)
    for name in ("x", "y"):
        zf.open_array(tx, name, mode="r+")[1] = 7
    faulty = FaultyStore(store, conditional=True)
    faulty.add(on(method, key), Fail())
    tx.store = faulty
    return tx


def test_a_store_error_during_the_commit_puts_back_what_was_written(store):
    """Not only a conflict: a write that fails part way through the commit makes it put
    back the keys it wrote, remove its record and raise, so the commit changed nothing."""
    _array(store)
    _array(store, "y")
    before = {key: store.get(key) for key in sorted(store.list())}
    tx = _committing_through_a_fault(store, "set", "y/c/0")
    with pytest.raises(StoreError, match="y/c/0"):
        tx.commit()
    assert {key: store.get(key) for key in sorted(store.list())} == before
    assert zf.unfinished_commits(store) == []


def test_a_commit_whose_record_cannot_be_removed_stands_and_says_so(store):
    """Step 5 failing is not a failed commit (a caller would undo what is done): every key
    holds its new value, a CommitRecordWarning names the record left behind."""
    from zarrforge.errors import CommitRecordWarning

    _array(store)
    _array(store, "y")
    tx = _committing_through_a_fault(store, "delete", "__zarrforge_commits/*")
    with pytest.warns(CommitRecordWarning, match="committed, but its commit record"):
        tx.commit()
    assert zf.open_array(store, "x")[1] == 7
    assert zf.open_array(store, "y")[1] == 7
    [left] = zf.unfinished_commits(store)
    zf.clear_commit_record(store, left)
    assert zf.unfinished_commits(store) == []


def test_put_back_never_undoes_a_third_writers_change(store):
    _array(store)
    _array(store, "y")
    tx = zf.transaction(store)
    zf.open_array(tx, "x", mode="r+")[1] = 7
    zf.open_array(tx, "y", mode="r+")[1] = 7

    class Interferes(WrapperStore):
        forwards_conditional_writes = True

        def _set_if(self, key, value, if_generation):
            if key == "y/c/0":
                store.set("x/c/0", b"third writer")  # after the commit wrote x/c/0
                store.set(key, b"other writer")
            return super()._set_if(key, value, if_generation)

    tx.store = Interferes(store)
    with pytest.raises(ConflictError):
        tx.commit()
    assert store.get("x/c/0") == b"third writer"


def test_buffered_bytes_are_bounded_and_a_refused_write_keeps_the_rest(store):
    zf.create_array(store, "x", shape=(4096,), chunks=(1024,), dtype="i4", compressors=None)
    tx = zf.transaction(store, max_bytes=6000)
    inside = zf.open_array(tx, "x", mode="r+")
    inside[:1024] = np.arange(1, 1025)  # one chunk of 4096 bytes
    assert tx.buffered_bytes == 4096
    with pytest.raises(ResourceLimitError, match="transaction_max_bytes") as caught:
        inside[1024:3072] = 5  # two more chunks: refused, neither buffered
    assert "8192" in str(caught.value) or "12288" in str(caught.value)
    assert tx.buffered_bytes == 4096
    assert inside[1024:1030].tolist() == [0] * 6
    tx.commit()
    assert zf.open_array(store, "x")[:1024].tolist() == list(range(1, 1025))
    assert zf.open_array(store, "x")[1024:].tolist() == [0] * 3072


def test_the_limit_comes_from_config_by_default(store):
    assert config.get().transaction_max_bytes == 1 << 30  # 1 GiB unless set
    assert zf.transaction(store).max_bytes == 1 << 30
    with config.set(transaction_max_bytes=10):
        tx = zf.transaction(store)
    with pytest.raises(ResourceLimitError, match="over its limit of 10"):
        tx.set("k", b"x" * 11)
    assert tx.buffered_bytes == 0
    with pytest.raises(ValueError, match="transaction_max_bytes"):
        with config.set(transaction_max_bytes=-1):
            pass


def test_a_store_without_conditional_writes_is_refused(store):
    class Plain(WrapperStore):  # forwards no conditional writes
        pass

    with pytest.raises(StoreError, match="conditional writes"):
        zf.transaction(Plain(store))


def test_a_finished_transaction_cannot_be_used(store):
    _array(store)
    tx = zf.transaction(store)
    tx.commit()
    for use in (
        lambda: tx.get("x/zarr.json"),
        lambda: tx.set("k", b"v"),
        tx.commit,
        tx.abort,
        lambda: list(tx.list_prefix("")),
    ):
        with pytest.raises(TransactionError, match="committed; start a new one"):
            use()


def _leave_a_commit_record(store, value: int) -> None:
    """A commit of x[...] = ``value`` whose process went away after writing its record."""
    tx = zf.transaction(store)
    zf.open_array(tx, "x", mode="r+")[...] = value

    class DiesAfterTheRecord(WrapperStore):
        forwards_conditional_writes = True

        def set_many(self, items):
            raise KeyboardInterrupt  # the process is going away mid-commit

    tx.store = DiesAfterTheRecord(store)
    with pytest.raises(KeyboardInterrupt):
        tx.commit()


def test_a_commit_that_read_a_key_an_unfinished_commit_names_is_refused(store):
    """An unfinished commit may still put its keys back: a transaction that read one of
    them is refused, naming the key and the record, with nothing written; one that only
    wrote keys blind, or read none the record names, commits."""
    _array(store)
    _array(store, "y")
    _leave_a_commit_record(store, 3)
    [record] = zf.unfinished_commits(store)
    before = _snapshot(store)
    tx = zf.transaction(store)
    zf.open_array(tx, "x", mode="r+")[1] = 5  # reads x/c/0 to change one element
    zf.open_array(tx, "y", mode="r+")[1] = 5
    with pytest.raises(ConflictError, match="commit refused: another commit") as caught:
        tx.commit()
    assert caught.value.keys == ["x/c/0"] and record.record_key in str(caught.value)
    assert _snapshot(store) == before
    with zf.transaction(store) as blind:
        zf.open_array(blind, "x", mode="r+")[0:4] = 6  # the whole chunk, never read
        zf.open_array(blind, "y", mode="r+")[1] = 6
    assert zf.open_array(store, "x")[:5].tolist() == [6, 6, 6, 6, 1]
    assert zf.open_array(store, "y")[1] == 6
    zf.clear_commit_record(store, record)
    with zf.transaction(store) as again:
        zf.open_array(again, "x", mode="r+")[1] = 5
    assert zf.open_array(store, "x")[:2].tolist() == [6, 5]


def test_transactions_retried_from_threads_lose_no_increment(store):
    _array(store, shape=(1,), chunks=(1,), value=0)
    _array(store, "y", shape=(1,), chunks=(1,), value=0)

    def increment() -> None:
        for _ in range(10):
            while True:
                tx = zf.transaction(store)
                try:
                    for path in ("x", "y"):
                        array = zf.open_array(tx, path, mode="r+")
                        array[0] = array[0] + 1
                    tx.commit()
                    break
                except ConflictError:
                    if tx.state == "open":
                        tx.abort()

    threads = [threading.Thread(target=increment) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert zf.open_array(store, "x")[0] == 40
    assert zf.open_array(store, "y")[0] == 40


def test_an_unfinished_commit_record_is_listed_and_can_be_cleared(store):
    _array(store)
    _leave_a_commit_record(store, 3)
    (record,) = zf.unfinished_commits(store)
    assert record.keys == ["x/c/0", "x/c/1", "x/c/2"]
    # the record is no node: listings do not show it
    assert [name for name, _ in zf.open_group(store, mode="r").members()] == ["x"]
    zf.clear_commit_record(store, record)
    assert zf.unfinished_commits(store) == []
