"""The store conformance suite: the behaviour every :class:`~zarrforge.abc.store.Store` owes.

Subclass :class:`StoreConformance` and implement ``make_store(tmp_path)``
returning a new, empty, writable store, and ``make_read_only_store(store)``
returning a read-only store over the same data. Set ``supports_listing =
False`` for stores that cannot list (the listing tests then check nothing).

Every failure is an ``AssertionError`` whose message names the key (or call), the value
found and the value expected, whether or not pytest rewrites the kit's asserts.

Ranges of one version (``capabilities.versioned_ranges``): a store that declares
them must read ranges with ``get_ranges`` as the contract says, and refuse a read
against a generation that is no longer the value's with a ``ConflictError`` naming
the key (``replaces_values = False`` for an append-only store, whose values never
change: that case is then not exercised); a store that does not declare them must
refuse ``get_ranges`` with a ``StoreError``. Such a store must name the value's
generation (the one an in-range read names) also for a range wholly past the end of
the value, for an empty range, for both beside ranges inside the value, pinned to
the generation or not, and for an empty value; and a pinned read of a range past the
end of a value that was replaced by a shorter one must be refused (a store that
cannot tell these apart must not declare ``versioned_ranges``: readers of shards
then read whole shards).
"""

from __future__ import annotations

import pytest

from ..abc.store import ABSENT, ByteRange, Store
from ..errors import ConflictError, InvalidPathError, ReadOnlyError, StoreError
from ._common import expect_equal, expect_refused

VALUES = {
    "zarr.json": b'{"zarr_format": 3}',
    "a/zarr.json": b"{}",
    "a/c/0/0": bytes(range(256)),
    "a/c/0/1": b"",
    "a/b/zarr.json": b"x" * 1000,
    "un\u00efcode/k\u00ebY": b"\x00\x01",
}


class StoreFactory:
    """What a store suite asks of its subclass: new stores, and read-only views."""

    def make_store(self, tmp_path) -> Store:  # pragma: no cover - to be overridden
        raise NotImplementedError("implement make_store(tmp_path) returning an empty store")

    def make_read_only_store(self, store: Store) -> Store:
        raise NotImplementedError("implement make_read_only_store(store) returning a read-only view of store")


class StoreConformance(StoreFactory):
    supports_listing = True
    replaces_values = True

    @pytest.fixture
    def store(self, tmp_path) -> Store:
        store = self.make_store(tmp_path)
        assert isinstance(store, Store), f"make_store returned {store!r}, not a Store"
        return store

    @pytest.fixture
    def filled(self, store: Store) -> Store:
        for key, value in VALUES.items():
            store.set(key, value)
        return store

    # --- reading and writing ------------------------------------------------------

    def test_where_the_store_keeps_its_keys(self, store):
        """``root_url()`` is ``None`` or a URL; ``local_directory()``, when not ``None``, is
        where key ``a/b`` is the file ``<directory>/a/b`` (what adapters hand to other
        tools)."""
        import os

        url = store.root_url()
        assert url is None or (isinstance(url, str) and "://" in url), (
            f"root_url() is {url!r}; expected None or a URL (scheme://...)"
        )
        directory = store.local_directory()
        if directory is None:
            return
        store.set("conformance/local/key", b"on disk")
        path = os.path.join(directory, "conformance", "local", "key")
        assert os.path.isfile(path), (
            f"key 'conformance/local/key' was set, but local_directory() {directory!r} has no file {path!r}"
        )
        with open(path, "rb") as f:
            expect_equal(f.read(), b"on disk", f"the file {path!r} of key 'conformance/local/key'")

    def test_missing_key_reads_as_none(self, store):
        expect_equal(store.get("nope"), None, "get('nope') of a key never set")
        expect_equal(
            store.get("no/such/key", ByteRange(0, 1)),
            None,
            "get('no/such/key', ByteRange(0, 1)) of a key never set",
        )
        expect_equal(store.exists("nope"), False, "exists('nope') of a key never set")

    def test_values_round_trip_exactly(self, filled):
        for key, value in VALUES.items():
            expect_equal(filled.get(key), value, f"get({key!r})")
            expect_equal(filled.exists(key), True, f"exists({key!r}) of a key set")

    def test_getsize(self, filled):
        for key, value in VALUES.items():
            expect_equal(filled.getsize(key), len(value), f"getsize({key!r})")
        expect_equal(filled.getsize("missing"), None, "getsize('missing') of a key never set")

    def test_overwrite_replaces_the_value(self, store):
        store.set("k", b"first value")
        store.set("k", b"2nd")
        expect_equal(store.get("k"), b"2nd", "get('k') after set(b'first value'), set(b'2nd')")

    def test_accepts_bytes_like_values(self, store):
        store.set("ba", bytearray(b"abc"))
        store.set("mv", memoryview(b"def"))
        expect_equal(store.get("ba"), b"abc", "get('ba') after set(bytearray(b'abc'))")
        expect_equal(store.get("mv"), b"def", "get('mv') after set(memoryview(b'def'))")

    def test_set_parts_stores_the_concatenation(self, store):
        store.set_parts("k", [b"ab", bytearray(b"cd"), b"", memoryview(b"ef")])
        store.set_parts("one", [b"x"])
        store.set_parts("none", [])
        expect_equal(store.get("k"), b"abcdef", "get('k') after set_parts of ab, cd, '', ef")
        expect_equal(store.get("one"), b"x", "get('one') after set_parts([b'x'])")
        expect_equal(store.get("none"), b"", "get('none') after set_parts([])")

    def test_delete_removes_and_tolerates_missing(self, filled):
        filled.delete("a/c/0/0")
        expect_equal(filled.get("a/c/0/0"), None, "get('a/c/0/0') after delete('a/c/0/0')")
        filled.delete("a/c/0/0")
        filled.delete("never/there")
        expect_equal(
            filled.get("a/zarr.json"),
            VALUES["a/zarr.json"],
            "get('a/zarr.json') after deleting its sibling 'a/c/0/0'",
        )

    @pytest.mark.parametrize(
        "byte_range,window",
        [
            (ByteRange(0, 10), slice(0, 10)),
            (ByteRange(250, 10), slice(250, 256)),
            (ByteRange(offset=100), slice(100, 256)),
            (ByteRange(length=7), slice(249, 256)),
            (ByteRange(length=1000), slice(0, 256)),
            (ByteRange(300, 5), slice(256, 256)),
        ],
    )
    def test_byte_ranges(self, filled, byte_range, window):
        expect_equal(
            filled.get("a/c/0/0", byte_range),
            VALUES["a/c/0/0"][window],
            f"get('a/c/0/0', {byte_range}) of a 256-byte value (bytes {window.start}..{window.stop})",
        )

    def _refuses_get_ranges(self, store: Store) -> bool:
        """Without the capability, ``get_ranges`` must be refused; True if so."""
        if store.capabilities.versioned_ranges:
            return False
        try:
            store.get_ranges("a/c/0/0", [ByteRange(0, 1)])
        except StoreError:
            return True
        raise AssertionError(
            "get_ranges('a/c/0/0', ...) answered, but the store does not "
            "declare capabilities.versioned_ranges; expected a StoreError"
        )

    def test_get_ranges_reads_ranges_of_one_version(self, filled):
        if self._refuses_get_ranges(filled):
            return
        value = VALUES["a/c/0/0"]
        ranges = [ByteRange(0, 10), ByteRange(length=7), None, ByteRange(offset=250), ByteRange(250, 10)]
        parts, generation = filled.get_ranges("a/c/0/0", ranges)
        expected = [value[:10], value[249:], value, value[250:], value[250:]]
        assert isinstance(parts, list) and len(parts) == len(ranges), (
            f"get_ranges('a/c/0/0', {len(ranges)} ranges) gives parts {parts!r}; expected a "
            f"list of {len(ranges)}"
        )
        for byte_range, part, wanted in zip(ranges, parts, expected):
            expect_equal(part, wanted, f"get_ranges('a/c/0/0', ...): the part of {byte_range}")
        assert generation is not None and generation is not ABSENT, (
            f"get_ranges('a/c/0/0', ...) of a key that holds a value gives the generation "
            f"{generation!r}; expected a generation (not None, not ABSENT)"
        )
        again, same = filled.get_ranges("a/c/0/0", [ByteRange(3, 2)], if_generation=generation)
        expect_equal(
            again, [value[3:5]], "get_ranges('a/c/0/0', [ByteRange(3, 2)], if_generation=<current>) parts"
        )
        expect_equal(same, generation, "get_ranges('a/c/0/0', ..., if_generation=<current>) generation")
        expect_equal(
            filled.get_ranges("nope", [ByteRange(0, 1)]),
            (None, ABSENT),
            "get_ranges('nope', ...) of a key never set",
        )

    def test_get_ranges_against_a_replaced_value_conflicts(self, filled):
        if self._refuses_get_ranges(filled) or not self.replaces_values:
            return
        _, generation = filled.get_ranges("a/c/0/0", [ByteRange(0, 4)])
        filled.set("a/c/0/0", b"another value")
        try:
            filled.get_ranges("a/c/0/0", [ByteRange(0, 4)], if_generation=generation)
        except ConflictError as exc:
            expect_equal(exc.key, "a/c/0/0", "the key the ConflictError names")
        else:
            raise AssertionError(
                "get_ranges('a/c/0/0', ..., if_generation=<before the set>) "
                "after the value was replaced answered; expected a ConflictError"
            )
        parts, current = filled.get_ranges("a/c/0/0", [ByteRange(0, 4), ByteRange(length=5)])
        expect_equal(parts, [b"anot", b"value"], "get_ranges('a/c/0/0', ...) of b'another value'")
        assert current != generation, (
            f"the generation of 'a/c/0/0' is {current!r} both before and after set(); expected a new one"
        )
        filled.delete("a/c/0/0")
        try:
            filled.get_ranges("a/c/0/0", [ByteRange(0, 4)], if_generation=current)
        except ConflictError:
            return
        raise AssertionError(
            "get_ranges('a/c/0/0', ..., if_generation=<before the delete>) "
            "after delete('a/c/0/0') answered; expected a ConflictError"
        )

    def test_get_ranges_past_the_end_name_the_version(self, filled):
        if self._refuses_get_ranges(filled):
            return
        value = VALUES["a/c/0/0"]  # 256 bytes
        _, generation = filled.get_ranges("a/c/0/0", [ByteRange(0, 1)])
        cases = [
            ([ByteRange(300, 5)], [b""]),
            ([ByteRange(offset=256)], [b""]),
            ([ByteRange(7, 0)], [b""]),
            ([ByteRange(300, 0)], [b""]),
            ([ByteRange(300, 5), ByteRange(offset=400), ByteRange(3, 0)], [b"", b"", b""]),
            (
                [ByteRange(0, 4), ByteRange(300, 5), ByteRange(9, 0), ByteRange(250, 10)],
                [value[:4], b"", b"", value[250:]],
            ),
            ([ByteRange(300, 5), ByteRange(length=3)], [b"", value[253:]]),
        ]
        for pin in (None, generation):
            for ranges, expected in cases:
                call = (
                    f"get_ranges('a/c/0/0', {ranges}{', if_generation=<current>' if pin is not None else ''})"
                )
                expect_equal(
                    filled.get_ranges("a/c/0/0", ranges, if_generation=pin),
                    (expected, generation),
                    f"{call} of a 256-byte value: (parts, generation of an in-range "
                    "read); a range past the end or empty must name the version too",
                )
        parts, empty = filled.get_ranges("a/c/0/1", [ByteRange(0, 4), ByteRange(length=2)])
        expect_equal(
            parts,
            [b"", b""],
            "get_ranges('a/c/0/1', [ByteRange(0, 4), ByteRange(length=2)]) of an empty value: parts",
        )
        assert empty is not None and empty is not ABSENT, (
            f"get_ranges('a/c/0/1', ...) of an empty value gives the generation {empty!r}; "
            "expected a generation (not None, not ABSENT)"
        )
        expect_equal(
            filled.get_ranges("nope", [ByteRange(300, 5), ByteRange(1, 0)]),
            (None, ABSENT),
            "get_ranges('nope', [past the end, empty]) of a key never set",
        )

    def test_get_ranges_past_the_end_of_a_shortened_value_conflicts(self, filled):
        if self._refuses_get_ranges(filled) or not self.replaces_values:
            return
        _, generation = filled.get_ranges("a/c/0/0", [ByteRange(0, 4)])
        filled.set("a/c/0/0", b"short")
        for ranges in ([ByteRange(300, 5)], [ByteRange(0, 4), ByteRange(300, 5)], [ByteRange(7, 0)]):
            try:
                got = filled.get_ranges("a/c/0/0", ranges, if_generation=generation)
            except ConflictError as exc:
                expect_equal(exc.key, "a/c/0/0", "the key the ConflictError names")
                continue
            raise AssertionError(
                f"get_ranges('a/c/0/0', {ranges}, if_generation=<before the set>) after the "
                f"value was replaced by a shorter one answered {got!r}; expected a ConflictError"
            )
        parts, current = filled.get_ranges("a/c/0/0", [ByteRange(0, 2), ByteRange(300, 5)])
        expect_equal(
            parts, [b"sh", b""], "get_ranges('a/c/0/0', [ByteRange(0, 2), ByteRange(300, 5)]) of b'short'"
        )
        assert current != generation and current is not None, (
            f"the generation of 'a/c/0/0' after set(b'short') is {current!r}; expected a new "
            f"one (it was {generation!r})"
        )

    def test_get_many_answers_in_request_order(self, filled):
        requests = [
            ("a/c/0/0", ByteRange(1, 2)),
            ("missing", None),
            ("zarr.json", None),
            ("a/c/0/0", ByteRange(length=1)),
        ]
        expected = [b"\x01\x02", None, VALUES["zarr.json"], b"\xff"]
        answers = filled.get_many(requests)
        assert isinstance(answers, list) and len(answers) == len(requests), (
            f"get_many of {len(requests)} requests gives {answers!r}; expected a list of {len(requests)}"
        )
        for (key, byte_range), answer, wanted in zip(requests, answers, expected):
            expect_equal(answer, wanted, f"get_many: the answer to ({key!r}, {byte_range})")

    # --- listing --------------------------------------------------------------------

    def test_list_and_list_prefix(self, filled):
        if not self.supports_listing:
            return
        expect_equal(sorted(filled.list()), sorted(VALUES), "sorted(list())")
        expect_equal(
            sorted(filled.list_prefix("a/")),
            sorted(k for k in VALUES if k.startswith("a/")),
            "sorted(list_prefix('a/'))",
        )
        expect_equal(
            sorted(filled.list_prefix("a/c/")), ["a/c/0/0", "a/c/0/1"], "sorted(list_prefix('a/c/'))"
        )
        expect_equal(list(filled.list_prefix("zzz/")), [], "list_prefix('zzz/')")

    def test_list_dir(self, filled):
        if not self.supports_listing:
            return
        top = filled.list_dir("")
        expect_equal(top.keys, ["zarr.json"], "list_dir('').keys")
        expect_equal(top.prefixes, ["a/", "un\u00efcode/"], "list_dir('').prefixes")
        inner = filled.list_dir("a/")
        expect_equal(inner.keys, ["zarr.json"], "list_dir('a/').keys")
        expect_equal(inner.prefixes, ["b/", "c/"], "list_dir('a/').prefixes")

    def test_erase_prefix_removes_only_that_prefix(self, filled):
        filled.erase_prefix("a/c/")
        for key, value in VALUES.items():
            expected = None if key.startswith("a/c/") else value
            expect_equal(filled.get(key), expected, f"get({key!r}) after erase_prefix('a/c/')")

    # --- refusals -------------------------------------------------------------------

    @pytest.mark.parametrize("key", ["", "/abs", "a//b", "../up", "a/../b", "./a", "a/.", "a\\b", "a\x00b"])
    def test_invalid_keys_are_refused(self, store, key):
        for name, attempt in (
            ("set", lambda: store.set(key, b"x")),
            ("set_parts", lambda: store.set_parts(key, [b"x", b"y"])),
            ("get", lambda: store.get(key)),
        ):
            try:
                found = attempt()
            except InvalidPathError:
                continue
            raise AssertionError(
                f"{name}({key!r}) of an invalid key answered {found!r}; expected an InvalidPathError"
            )
        if self.supports_listing:
            expect_equal(list(store.list()), [], f"list() after refusing the key {key!r}")

    def test_read_only_view_refuses_writes_and_reads_data(self, filled):
        view = self.make_read_only_store(filled)
        expect_equal(view.read_only, True, "make_read_only_store(...).read_only")
        expect_equal(view.get("zarr.json"), VALUES["zarr.json"], "get('zarr.json') of the read-only view")
        expect_refused(
            (
                ("set('k')", lambda: view.set("k", b"v")),
                ("set_parts('k')", lambda: view.set_parts("k", [b"v"])),
                ("delete('zarr.json')", lambda: view.delete("zarr.json")),
                ("erase_prefix('a/')", lambda: view.erase_prefix("a/")),
            ),
            ReadOnlyError,
            "on the read-only view",
        )
        expect_equal(
            filled.get("zarr.json"),
            VALUES["zarr.json"],
            "get('zarr.json') after writes through the read-only view were refused",
        )
