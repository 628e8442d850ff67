"""The store conformance suite: the behaviour every :class:`~zarrforge.abc.store.Store` owes.

Subclass :class:`StoreConformance` and implement ``make_store(tmp_path)``
returning a new, empty, writable store, and ``make_read_only_store(store)``
returning a read-only store over the same data. Set ``supports_listing =
False`` for stores that cannot list (the listing tests then check nothing).

Ranges of one version (``capabilities.versioned_ranges``): a store that declares
them must read ranges with ``get_ranges`` as the contract says, and refuse a read
against a generation that is no longer the value's with a ``ConflictError`` naming
the key (``replaces_values = False`` for an append-only store, whose values never
change: that case is then not exercised); a store that does not declare them must
refuse ``get_ranges`` with a ``StoreError``.
"""

from __future__ import annotations

import pytest

from ..abc.store import ABSENT, ByteRange, Store
from ..errors import ConflictError, InvalidPathError, ReadOnlyError, StoreError

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
        raise NotImplementedError(
            "implement make_read_only_store(store) returning a read-only view of store")


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
        assert url is None or (isinstance(url, str) and "://" in url), url
        directory = store.local_directory()
        if directory is None:
            return
        store.set("conformance/local/key", b"on disk")
        with open(os.path.join(directory, "conformance", "local", "key"), "rb") as f:
            assert f.read() == b"on disk"

    def test_missing_key_reads_as_none(self, store):
        assert store.get("nope") is None
        assert store.get("no/such/key", ByteRange(0, 1)) is None
        assert not store.exists("nope")

    def test_values_round_trip_exactly(self, filled):
        for key, value in VALUES.items():
            assert filled.get(key) == value, key
            assert filled.exists(key)

    def test_getsize(self, filled):
        for key, value in VALUES.items():
            assert filled.getsize(key) == len(value), key
        assert filled.getsize("missing") is None

    def test_overwrite_replaces_the_value(self, store):
        store.set("k", b"first value")
        store.set("k", b"2nd")
        assert store.get("k") == b"2nd"

    def test_accepts_bytes_like_values(self, store):
        store.set("ba", bytearray(b"abc"))
        store.set("mv", memoryview(b"def"))
        assert store.get("ba") == b"abc" and store.get("mv") == b"def"

    def test_set_parts_stores_the_concatenation(self, store):
        store.set_parts("k", [b"ab", bytearray(b"cd"), b"", memoryview(b"ef")])
        store.set_parts("one", [b"x"])
        store.set_parts("none", [])
        assert store.get("k") == b"abcdef" and store.get("one") == b"x"
        assert store.get("none") == b""

    def test_delete_removes_and_tolerates_missing(self, filled):
        filled.delete("a/c/0/0")
        assert filled.get("a/c/0/0") is None
        filled.delete("a/c/0/0")
        filled.delete("never/there")
        assert filled.get("a/zarr.json") == VALUES["a/zarr.json"]

    @pytest.mark.parametrize("byte_range,window", [
        (ByteRange(0, 10), slice(0, 10)), (ByteRange(250, 10), slice(250, 256)),
        (ByteRange(offset=100), slice(100, 256)), (ByteRange(length=7), slice(249, 256)),
        (ByteRange(length=1000), slice(0, 256)), (ByteRange(300, 5), slice(256, 256)),
    ])
    def test_byte_ranges(self, filled, byte_range, window):
        assert filled.get("a/c/0/0", byte_range) == VALUES["a/c/0/0"][window]

    def _refuses_get_ranges(self, store: Store) -> bool:
        """Without the capability, ``get_ranges`` must be refused; True if so."""
        if store.capabilities.versioned_ranges:
            return False
        with pytest.raises(StoreError):
            store.get_ranges("a/c/0/0", [ByteRange(0, 1)])
        return True

    def test_get_ranges_reads_ranges_of_one_version(self, filled):
        if self._refuses_get_ranges(filled):
            return
        value = VALUES["a/c/0/0"]
        parts, generation = filled.get_ranges(
            "a/c/0/0", [ByteRange(0, 10), ByteRange(length=7), None, ByteRange(offset=250),
                        ByteRange(250, 10)])
        assert parts == [value[:10], value[249:], value, value[250:], value[250:]]
        assert generation is not None and generation is not ABSENT
        again, same = filled.get_ranges("a/c/0/0", [ByteRange(3, 2)], if_generation=generation)
        assert again == [value[3:5]] and same == generation
        assert filled.get_ranges("nope", [ByteRange(0, 1)]) == (None, ABSENT)

    def test_get_ranges_against_a_replaced_value_conflicts(self, filled):
        if self._refuses_get_ranges(filled) or not self.replaces_values:
            return
        _, generation = filled.get_ranges("a/c/0/0", [ByteRange(0, 4)])
        filled.set("a/c/0/0", b"another value")
        with pytest.raises(ConflictError) as info:
            filled.get_ranges("a/c/0/0", [ByteRange(0, 4)], if_generation=generation)
        assert info.value.key == "a/c/0/0"
        parts, current = filled.get_ranges("a/c/0/0", [ByteRange(0, 4), ByteRange(length=5)])
        assert parts == [b"anot", b"value"] and current != generation
        filled.delete("a/c/0/0")
        with pytest.raises(ConflictError):
            filled.get_ranges("a/c/0/0", [ByteRange(0, 4)], if_generation=current)

    def test_get_many_answers_in_request_order(self, filled):
        requests = [("a/c/0/0", ByteRange(1, 2)), ("missing", None), ("zarr.json", None),
                    ("a/c/0/0", ByteRange(length=1))]
        assert filled.get_many(requests) == [b"\x01\x02", None, VALUES["zarr.json"], b"\xff"]

    # --- listing --------------------------------------------------------------------

    def test_list_and_list_prefix(self, filled):
        if not self.supports_listing:
            return
        assert sorted(filled.list()) == sorted(VALUES)
        assert sorted(filled.list_prefix("a/")) == sorted(k for k in VALUES if k.startswith("a/"))
        assert sorted(filled.list_prefix("a/c/")) == ["a/c/0/0", "a/c/0/1"]
        assert list(filled.list_prefix("zzz/")) == []

    def test_list_dir(self, filled):
        if not self.supports_listing:
            return
        top = filled.list_dir("")
        assert top.keys == ["zarr.json"]
        assert top.prefixes == ["a/", "un\u00efcode/"]
        inner = filled.list_dir("a/")
        assert inner.keys == ["zarr.json"] and inner.prefixes == ["b/", "c/"]

    def test_erase_prefix_removes_only_that_prefix(self, filled):
        filled.erase_prefix("a/c/")
        remaining = {k for k in VALUES if not k.startswith("a/c/")}
        assert {k for k in VALUES if filled.get(k) is not None} == remaining

    # --- refusals -------------------------------------------------------------------

    @pytest.mark.parametrize("key", ["", "/abs", "a//b", "../up", "a/../b", "./a", "a/.", "a\\b", "a\x00b"])
    def test_invalid_keys_are_refused(self, store, key):
        with pytest.raises(InvalidPathError):
            store.set(key, b"x")
        with pytest.raises(InvalidPathError):
            store.set_parts(key, [b"x", b"y"])
        with pytest.raises(InvalidPathError):
            store.get(key)
        if self.supports_listing:
            assert list(store.list()) == []

    def test_read_only_view_refuses_writes_and_reads_data(self, filled):
        view = self.make_read_only_store(filled)
        assert view.read_only
        assert view.get("zarr.json") == VALUES["zarr.json"]
        for attempt in (lambda: view.set("k", b"v"), lambda: view.set_parts("k", [b"v"]),
                        lambda: view.delete("zarr.json"), lambda: view.erase_prefix("a/")):
            with pytest.raises(ReadOnlyError):
                attempt()
        assert filled.get("zarr.json") == VALUES["zarr.json"]
