"""Zip archives: a whole hierarchy written in one pass, read back, and its limits."""

from __future__ import annotations

import warnings
import zipfile

import numpy as np
import pytest

import zarrforge as zf
import zarrforge_fsspec  # noqa: F401
from zarrforge.errors import StoreError
from zarrforge_fsspec import AppendOnlyError, ZipStore


def write_hierarchy(url: str) -> None:
    root = zf.create_group(url, attributes={"kind": "zip"})
    root.create_array("a", shape=(12, 12), dtype="uint16", chunks=(5, 5))[:] = np.arange(
        144, dtype="uint16"
    ).reshape(12, 12)
    sharded = root.create_group("g").create_array(
        "s", shape=(30,), dtype="float64", chunks=(3,), shards=(15,)
    )
    sharded[:] = np.linspace(0, 1, 30)
    root.store.close()


def test_write_then_read_a_hierarchy(tmp_path):
    path = tmp_path / "out" / "data.zip"
    write_hierarchy(f"zip://{path}")
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
    assert "zarr.json" in names and "a/c/2/2" in names and "g/s/c/1" in names
    assert len(names) == len(set(names))  # every key written exactly once

    group = zf.open_group(f"zip://{path}", mode="r")
    assert isinstance(group.store, ZipStore) and group.store.read_only
    assert group.attrs["kind"] == "zip"
    assert sorted(group.keys()) == ["a", "g"]
    np.testing.assert_array_equal(group["a"][:], np.arange(144).reshape(12, 12))
    np.testing.assert_array_equal(group["g/s"][4:20], np.linspace(0, 1, 30)[4:20])
    group.store.close()


def test_rewrites_are_refused_clearly(tmp_path):
    url = f"zip://{tmp_path / 'data.zip'}"
    array = zf.create_array(url, "a", shape=(4,), dtype="int8", chunks=(2,))
    array[:2] = 1
    with pytest.raises(AppendOnlyError, match="cannot overwrite 'a/c/0'.*append-only"):
        array[:2] = 2
    with pytest.raises(AppendOnlyError, match="a/zarr.json"):
        array.attrs["changed"] = True
    array[2:] = 3  # a chunk not yet written is fine
    np.testing.assert_array_equal(array[:], [1, 1, 3, 3])
    with pytest.raises(AppendOnlyError):
        zf.open_group(url, mode="r+").__delitem__("a")
    array.store.close()
    np.testing.assert_array_equal(zf.open_array(url, "a")[:], [1, 1, 3, 3])


def test_reading_while_the_writer_is_open(tmp_path):
    url = f"zip://{tmp_path / 'live.zip'}"
    array = zf.create_array(url, shape=(3,), dtype="int32")
    array[:] = [1, 2, 3]
    reader = zf.open_array(url, mode="r")  # shares the live writer's archive, read-only
    assert reader.store.read_only
    np.testing.assert_array_equal(reader[:], [1, 2, 3])
    assert zf.open_array(url, mode="r+").store is not None
    array.store.flush()  # the central directory is on disk; writing goes on
    with zipfile.ZipFile(tmp_path / "live.zip") as archive:
        assert "zarr.json" in archive.namelist()
    array.store.set("extra", b"x")
    array.store.close()
    assert ZipStore(tmp_path / "live.zip", read_only=True).get("extra") == b"x"


def test_reopening_for_append(tmp_path):
    path = tmp_path / "append.zip"
    with ZipStore(path) as store:
        store.set("one", b"1")
    with ZipStore(path) as store:
        store.set("two", b"2")
        with pytest.raises(AppendOnlyError):
            store.set("one", b"again")
    with ZipStore(path, read_only=True) as store:
        assert sorted(store.list()) == ["one", "two"]


def test_missing_archive_and_closed_store(tmp_path):
    with pytest.raises(StoreError, match="no zip archive"):
        zf.open_group(f"zip://{tmp_path / 'absent.zip'}", mode="r")
    (tmp_path / "notes.txt").write_text("not an archive")
    with pytest.raises(StoreError, match="is not a zip archive"):
        ZipStore(tmp_path / "notes.txt")
    assert (tmp_path / "notes.txt").read_text() == "not an archive"
    store = ZipStore(tmp_path / "x.zip")
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.get("k")


def test_remote_archive_is_read_only(tmp_path, http_server):
    local = tmp_path / "remote.zip"
    write_hierarchy(f"zip://{local}")
    _directory, url = http_server.new_site({"remote.zip": local.read_bytes()})
    group = zf.open_group(f"zip::{url}/remote.zip", mode="r")
    np.testing.assert_array_equal(group["g/s"][:], np.linspace(0, 1, 30))
    group.store.close()
    with pytest.raises(StoreError, match="remote archives are read-only"):
        zf.create_group(f"zip::{url}/other.zip")


def test_interoperates_with_zarr_python(tmp_path):
    import zarr

    theirs = tmp_path / "theirs.zip"
    store = zarr.storage.ZipStore(theirs, mode="w")
    zarr.create_array(store, name="x", shape=(6,), chunks=(2,), dtype="int32")[:] = np.arange(6)
    store.close()
    np.testing.assert_array_equal(zf.open_array(f"zip://{theirs}", "x")[:], np.arange(6))

    ours = tmp_path / "ours.zip"
    write_hierarchy(f"zip://{ours}")
    store = zarr.storage.ZipStore(ours, mode="r")
    np.testing.assert_array_equal(
        zarr.open_array(store, path="a", mode="r")[:], np.arange(144).reshape(12, 12)
    )
    store.close()


def test_a_finished_write_leaves_no_unfinished_write_marker_in_the_archive(tmp_path):
    archive = tmp_path / "marker.zip"
    store = ZipStore(str(archive), mode="w")
    zf.create_array(store, "g/a", shape=(4,), chunks=(2,), dtype="i2")[...] = 7
    store.close()
    with zipfile.ZipFile(archive) as opened:
        names = opened.namelist()
    assert "g/a/zarr.json" in names
    assert not any("__zarrforge_unfinished" in name for name in names), names
    reader = ZipStore(str(archive), mode="r")
    assert zf.unfinished_write(reader, "g/a") is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no UnfinishedWriteWarning on open
        assert zf.open_array(reader, "g/a", mode="r")[...].tolist() == [7, 7, 7, 7]
