"""zarr-python stores through zarrforge: the store conformance suite over zarr's own
stores, and Icechunk repositories (local filesystem and S3 on a moto server on
127.0.0.1) read and written by zarrforge, committed, and read back by zarr-python."""

from __future__ import annotations

import icechunk
import numpy as np
import pytest
import zarr
import zarr.storage

import zarrforge as zf
from zarrforge.testing import StoreConformance
from zarrforge_zarr_python import ZarrPythonStore


class TestOverZarrMemoryStore(StoreConformance):
    def make_store(self, tmp_path):
        return ZarrPythonStore(zarr.storage.MemoryStore())

    def make_read_only_store(self, store):
        return ZarrPythonStore(store.inner.with_read_only(True))


class TestOverZarrLocalStore(StoreConformance):
    def make_store(self, tmp_path):
        return ZarrPythonStore(zarr.storage.LocalStore(tmp_path / "local"))

    def make_read_only_store(self, store):
        return ZarrPythonStore(store.inner, read_only=True)


class TestBelowAPrefix(StoreConformance):
    """A zarr-python StorePath: its store, keys below its path."""

    def make_store(self, tmp_path):
        inner = zarr.storage.MemoryStore()
        inner._store_dict["beside/zarr.json"] = zarr.core.buffer.cpu.Buffer.from_bytes(b"{}")
        return ZarrPythonStore(inner, prefix="deep/below")

    def make_read_only_store(self, store):
        return ZarrPythonStore(store.inner, read_only=True, prefix=store.prefix)


def test_a_store_path_is_its_store_with_its_path_below():
    store_path = zarr.storage.StorePath(zarr.storage.MemoryStore(), "sub/dir")
    written = zf.create_array(store_path, shape=(4,), chunks=(2,), dtype="i4")
    written[:] = np.arange(4)
    assert sorted(store_path.store._store_dict) == ["sub/dir/c/0", "sub/dir/c/1", "sub/dir/zarr.json"]
    assert zarr.open_array(store_path.store, path="sub/dir", mode="r")[:].tolist() == [0, 1, 2, 3]
    assert zf.open_array(store_path, mode="r")[:].tolist() == [0, 1, 2, 3]


def test_two_handles_opened_on_one_zarr_python_store_are_equal():
    store = zarr.storage.MemoryStore()
    group = zf.create_group(store)
    assert zf.open_group(store) == group
    assert ZarrPythonStore(store) == ZarrPythonStore(store)
    assert ZarrPythonStore(store, prefix="a") != ZarrPythonStore(store)
    assert ZarrPythonStore(store) != ZarrPythonStore(zarr.storage.MemoryStore())
    other = zarr.storage.MemoryStore()
    zf.create_group(other, attributes={"differs": True})
    assert zf.open_group(other) != group


def test_a_store_path_group_lists_only_what_is_below_it():
    store = zarr.storage.MemoryStore()
    zarr.open_group(store, path="elsewhere", mode="w").create_array("x", shape=(1,), dtype="u1")
    group = zf.open_group(zarr.storage.StorePath(store, "here"), mode="w")
    group.create_array("a", shape=(2,), dtype="u1")
    assert [name for name, _ in group.members()] == ["a"]


class _RefusesListing(zarr.storage.MemoryStore):
    """A store with an error type of its own, as Icechunk has (IcechunkError)."""

    class Refused(Exception):
        pass

    async def list_prefix(self, prefix):
        raise self.Refused(f"cannot list {prefix!r}")
        yield  # an async generator, as zarr-python's are


def test_a_store_error_of_its_own_type_is_reported_as_a_store_error_naming_the_store():
    store = ZarrPythonStore(_RefusesListing())
    with pytest.raises(zf.errors.StoreError, match="listing 'a/'.*Refused: cannot list 'a/'"):
        store.list_dir("a/")
    # creating a node lists its prefix first, to skip reads there when it is empty; a store
    # that cannot list it is read as before
    array = zf.create_array(store, "a", shape=(3,), dtype="int8")
    array[...] = [1, 2, 3]
    assert zf.open_array(store, "a")[...].tolist() == [1, 2, 3]


def test_a_zarr_python_store_is_accepted_wherever_zarrforge_takes_a_store(tmp_path):
    store = zarr.storage.LocalStore(tmp_path / "data")
    array = zf.create_array(store, "g/x", shape=(10, 7), chunks=(3, 4), dtype="int32")
    array[...] = np.arange(70).reshape(10, 7)
    np.testing.assert_array_equal(zarr.open_array(store, path="g/x")[...], np.arange(70).reshape(10, 7))
    group = zf.open_group(store, "g", mode="r")
    assert [name for name, _ in group.members()] == ["x"]
    with pytest.raises(zf.errors.ReadOnlyError):
        zf.open_array(store, "g/x", mode="r")[0, 0] = 1


def test_an_object_no_plugin_adapts_is_refused_with_its_type_named():
    with pytest.raises(TypeError, match=r"builtins\.list .*no installed plugin adapts it"):
        zf.open_group([b"{}"])


def _local_repository(path):
    return icechunk.Repository.create(icechunk.local_filesystem_storage(str(path)))


def test_icechunk_written_by_zarrforge_is_read_by_zarr_python_after_commit(tmp_path):
    repo = _local_repository(tmp_path / "repo")
    session = repo.writable_session("main")
    group = zf.open_group(session.store, mode="a")
    group.attrs["title"] = "zarrforge in icechunk"
    values = np.random.default_rng(0).normal(size=(40, 30)).astype("float32")
    group.create_array("t", shape=values.shape, dtype="float32", chunks=(16, 16), shards=(32, 32))[...] = (
        values
    )
    snapshot = session.commit("written by zarrforge")

    # a session opened before the commit is not needed: a new one sees it; so does
    # a read-only session at the snapshot
    for reader in (repo.readonly_session(branch="main"), repo.readonly_session(snapshot_id=snapshot)):
        opened = zarr.open_group(reader.store, mode="r")
        assert opened.attrs["title"] == "zarrforge in icechunk"
        np.testing.assert_array_equal(opened["t"][...], values)
        np.testing.assert_array_equal(zf.open_array(reader.store, "t")[...], values)


def test_icechunk_written_by_zarr_python_is_read_and_extended_by_zarrforge(tmp_path):
    repo = _local_repository(tmp_path / "repo")
    session = repo.writable_session("main")
    theirs = zarr.create_array(session.store, name="v", shape=(20,), chunks=(5,), dtype="int64")
    theirs[...] = np.arange(20)
    session.commit("by zarr-python")

    session = repo.writable_session("main")
    ours = zf.open_array(session.store, "v", mode="r+")
    np.testing.assert_array_equal(ours[...], np.arange(20))
    ours[3:7] = -1  # partial chunks: a read-modify-write through the session
    uncommitted = repo.readonly_session(branch="main")
    np.testing.assert_array_equal(zf.open_array(uncommitted.store, "v")[...], np.arange(20))
    session.commit("by zarrforge")
    expected = np.arange(20)
    expected[3:7] = -1
    np.testing.assert_array_equal(
        zarr.open_array(repo.readonly_session(branch="main").store, path="v")[...], expected
    )


def test_a_read_only_icechunk_session_refuses_writes_before_touching_it(tmp_path):
    repo = _local_repository(tmp_path / "repo")
    session = repo.writable_session("main")
    zf.create_array(session.store, "a", shape=(4,), chunks=(2,), dtype="uint8")[...] = 7
    session.commit("one array")
    reader = zf.open_array(repo.readonly_session(branch="main").store, "a")
    with pytest.raises(zf.errors.ReadOnlyError):
        reader[0] = 1
    np.testing.assert_array_equal(reader[...], [7, 7, 7, 7])


def test_icechunk_on_s3_storage_served_by_moto_on_loopback(moto_s3):
    endpoint, bucket = moto_s3
    storage = icechunk.s3_storage(
        bucket=bucket,
        prefix="repo",
        endpoint_url=endpoint,
        allow_http=True,
        force_path_style=True,
        region="us-east-1",
        access_key_id="testing",
        secret_access_key="testing",
    )
    repo = icechunk.Repository.create(storage)
    session = repo.writable_session("main")
    values = np.arange(600, dtype="float64").reshape(20, 30)
    zf.create_array(session.store, "s3/array", shape=values.shape, chunks=(8, 8), dtype="float64")[...] = (
        values
    )
    session.commit("zarrforge on s3")
    reopened = icechunk.Repository.open(storage).readonly_session(branch="main")
    np.testing.assert_array_equal(zarr.open_array(reopened.store, path="s3/array")[...], values)
    np.testing.assert_array_equal(zf.open_array(reopened.store, "s3/array")[5:9, 2], values[5:9, 2])


def test_a_handle_is_constructed_from_zarr_pythons_async_handle():
    import asyncio

    store = zarr.storage.MemoryStore()

    async def created():
        group = await zarr.api.asynchronous.group(store=store)
        array = await group.create_array("a", shape=(3,), dtype="i4", fill_value=5)
        return group, array

    their_group, their_array = asyncio.run(created())
    assert zf.Array(their_array)[:].tolist() == [5, 5, 5]
    assert zf.Array(their_array).name == "/a" and not zf.Array(their_array).read_only
    assert list(zf.Group(their_group)) == ["a"]
    with pytest.raises(zf.errors.NodeTypeError, match="'/' is a group, not an array"):
        zf.Array(their_group)
