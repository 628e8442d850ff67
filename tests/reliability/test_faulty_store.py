"""``zarrforge.testing.faults.FaultyStore``: transparent without rules, faults as documented."""

from __future__ import annotations

import errno

import pytest

from zarrforge.abc.store import ByteRange
from zarrforge.errors import StoreError
from zarrforge.testing import FaultyStore, StoreConformance
from zarrforge.testing.faults import Corrupt, Delay, Drop, Fail, Stale, Truncate, on
from zarrforge_std.stores.memory import MemoryStore


class TestFaultyStoreWithoutRulesIsAStore(StoreConformance):
    def make_store(self, tmp_path):
        return FaultyStore(MemoryStore())

    def make_read_only_store(self, store):
        return FaultyStore(MemoryStore(read_only=True, data=store.inner._data))


@pytest.fixture
def store() -> FaultyStore:
    inner = MemoryStore()
    inner.set("a", b"0123456789")
    return FaultyStore(inner)


def test_fail_selects_by_method_key_and_position(store: FaultyStore) -> None:
    store.add(on("set", "x/*", nth=2), Fail())
    store.set("x/1", b"1")
    with pytest.raises(StoreError) as info:
        store.set("x/2", b"2")
    assert info.value.key == "x/2"
    store.set("x/3", b"3")
    store.set("y", b"y")
    assert store.inner.get("x/2") is None and store.inner.get("x/3") == b"3"
    assert [c.key for c, _ in store.fired] == ["x/2"]


def test_fail_in_the_middle_of_a_batch(store: FaultyStore) -> None:
    store.add(on("set", from_nth=3), Fail(OSError(errno.ENOSPC, "no space left")))
    with pytest.raises(OSError):
        store.set_many([(f"k{i}", b"v") for i in range(5)])
    assert sorted(store.inner.list()) == ["a", "k0", "k1"]


def test_times_limits_firings(store: FaultyStore) -> None:
    store.add(on("get", "a"), Fail(), times=1)
    with pytest.raises(StoreError):
        store.get("a")
    assert store.get("a") == b"0123456789"


def test_get_many_splits_into_gets(store: FaultyStore) -> None:
    store.inner.set("b", b"b")
    store.add(on("get", "b"), Fail())
    with pytest.raises(StoreError):
        store.get_many([("a", None), ("b", None)])
    assert [(c.method, c.key) for c in store.calls] == [("get", "a"), ("get", "b")]


def test_truncate_set_and_get(store: FaultyStore) -> None:
    store.add(on("set", "t"), Truncate(3, then_fail=True), times=1)
    with pytest.raises(StoreError):
        store.set("t", b"abcdef")
    assert store.inner.get("t") == b"abc"
    store.add(on("get", "a"), Truncate(0.5))
    assert store.get("a") == b"01234"


def test_corrupt_stale_drop_delay(store: FaultyStore) -> None:
    rule = store.add(on("get", "a"), Corrupt(offset=-1, mask=0x01))
    assert store.get("a") == b"012345678" + b"8"
    store.remove(rule)
    store.set("a", b"new")
    store.add(on(("get", "exists", "getsize"), "a"), Stale())
    assert store.get("a") == b"0123456789" and store.getsize("a") == 10
    assert store.get("a", ByteRange(0, 2)) == b"01"
    store.clear()
    assert store.get("a") == b"new"
    store.add(on("delete"), Drop())
    store.delete("a")
    assert store.get("a") == b"new"
    store.clear()
    store.add(on("get"), Delay(0.01))
    assert store.get("a") == b"new"


def test_callable_error_and_predicates_with_where(store: FaultyStore) -> None:
    store.add(
        on(where=lambda call: call.key_number > 1, method="get"),
        Fail(lambda call: TimeoutError(f"call {call.number}")),
    )
    store.get("a")
    with pytest.raises(TimeoutError, match="call 2"):
        store.get("a")
