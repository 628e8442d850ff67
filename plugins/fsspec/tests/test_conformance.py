"""The store conformance suite over fsspec's memory and local filesystems, S3 (moto),
HTTP (read-only) and zip archives."""

from __future__ import annotations

import os
import uuid

import fsspec
import pytest

import zarrforge_fsspec  # noqa: F401
from zarrforge.abc.store import ByteRange
from zarrforge.errors import ConflictError, ReadOnlyError, StoreError
from zarrforge.testing import StoreConformance
from zarrforge.testing.stores import VALUES
from zarrforge_fsspec import AppendOnlyError, FsspecStore, ZipStore


def view_of(store: FsspecStore) -> FsspecStore:
    return FsspecStore(store.fs, store.root, read_only=True)


class TestFsspecMemory(StoreConformance):
    def make_store(self, tmp_path):
        return FsspecStore.from_url(f"fsspec+memory://conformance-{uuid.uuid4().hex}")

    def make_read_only_store(self, store):
        return view_of(store)


class TestFsspecLocal(StoreConformance):
    def make_store(self, tmp_path):
        return FsspecStore(fsspec.filesystem("file"), str(tmp_path / "root"))

    def make_read_only_store(self, store):
        return view_of(store)

    def test_writes_leave_no_temporary_files_and_prune_directories(self, filled, tmp_path):
        filled.erase_prefix("a/")
        root = tmp_path / "root"
        assert sorted(p.name for p in root.iterdir()) == ["un\u00efcode", "zarr.json"]
        assert not any(p.name.startswith(".zarrforge-tmp-") for p in root.rglob("*"))


class TestFsspecS3(StoreConformance):
    @pytest.fixture
    def store(self, s3_url, s3_options):
        return FsspecStore.from_url(f"{s3_url}/root", **s3_options)

    def make_read_only_store(self, store):
        return view_of(store)

    def test_capabilities(self, store):
        assert store.capabilities.atomic_writes and store.capabilities.listable
        assert store._async


class TestFsspecHTTP(StoreConformance):
    """Read-only: the data is written to the served directory beforehand."""

    supports_listing = False

    @pytest.fixture
    def store(self, http_server):
        _, url = http_server.new_site()
        return FsspecStore.from_url(url)

    @pytest.fixture
    def filled(self, http_server):
        _, url = http_server.new_site(VALUES)
        return FsspecStore.from_url(url)

    def make_read_only_store(self, store):
        return store

    def test_is_read_only(self, store):
        assert store.read_only and not store.capabilities.writable
        assert not store.capabilities.listable

    def test_overwrite_replaces_the_value(self, store):
        with pytest.raises(ReadOnlyError):
            store.set("k", b"first value")

    def test_accepts_bytes_like_values(self, store):
        with pytest.raises(ReadOnlyError):
            store.set("ba", bytearray(b"abc"))

    def test_set_parts_stores_the_concatenation(self, store):
        with pytest.raises(ReadOnlyError):
            store.set_parts("k", [b"ab", b"cd"])

    def test_delete_removes_and_tolerates_missing(self, filled):
        with pytest.raises(ReadOnlyError):
            filled.delete("a/c/0/0")
        assert filled.get("a/c/0/0") == VALUES["a/c/0/0"]

    def test_erase_prefix_removes_only_that_prefix(self, filled):
        with pytest.raises(ReadOnlyError):
            filled.erase_prefix("a/c/")
        assert all(filled.get(k) == v for k, v in VALUES.items())

    @pytest.mark.parametrize("validators,kind", [(True, "etag"), ("last-modified", "modified")])
    def test_get_ranges_against_a_replaced_value_conflicts(self, http_server, validators, kind):
        # the server names versions by a strong ETag, or by Last-Modified alone: the file is
        # replaced on the server's disk, with a later time
        directory, url = http_server.new_site(VALUES)
        store = FsspecStore.from_url(url)
        http_server.validators = validators
        try:
            _, generation = store.get_ranges("a/c/0/0", [ByteRange(0, 4)])
            assert generation[0] == kind
            path = directory / "a" / "c" / "0" / "0"
            path.write_bytes(b"another value")
            os.utime(path, (path.stat().st_atime, path.stat().st_mtime + 2))
            with pytest.raises(ConflictError) as info:
                store.get_ranges("a/c/0/0", [ByteRange(0, 4)], if_generation=generation)
            assert info.value.key == "a/c/0/0"
            parts, current = store.get_ranges("a/c/0/0", [ByteRange(0, 4), ByteRange(length=5)])
            assert parts == [b"anot", b"value"] and current != generation
            assert current[0] == kind
            path.unlink()
            with pytest.raises(ConflictError):
                store.get_ranges("a/c/0/0", [ByteRange(0, 4)], if_generation=current)
        finally:
            http_server.validators = True

    @pytest.mark.parametrize("validators", [True, "last-modified"])
    def test_get_ranges_past_the_end_of_a_shortened_value_conflicts(self, http_server, validators):
        # the kit's test, with the file shortened on the server's disk (a later time)
        directory, url = http_server.new_site(VALUES)
        store = FsspecStore.from_url(url)
        http_server.validators = validators
        try:
            _, generation = store.get_ranges("a/c/0/0", [ByteRange(0, 4)])
            assert store.get_ranges("a/c/0/0", [ByteRange(300, 5)]) == ([b""], generation)
            path = directory / "a" / "c" / "0" / "0"
            path.write_bytes(b"short")
            os.utime(path, (path.stat().st_atime, path.stat().st_mtime + 2))
            for ranges in ([ByteRange(300, 5)], [ByteRange(0, 4), ByteRange(300, 5)], [ByteRange(7, 0)]):
                with pytest.raises(ConflictError):
                    store.get_ranges("a/c/0/0", ranges, if_generation=generation)
            parts, current = store.get_ranges("a/c/0/0", [ByteRange(0, 2), ByteRange(300, 5)])
            assert parts == [b"sh", b""] and current not in (None, generation)
            assert store.get_ranges("a/c/0/0", [ByteRange(300, 5)]) == ([b""], current)
        finally:
            http_server.validators = True

    def test_listing_is_refused_with_advice(self, filled):
        for attempt in (lambda: list(filled.list_prefix("")), lambda: filled.list_dir("a/")):
            with pytest.raises(StoreError, match="consolidate"):
                attempt()


class TestZipStore(StoreConformance):
    """Append-only: overwrites and deletes of existing keys are refused."""

    replaces_values = False

    def make_store(self, tmp_path):
        return ZipStore(tmp_path / "store.zip")

    def make_read_only_store(self, store):
        return ZipStore(store.path, read_only=True)

    def test_overwrite_replaces_the_value(self, store):
        store.set("k", b"first value")
        with pytest.raises(AppendOnlyError, match="append-only"):
            store.set("k", b"2nd")
        assert store.get("k") == b"first value"

    def test_delete_removes_and_tolerates_missing(self, filled):
        with pytest.raises(AppendOnlyError):
            filled.delete("a/c/0/0")
        filled.delete("never/there")
        assert filled.get("a/c/0/0") == VALUES["a/c/0/0"]

    def test_erase_prefix_removes_only_that_prefix(self, filled):
        with pytest.raises(AppendOnlyError):
            filled.erase_prefix("a/c/")
        filled.erase_prefix("nothing/here/")
        assert all(filled.get(k) == v for k, v in VALUES.items())


# --- the zip: URL adapter ------------------------------------------------------------------

from zarrforge.testing import PipelineCase, URLAdapterConformance  # noqa: E402


class TestZipAdapter(URLAdapterConformance):
    scheme = "zip"
    keeps_base_path = False  # zip: opens the archive at the base's path
    invalid_bodies = ["a//b", "../up"]

    def pipelines(self, tmp_path):
        return [
            PipelineCase(f"file:{tmp_path}/data.zip|zip:"),
            PipelineCase(f"file:{tmp_path}/other.zip|zip:inside/the/archive"),
        ]
