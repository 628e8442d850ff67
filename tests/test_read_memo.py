"""ReadMemo, and what it buys: creating a node reads no store key twice."""

from __future__ import annotations

import collections

import pytest

import zarrforge as zf
from zarrforge.abc.store import ABSENT, WrapperStore
from zarrforge.errors import StoreError
from zarrforge.storing.read_memo import ReadMemo
from zarrforge_std.stores.memory import MemoryStore


class KeyLog(WrapperStore):
    """Counts whole-value reads per key (get and get_many alike)."""

    def __init__(self, inner):
        super().__init__(inner)
        self.reads = collections.Counter()
        self.fail_sets = False

    def get(self, key, byte_range=None):
        self.reads[key] += 1
        return self.inner.get(key, byte_range)

    def get_many(self, requests):
        return [self.get(key, byte_range) for key, byte_range in requests]

    def _set(self, key, value):
        if self.fail_sets:
            raise StoreError(f"injected failure writing {key!r}")
        super()._set(key, value)


def test_reads_are_remembered_and_follow_own_writes():
    inner = MemoryStore()
    inner.set("a", b"1")
    log = KeyLog(inner)
    memo = ReadMemo(log)
    assert memo.get("a") == b"1" and memo.get("a") == b"1"
    assert memo.get_many([("a", None), ("b", None), ("b", None)]) == [b"1", None, None]
    assert log.reads == {"a": 1, "b": 1}
    memo.set("b", b"2")
    memo.delete("a")
    assert memo.get("b") == b"2" and memo.get("a") is None and not memo.exists("a")
    assert log.reads == {"a": 1, "b": 1}
    assert inner.get("b") == b"2" and inner.get("a") is None


def test_a_failed_write_is_read_again():
    inner = MemoryStore()
    inner.set("a", b"old")
    log = KeyLog(inner)
    memo = ReadMemo(log)
    assert memo.get("a") == b"old"
    log.fail_sets = True
    with pytest.raises(StoreError):
        memo.set("a", b"new")
    assert memo.get("a") == b"old" and log.reads["a"] == 2


def test_erase_prefix_forgets_what_was_below():
    inner = MemoryStore()
    inner.set("g/x", b"1")
    inner.set("h", b"2")
    memo = ReadMemo(inner)
    assert memo.get("g/x") == b"1" and memo.get("h") == b"2"
    memo.erase_prefix("g/")
    assert memo.get("g/x") is None and memo.get("h") == b"2"


def test_byte_ranges_go_to_the_store():
    from zarrforge.abc.store import ByteRange

    inner = MemoryStore()
    inner.set("a", b"0123")
    memo = ReadMemo(inner)
    assert memo.get("a") == b"0123"
    inner.set("a", b"abcd")  # a range read is never answered from the memo
    assert memo.get("a", ByteRange(1, 2)) == b"bc"


@pytest.mark.parametrize("where", ["", "deep/er"])
def test_creating_an_array_reads_no_key_twice(where):
    log = KeyLog(MemoryStore())
    zf.create_group(log, where, attributes={"x": 1})
    zf.consolidate_metadata(log, where)  # the creation must update the consolidated view
    log.reads.clear()
    zf.create_array(log, f"{where}/a".strip("/"), shape=(10,), dtype="int32", attributes={"a": 1})
    twice = {key: n for key, n in log.reads.items() if n > 1}
    assert not twice, twice
    assert "a" in zf.open_group(log, where, use_consolidated=True)  # the view lists it


class VersionedLog(WrapperStore):
    """A memory store's conditional reads, counted per call."""

    forwards_conditional_writes = True

    def __init__(self, inner):
        super().__init__(inner)
        self.calls = []

    def _get_versioned(self, key):
        self.calls.append([key])
        return self.inner.get_versioned(key)

    def get_versioned_many(self, keys):
        self.calls.append(list(keys))
        return self.inner.get_versioned_many(keys)


def test_on_a_store_with_generations_reads_are_versioned_batched_and_answered_once():
    inner = MemoryStore()
    inner.set("a", b"1")
    log = VersionedLog(inner)
    memo = ReadMemo(log)
    assert memo.get_many([("a", None), ("b", None)]) == [b"1", None]
    assert log.calls == [["a", "b"]], "the keys it lacked, read in one batch"
    generation = inner.get_versioned("a")[1]
    assert memo.get_versioned_many(["b", "a", "c", "d"]) == [
        (None, ABSENT),
        (b"1", generation),
        (None, ABSENT),
        (None, ABSENT),
    ]
    assert log.calls == [["a", "b"], ["c", "d"]], "only the keys it had not read, in one batch"
    assert memo.get_versioned("a") == (b"1", generation) and len(log.calls) == 2
    memo.set_if("a", b"2", if_generation=generation)  # a conditional write forgets the key
    assert memo.get_versioned("a")[0] == b"2" and log.calls[-1] == ["a"]
