"""``zarrforge.storage``: zarr-python's store class names and constructor forms (issue #43).

Each form is the one zarr-python's user guide writes, with ``import zarrforge as zarr``;
nothing here reaches a network (fsspec's "memory" filesystem and obstore's ``MemoryStore``
stand for the remote ones).
"""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import zarrforge as zarr
from zarrforge import registry
from zarrforge.abc.store import Store
from zarrforge.errors import ReadOnlyError, StoreArgumentError, StoreError, UnknownExtensionError
from zarrforge.storing.storage import resolve_store

STORE_NAMES = {
    "LocalStore": "file",
    "MemoryStore": "memory",
    "ZipStore": "zip",
    "FsspecStore": "s3",
    "ObjectStore": "obstore+memory",
}


# --- the names ---------------------------------------------------------------------------


@pytest.mark.parametrize("name, registered", sorted(STORE_NAMES.items()))
def test_each_name_is_the_registered_store_class(name, registered):
    cls = getattr(zarr.storage, name)
    assert cls is registry.stores.get(registered)
    assert issubclass(cls, Store)
    assert name in dir(zarr.storage)


def test_from_import_gives_the_same_class():
    from zarrforge.storage import LocalStore, MemoryStore, StorePath

    assert LocalStore is registry.stores.get("file")
    assert MemoryStore is registry.stores.get("memory")
    assert StorePath is zarr.storage.StorePath


def test_importing_the_module_imports_no_plugin():
    code = (
        "import sys, zarrforge.storage; print(sorted(m for m in sys.modules if m.startswith('zarrforge_')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"


def test_an_unknown_name_is_an_attribute_error_listing_the_names():
    with pytest.raises(AttributeError, match="no attribute 'Nope'.*LocalStore"):
        zarr.storage.Nope
    assert not hasattr(zarr.storage, "Nope")


@pytest.mark.parametrize(
    "name, why",
    [
        ("WrapperStore", "zarrforge.abc.store.WrapperStore"),
        ("LoggingStore", "RequestCounter"),
        ("GpuMemoryStore", "GPU"),
        ("ManagedMemoryStore", "memory://NAME"),
        ("make_store_path", "StorePath"),
    ],
)
def test_names_not_supplied_say_why(name, why):
    with pytest.raises(AttributeError, match=f"zarrforge.storage has no '{name}'.*{why}"):
        getattr(zarr.storage, name)


def test_a_missing_plugin_names_the_package_to_install():
    with registry.stores.hidden("s3"):
        with pytest.raises(UnknownExtensionError, match="zarrforge-fsspec"):
            zarr.storage.FsspecStore


def test_isinstance_with_the_names(tmp_path):
    array = zarr.create_array(str(tmp_path / "a.zarr"), shape=(2,), dtype="i4")
    assert isinstance(array.store, zarr.storage.LocalStore)
    assert not isinstance(array.store, zarr.storage.MemoryStore)
    assert isinstance(zarr.create_array(None, shape=(2,), dtype="i4").store, zarr.storage.MemoryStore)


# --- LocalStore --------------------------------------------------------------------------


def test_local_store_read_only(tmp_path):
    root = tmp_path / "data" / "foo" / "bar"
    zarr.create_group(str(root)).create_array("x", shape=(2,), dtype="f8")[:] = [1, 2]
    store = zarr.storage.LocalStore(str(root), read_only=True)
    assert store.read_only
    group = zarr.open_group(store=store, mode="r")
    np.testing.assert_array_equal(group["x"][:], [1, 2])
    with pytest.raises(ReadOnlyError):
        group["x"][:] = 0
    with pytest.raises(ReadOnlyError):
        store.set("k", b"v")
    assert not (root / "k").exists()


# --- ZipStore ----------------------------------------------------------------------------


def test_zip_store_written_then_read_from_an_open_file(tmp_path):
    path = tmp_path / "data.zip"
    store = zarr.storage.ZipStore(str(path), mode="w")
    assert not store.read_only
    array = zarr.create_array(store=store, shape=(2,), dtype="float64")
    array[:] = [1.5, 2.5]
    store.close()
    assert "zarr.json" in zipfile.ZipFile(path).namelist()

    f = open(path, mode="rb")  # not in a with block: the user guide's form
    store = zarr.storage.ZipStore(f)
    assert store.read_only  # a file object without mode reads, as in zarr-python
    array = zarr.open_array(store=store, mode="r")
    np.testing.assert_array_equal(array[:], [1.5, 2.5])
    store.close()
    assert not f.closed  # the caller's file: the caller closes it
    f.close()


def test_zip_store_mode_w_replaces_and_mode_a_appends(tmp_path):
    path = tmp_path / "data.zip"
    with zarr.storage.ZipStore(path, mode="w") as store:
        store.set("old", b"1")
    with zarr.storage.ZipStore(path, mode="a") as store:
        store.set("more", b"2")
    assert sorted(zipfile.ZipFile(path).namelist()) == ["more", "old"]
    with zarr.storage.ZipStore(path, mode="w") as store:
        store.set("new", b"3")
    assert zipfile.ZipFile(path).namelist() == ["new"]
    with zarr.storage.ZipStore(path, mode="r") as store:
        assert store.read_only and store.get("new") == b"3"
        with pytest.raises(ReadOnlyError):
            store.set("other", b"4")


def test_zip_store_mode_x_refuses_an_existing_file(tmp_path):
    path = tmp_path / "data.zip"
    with zarr.storage.ZipStore(path, mode="x") as store:
        store.set("k", b"v")
    with pytest.raises(StoreError, match="mode='x' creates a new archive only"):
        zarr.storage.ZipStore(path, mode="x")
    assert zipfile.ZipFile(path).namelist() == ["k"]  # untouched


def test_zip_store_without_mode_keeps_appending_to_a_path(tmp_path):
    path = tmp_path / "data.zip"  # zarrforge's default before zarr-python's arguments
    with zarr.storage.ZipStore(path) as store:
        assert not store.read_only
        store.set("k", b"v")
    with zarr.storage.ZipStore(path, read_only=True) as store:
        assert store.read_only and store.get("k") == b"v"


def test_zip_store_in_a_bytes_buffer(tmp_path):
    buffer = io.BytesIO()
    store = zarr.storage.ZipStore(buffer, mode="w")
    zarr.create_array(store=store, shape=(3,), dtype="int32")[:] = [1, 2, 3]
    store.close()
    array = zarr.open_array(zarr.storage.ZipStore(io.BytesIO(buffer.getvalue())), mode="r")
    np.testing.assert_array_equal(array[:], [1, 2, 3])


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"mode": "rw"}, ValueError, "mode='rw' is not valid; valid: 'r'"),
        ({"mode": "r", "read_only": False}, ValueError, "contradict"),
        ({"mode": "w", "read_only": True}, ValueError, "contradict"),
    ],
)
def test_zip_store_bad_arguments_are_refused(tmp_path, kwargs, error, match):
    with pytest.raises(error, match=match):
        zarr.storage.ZipStore(tmp_path / "data.zip", **kwargs)
    assert not (tmp_path / "data.zip").exists()


def test_zip_store_refuses_a_text_file_and_other_objects(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("x")
    with open(path) as text, pytest.raises(TypeError, match="binary mode"):
        zarr.storage.ZipStore(text)
    with pytest.raises(TypeError, match="without read, seek, tell"):
        zarr.storage.ZipStore(object())


def test_zip_store_mode_w_refuses_an_archive_a_writer_holds(tmp_path):
    path = tmp_path / "data.zip"
    writer = zarr.storage.ZipStore(path, mode="a")
    writer.set("k", b"v")
    with pytest.raises(StoreError, match="a writable store of this process has it open"):
        zarr.storage.ZipStore(path, mode="w")
    writer.close()
    assert zipfile.ZipFile(path).namelist() == ["k"]


# --- MemoryStore -------------------------------------------------------------------------


def test_memory_store_writes_land_in_the_dict():
    data: dict[str, bytes] = {}
    store = zarr.storage.MemoryStore(data)
    array = zarr.create_array(store=store, shape=(2,), dtype="float64")
    array[:] = [1, 2]
    assert sorted(data) == ["c/0", "zarr.json"]
    data["extra"] = b"x"  # the dict is the live backing, both ways
    assert store.get("extra") == b"x"


def test_memory_store_data_keyword_still_works_and_read_only_refuses():
    data = {"k": b"v"}
    view = zarr.storage.MemoryStore(data=data, read_only=True)
    assert view.get("k") == b"v"
    with pytest.raises(ReadOnlyError):
        view.set("k", b"w")
    assert data == {"k": b"v"}
    with pytest.raises(ReadOnlyError):
        zarr.create_array(store=zarr.storage.MemoryStore({}, read_only=True), shape=(1,), dtype="i1")


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (({},), {"data": {}}, "not both"),
        (([("k", b"v")],), {}, "takes a dict.*got builtins.list"),
        (({"k": bytearray(b"v")},), {}, "key 'k' holds a builtins.bytearray"),
    ],
)
def test_memory_store_bad_dicts_are_refused(args, kwargs, match):
    with pytest.raises(StoreArgumentError, match=match):
        zarr.storage.MemoryStore(*args, **kwargs)


# --- FsspecStore -------------------------------------------------------------------------


@pytest.fixture
def memory_fs():
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    yield fs
    if fs.exists("/bucket"):
        fs.rm("/bucket", recursive=True)


def test_fsspec_store_from_url_with_storage_options(memory_fs):
    # ("memory://" alone is zarrforge's own memory store; "fsspec+memory://" is fsspec's)
    zarr.create_array("fsspec+memory://bucket/path", shape=(2,), dtype="i4")[:] = [4, 5]
    store = zarr.storage.FsspecStore.from_url("memory://bucket/path", read_only=True, storage_options={})
    assert isinstance(store, zarr.storage.FsspecStore) and store.read_only
    np.testing.assert_array_equal(zarr.open_array(store, mode="r")[:], [4, 5])
    with pytest.raises(ReadOnlyError):
        store.set("k", b"v")


def test_fsspec_store_over_an_asynchronous_filesystem(memory_fs):
    wrapper = pytest.importorskip("fsspec.implementations.asyn_wrapper")
    fs = wrapper.AsyncFileSystemWrapper(memory_fs, asynchronous=True)
    store = zarr.storage.FsspecStore(fs, path="bucket/path")
    assert store.fs is memory_fs  # called through its synchronous twin
    zarr.create_array(store=store, shape=(2,), dtype="i4")[:] = [6, 7]
    assert memory_fs.exists("/bucket/path/zarr.json")
    reader = zarr.storage.FsspecStore(fs, path="bucket/path", read_only=True)
    np.testing.assert_array_equal(zarr.open_array(reader, mode="r")[:], [6, 7])
    with pytest.raises(ReadOnlyError):
        reader.set("k", b"v")


def test_fsspec_store_arguments_are_checked(memory_fs):
    with pytest.raises(TypeError, match="pass read_only= and path= by keyword"):
        zarr.storage.FsspecStore(memory_fs, True)
    with pytest.raises(ValueError, match="PermissionError.*cannot be read as a missing key"):
        zarr.storage.FsspecStore(memory_fs, allowed_exceptions=(PermissionError,))
    zarr.storage.FsspecStore(memory_fs, allowed_exceptions=(FileNotFoundError,))
    with pytest.raises(TypeError, match=r"options \['x'\] both"):
        zarr.storage.FsspecStore.from_url("memory://bucket", storage_options={"x": 1}, x=2)


# --- ObjectStore -------------------------------------------------------------------------


def test_object_store_over_an_obstore_memory_store():
    obstore_store = pytest.importorskip("obstore.store", reason="obstore is not installed")
    store = zarr.storage.ObjectStore(obstore_store.MemoryStore())
    zarr.create_array(store=store, shape=(2,), dtype="f8")[:] = [1, 2]
    np.testing.assert_array_equal(zarr.open_array(store, mode="r")[:], [1, 2])
    reader = zarr.storage.ObjectStore(store=store.inner, read_only=True)
    with pytest.raises(ReadOnlyError):
        reader.set("k", b"v")
    with pytest.raises(TypeError, match="from_url"):
        zarr.storage.ObjectStore("memory:///")


# --- StorePath ---------------------------------------------------------------------------


def test_store_path_as_a_store_argument():
    store = zarr.storage.MemoryStore()
    node = zarr.storage.StorePath(store, path="a/b")
    zarr.create_array(store=node, shape=(2,), dtype="i4")[:] = [1, 2]
    assert store.exists("a/b/zarr.json")
    np.testing.assert_array_equal(zarr.open_array(node, mode="r")[:], [1, 2])
    np.testing.assert_array_equal(zarr.open_group(zarr.storage.StorePath(store, "a"))["b"][:], [1, 2])
    # the caller's path= goes below the StorePath's
    zarr.create_group(zarr.storage.StorePath(store, "a"), path="c")
    assert store.exists("a/c/zarr.json")


def test_store_path_joins_compares_and_shows():
    store = zarr.storage.MemoryStore()
    root = zarr.storage.StorePath(store)
    assert root.path == "" and (root / "a" / "b/c").path == "a/b/c"
    assert zarr.storage.StorePath(store, "/a/b/") == root / "a/b"
    assert zarr.storage.StorePath(store, "a") != zarr.storage.StorePath(zarr.storage.MemoryStore(), "a")
    assert len({root / "a", zarr.storage.StorePath(store, "a")}) == 1
    assert repr(root / "a") == f"StorePath({store!r}, path='a')"
    assert root.read_only is False


def test_store_path_refusals():
    store = zarr.storage.MemoryStore()
    with pytest.raises(StoreArgumentError, match="takes a zarrforge store.*builtins.str"):
        zarr.storage.StorePath("data.zarr")
    with pytest.raises(ValueError, match="'..'"):
        zarr.storage.StorePath(store, "a/../b")
    # a call taking a store alone takes the store of a StorePath at the root, and no other
    assert resolve_store(zarr.storage.StorePath(store)) is store
    with pytest.raises(StoreArgumentError, match="names the node 'a'"):
        zarr.transaction(zarr.storage.StorePath(store, "a"))


def test_store_path_over_a_read_only_store_refuses_writes(tmp_path):
    zarr.create_group(str(tmp_path / "g.zarr")).create_array("x", shape=(1,), dtype="i1")
    store = zarr.storage.LocalStore(tmp_path / "g.zarr", read_only=True)
    array = zarr.open_array(zarr.storage.StorePath(store, "x"), mode="r")
    with pytest.raises(ReadOnlyError):
        array[:] = 1
