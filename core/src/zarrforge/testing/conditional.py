"""The conditional-write conformance suites: generations, ``set_if``, ``delete_if``.

For a store that declares ``capabilities.conditional_writes`` (see
:mod:`zarrforge.abc.store`). Subclass :class:`ConditionalWriteConformance` and
implement ``make_store(tmp_path)`` (a new, empty, writable store) and
``make_read_only_store(store)``, as for
:class:`~zarrforge.testing.StoreConformance` (one class may subclass both).
Stores whose writers may live in other processes also subclass
:class:`CrossProcessConditionalConformance` and implement
``reopen_args(store)``: a picklable callable and arguments that open the same
store in another process.

The concurrency tests count: every writer adds to a counter through
``get_versioned`` / ``set_if`` retried on conflict, and no increment may be
lost.
"""

from __future__ import annotations

import multiprocessing
import threading
from typing import Any, Callable

import pytest

from ..abc.store import ABSENT, Store
from ..errors import ConflictError, ReadOnlyError
from .stores import StoreFactory


def increment(store: Store, key: str, times: int) -> int:
    """Add 1 to the decimal counter at ``key``, ``times`` times; returns the conflicts met."""
    conflicts = 0
    for _ in range(times):
        while True:
            value, generation = store.get_versioned(key)
            count = int(value or b"0") + 1
            try:
                store.set_if(key, str(count).encode(), if_generation=generation)
                break
            except ConflictError:
                conflicts += 1
    return conflicts


def _increment_in_child(opener: Callable[..., Store], args: tuple, key: str, times: int) -> int:
    return increment(opener(*args), key, times)


class ConditionalWriteConformance(StoreFactory):
    threads = 4
    increments = 50

    @pytest.fixture
    def conditional_store(self, tmp_path) -> Store:
        store = self.make_store(tmp_path)
        assert store.capabilities.conditional_writes, (
            f"{store!r} does not declare capabilities.conditional_writes")
        return store

    def test_an_absent_key_has_the_absent_generation(self, conditional_store):
        assert conditional_store.get_versioned("nope") == (None, ABSENT)
        assert conditional_store.get_versioned_many(["nope", "no/such"]) == [(None, ABSENT)] * 2

    def test_set_if_absent_creates_once(self, conditional_store):
        store = conditional_store
        generation = store.set_if_absent("a/k", b"first")
        assert store.get_versioned("a/k") == (b"first", generation)
        with pytest.raises(ConflictError) as info:
            store.set_if_absent("a/k", b"second")
        assert info.value.key == "a/k" and info.value.keys == ["a/k"]
        assert store.get("a/k") == b"first"

    def test_set_if_with_the_current_generation_replaces(self, conditional_store):
        store = conditional_store
        store.set("k", b"one")
        _, generation = store.get_versioned("k")
        new = store.set_if("k", b"two", if_generation=generation)
        value, current = store.get_versioned("k")
        assert (value, current) == (b"two", new)
        assert new != generation

    def test_a_stale_generation_conflicts_and_stores_nothing(self, conditional_store):
        store = conditional_store
        store.set("k", b"one")
        _, stale = store.get_versioned("k")
        store.set("k", b"changed by someone else")
        with pytest.raises(ConflictError):
            store.set_if("k", b"mine", if_generation=stale)
        assert store.get("k") == b"changed by someone else"
        store.delete("k")
        with pytest.raises(ConflictError):  # deleted since: a stale generation again
            store.set_if("k", b"mine", if_generation=stale)
        assert store.get("k") is None

    def test_delete_if(self, conditional_store):
        store = conditional_store
        store.delete_if("never/there", if_generation=ABSENT)  # nothing to delete, as expected
        store.set("k", b"v")
        _, generation = store.get_versioned("k")
        store.set("k", b"w")
        with pytest.raises(ConflictError):
            store.delete_if("k", if_generation=generation)
        assert store.get("k") == b"w"
        _, generation = store.get_versioned("k")
        store.delete_if("k", if_generation=generation)
        assert store.get("k") is None
        with pytest.raises(ConflictError):
            store.delete_if("k", if_generation=generation)

    def test_generations_change_with_every_new_value(self, conditional_store):
        store = conditional_store
        seen = []
        for i in range(5):
            store.set("k", f"value {i}".encode())
            seen.append(store.get_versioned("k")[1])
        assert len(set(map(repr, seen))) == 5 or all(a != b for a, b in zip(seen, seen[1:]))

    def test_read_only_views_refuse_conditional_writes(self, conditional_store):
        conditional_store.set("k", b"v")
        view = self.make_read_only_store(conditional_store)
        _, generation = view.get_versioned("k")
        with pytest.raises(ReadOnlyError):
            view.set_if("k", b"w", if_generation=generation)
        with pytest.raises(ReadOnlyError):
            view.delete_if("k", if_generation=generation)
        assert conditional_store.get("k") == b"v"

    def test_threads_lose_no_increment(self, conditional_store):
        errors: list[BaseException] = []

        def work() -> None:
            try:
                increment(conditional_store, "counter", self.increments)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        workers = [threading.Thread(target=work) for _ in range(self.threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert not errors, errors
        assert int(conditional_store.get("counter")) == self.threads * self.increments


class CrossProcessConditionalConformance:
    processes = 3
    increments = 40

    def reopen_args(self, store: Store) -> tuple[Callable[..., Store], tuple[Any, ...]]:
        raise NotImplementedError("implement reopen_args(store) -> (opener, args) that opens "
                                  "the same store in another process")

    def test_processes_lose_no_increment(self, tmp_path):
        store = self.make_store(tmp_path)  # type: ignore[attr-defined]
        opener, args = self.reopen_args(store)
        context = multiprocessing.get_context("spawn")
        with context.Pool(self.processes) as pool:
            results = [pool.apply_async(_increment_in_child, (opener, args, "counter", self.increments))
                       for _ in range(self.processes)]
            conflicts = [r.get(timeout=120) for r in results]
        assert int(store.get("counter")) == self.processes * self.increments, conflicts
