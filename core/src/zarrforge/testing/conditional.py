"""The conditional-write conformance suites: generations, ``set_if``, ``delete_if``.

For a store that declares ``capabilities.conditional_writes`` (see
:mod:`zarrforge.abc.store`). Subclass :class:`ConditionalWriteConformance` and
implement ``make_store(tmp_path)`` (a new, empty, writable store) and
``make_read_only_store(store)``, as for
:class:`~zarrforge.testing.StoreConformance` (one class may subclass both).
Stores whose writers may live in other processes also subclass
:class:`CrossProcessConditionalConformance` and implement
``reopen_args(store)``: a picklable callable and arguments that open the same
store in another process; it brings the cross-process key case of
:class:`~zarrforge.testing.cross_process.CrossProcessStoreConformance` too.

The concurrency tests count: every writer adds to a counter through
``get_versioned`` / ``set_if`` retried on conflict, and no increment may be
lost.
"""

from __future__ import annotations

import itertools
import multiprocessing
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ..abc.store import ABSENT, Store
from ..errors import ConflictError, ReadOnlyError
from ._common import expect_equal, expect_refused
from .cross_process import CrossProcessStoreConformance
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
            f"make_store() gave {store!r}, whose capabilities.conditional_writes is "
            f"{store.capabilities.conditional_writes!r}; expected True for this suite"
        )
        return store

    def test_an_absent_key_has_the_absent_generation(self, conditional_store):
        expect_equal(
            conditional_store.get_versioned("nope"),
            (None, ABSENT),
            "get_versioned('nope') of a key never set",
        )
        expect_equal(
            conditional_store.get_versioned_many(["nope", "no/such"]),
            [(None, ABSENT)] * 2,
            "get_versioned_many(['nope', 'no/such'])",
        )

    def test_set_if_absent_creates_once(self, conditional_store):
        store = conditional_store
        generation = store.set_if_absent("a/k", b"first")
        expect_equal(
            store.get_versioned("a/k"),
            (b"first", generation),
            "get_versioned('a/k') after set_if_absent('a/k', b'first')",
        )
        _conflicts(
            lambda: store.set_if_absent("a/k", b"second"),
            "set_if_absent('a/k', b'second') of a key that exists",
            key="a/k",
        )
        expect_equal(store.get("a/k"), b"first", "get('a/k') after a refused set_if_absent('a/k', b'second')")

    def test_set_if_with_the_current_generation_replaces(self, conditional_store):
        store = conditional_store
        store.set("k", b"one")
        _, generation = store.get_versioned("k")
        new = store.set_if("k", b"two", if_generation=generation)
        expect_equal(
            store.get_versioned("k"),
            (b"two", new),
            "get_versioned('k') after set_if('k', b'two', <current generation>) "
            "(value, the generation set_if returned)",
        )
        assert new != generation, (
            f"set_if('k', b'two') returned the generation {new!r}, the one 'k' had before; expected a new one"
        )

    def test_a_stale_generation_conflicts_and_stores_nothing(self, conditional_store):
        store = conditional_store
        store.set("k", b"one")
        _, stale = store.get_versioned("k")
        store.set("k", b"changed by someone else")
        _conflicts(
            lambda: store.set_if("k", b"mine", if_generation=stale),
            "set_if('k', b'mine', <generation before another set>)",
        )
        expect_equal(
            store.get("k"), b"changed by someone else", "get('k') after a set_if with a stale generation"
        )
        store.delete("k")
        _conflicts(
            lambda: store.set_if("k", b"mine", if_generation=stale),
            "set_if('k', b'mine', <generation before a delete>)",
        )
        expect_equal(store.get("k"), None, "get('k') after delete('k') and a set_if with a stale generation")

    def test_set_parts_if_stores_the_joined_parts_under_the_same_rule(self, conditional_store):
        store = conditional_store
        store.set("k", b"one")
        _, generation = store.get_versioned("k")
        source = b"0123456789"
        parts = [b"{", memoryview(source)[2:5], bytearray(b"-"), memoryview(source)[7:]]
        new = store.set_parts_if("k", parts, if_generation=generation)
        expect_equal(
            store.get_versioned("k"),
            (b"{234-789", new),
            "get_versioned('k') after set_parts_if('k', [b'{', <view of '234'>, "
            "bytearray(b'-'), <view of '789'>], <current generation>)",
        )
        _conflicts(
            lambda: store.set_parts_if("k", [b"stale"], if_generation=generation),
            "set_parts_if('k', [b'stale'], <generation before the last write>)",
        )
        expect_equal(store.get("k"), b"{234-789", "get('k') after a set_parts_if with a stale generation")
        store.set_parts_if("new/k", [b"a", b"b"], if_generation=ABSENT)
        expect_equal(
            store.get("new/k"), b"ab", "get('new/k') after set_parts_if('new/k', [b'a', b'b'], ABSENT)"
        )

    def test_delete_if(self, conditional_store):
        store = conditional_store
        store.delete_if("never/there", if_generation=ABSENT)  # nothing to delete, as expected
        store.set("k", b"v")
        _, generation = store.get_versioned("k")
        store.set("k", b"w")
        _conflicts(
            lambda: store.delete_if("k", if_generation=generation),
            "delete_if('k', <generation before another set>)",
        )
        expect_equal(store.get("k"), b"w", "get('k') after a delete_if with a stale generation")
        _, generation = store.get_versioned("k")
        store.delete_if("k", if_generation=generation)
        expect_equal(store.get("k"), None, "get('k') after delete_if('k', <current generation>)")
        _conflicts(
            lambda: store.delete_if("k", if_generation=generation),
            "delete_if('k', <generation of a value since deleted>)",
        )

    def test_generations_change_with_every_new_value(self, conditional_store):
        store = conditional_store
        seen = []
        for i in range(5):
            store.set("k", f"value {i}".encode())
            seen.append(store.get_versioned("k")[1])
        repeated = [(i, a) for i, (a, b) in enumerate(itertools.pairwise(seen)) if a == b]
        assert len(set(map(repr, seen))) == 5 or not repeated, (
            f"key 'k' set to 5 values in turn had the generations {seen!r}; value {repeated[0][0]} "
            f"and the next share {repeated[0][1]!r}; expected a new generation for each"
        )

    def test_read_only_views_refuse_conditional_writes(self, conditional_store):
        conditional_store.set("k", b"v")
        view = self.make_read_only_store(conditional_store)
        _, generation = view.get_versioned("k")
        expect_refused(
            (
                ("set_if('k', b'w')", lambda: view.set_if("k", b"w", if_generation=generation)),
                ("delete_if('k')", lambda: view.delete_if("k", if_generation=generation)),
            ),
            ReadOnlyError,
            "on the read-only view",
        )
        expect_equal(
            conditional_store.get("k"),
            b"v",
            "get('k') after conditional writes through the read-only view were refused",
        )

    def test_threads_lose_no_increment(self, conditional_store):
        errors: list[BaseException] = []

        def work() -> None:
            try:
                increment(conditional_store, "counter", self.increments)
            except BaseException as exc:  # noqa: BLE001  # reported below
                errors.append(exc)

        workers = [threading.Thread(target=work) for _ in range(self.threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert not errors, f"a thread incrementing key 'counter' failed: {errors[0]!r}"
        expect_equal(
            int(conditional_store.get("counter")),
            self.threads * self.increments,
            f"key 'counter' after {self.threads} threads each added 1 "
            f"{self.increments} times through set_if (lower: increments lost)",
        )


def _conflicts(attempt: Callable[[], Any], what: str, key: str | None = None) -> None:
    """``attempt()`` must raise a ``ConflictError`` (naming ``key``, when given)."""
    try:
        found = attempt()
    except ConflictError as exc:
        if key is not None:
            expect_equal(exc.key, key, f"{what}: the key the ConflictError names")
            expect_equal(exc.keys, [key], f"{what}: the keys the ConflictError names")
        return
    raise AssertionError(f"{what} succeeded (returned {found!r}); expected a ConflictError")


class CrossProcessConditionalConformance(CrossProcessStoreConformance):
    processes = 3
    increments = 40

    def test_processes_lose_no_increment(self, tmp_path: Path) -> None:
        store = self.make_store(tmp_path)  # type: ignore[attr-defined]
        opener, args = self.reopen_args(store)
        context = multiprocessing.get_context("spawn")
        with context.Pool(self.processes) as pool:
            results = [
                pool.apply_async(_increment_in_child, (opener, args, "counter", self.increments))
                for _ in range(self.processes)
            ]
            conflicts = [r.get(timeout=120) for r in results]
        expect_equal(
            int(store.get("counter")),
            self.processes * self.increments,
            f"key 'counter' after {self.processes} processes each added 1 "
            f"{self.increments} times through set_if (lower: increments lost; "
            f"conflicts met per process: {conflicts})",
        )
