"""The local store writes only inside its root: a write through a symbolic link that
leads out is refused, deleting a linked node removes the link and never its target, and
with ``links="refuse"`` a value that is a link is never read. (Reads follow links by
default, as zarr-python and tensorstore do: ``test_links.py``.)

Before: ``create_array(ROOT, "link/arr")`` wrote documents and chunks into the directory
the link named, a chunk that was a link read the outside file with no way to refuse it,
and deleting a linked group raised a bare ``OSError`` and left the link.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import InvalidPathError, StoreError
from zarrforge_std.stores.local import LocalStore


@pytest.fixture
def places(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"host name and passwords")
    return root, outside


def test_creating_a_node_through_a_link_that_leaves_the_root_is_refused(places) -> None:
    root, outside = places
    zf.create_group(str(root))
    os.symlink(outside, root / "link")
    with pytest.raises(InvalidPathError, match="leads out of the store root .* symbolic link 'link'"):
        zf.create_array(str(root), "link/arr", shape=(4,), chunks=(2,), dtype="int8")
    assert sorted(os.listdir(outside)) == ["secret.txt"]  # nothing written outside


def test_with_links_refuse_a_value_that_is_a_link_is_never_followed(places) -> None:
    root, outside = places
    array = zf.create_array(str(root), "a", shape=(4,), chunks=(4,), dtype="uint8", compressors=None)
    array[...] = 1
    chunk = root / "a" / "c" / "0"
    chunk.unlink()
    os.symlink(outside / "secret.txt", chunk)
    with pytest.raises(StoreError, match="is a symbolic link") as info:
        zf.open_array(str(root), "a", storage_options={"links": "refuse"})[...]
    assert info.value.key == "a/c/0"
    store = LocalStore(root, links="refuse")
    for read in (
        lambda: store.get("a/c/0"),
        lambda: store.exists("a/c/0"),
        lambda: store.getsize("a/c/0"),
        lambda: store.get_versioned("a/c/0"),
    ):
        with pytest.raises(StoreError, match="symbolic link"):
            read()
    array[...] = 2  # a write replaces the link with a file of its own
    assert not chunk.is_symlink() and (outside / "secret.txt").read_bytes().startswith(b"host")
    np.testing.assert_array_equal(zf.open_array(str(root), "a")[...], [2, 2, 2, 2])


def test_deleting_a_linked_node_removes_the_link_and_keeps_its_target(places) -> None:
    root, _ = places
    group = zf.create_group(str(root))
    group.create_group("real").create_array("x", shape=(2,), dtype="int8")[...] = [1, 2]
    os.symlink(root / "real", root / "glink")
    del zf.open_group(str(root), mode="r+")["glink"]
    assert not os.path.lexists(root / "glink")
    np.testing.assert_array_equal(zf.open_array(str(root), "real/x")[...], [1, 2])


def test_deleting_a_node_linked_out_of_the_root_removes_the_link_only(places) -> None:
    root, outside = places
    zf.create_group(str(root))
    zf.create_array(str(outside / "data"), "x", shape=(2,), dtype="int8")
    os.symlink(outside / "data", root / "glink")
    del zf.open_group(str(root), mode="r+")["glink"]
    assert not os.path.lexists(root / "glink")
    assert (outside / "data" / "x" / "zarr.json").exists()  # nothing outside touched
    os.symlink(outside / "data", root / "glink")
    with pytest.raises(InvalidPathError, match="'glink"):  # refusing links: by name
        del zf.open_group(str(root), mode="r+", storage_options={"links": "refuse"})["glink"]
    assert (outside / "data" / "x" / "zarr.json").exists()


def test_a_directory_link_inside_the_root_is_followed(places) -> None:
    root, _ = places
    zf.create_group(str(root))
    zf.create_array(str(root), "real/x", shape=(3,), dtype="int8")[...] = [4, 5, 6]
    os.symlink(root / "real", root / "alias")
    np.testing.assert_array_equal(zf.open_array(str(root), "alias/x")[...], [4, 5, 6])


# --- URL roots -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "root",
    [
        "s3:",
        "s3:bucket/x",
        "gs:",
        "gcs:b",
        "http:",
        "https:h/x",
        "reference:",
        "az:c",
        "abfs:c",
        "sftp:h",
        "hf:r",
    ],
)
def test_a_remote_root_without_its_slashes_is_refused_and_creates_nothing(
    tmp_path, monkeypatch, root
) -> None:
    from zarrforge.errors import URLPipelineError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(URLPipelineError, match="names its location after '//'"):
        zf.create_array(f"{root}|zarr3:a", shape=(2,), dtype="int8")
    assert os.listdir(tmp_path) == []  # no directory named like the scheme


def test_dot_dot_in_a_root_means_the_same_in_every_root_form(tmp_path, monkeypatch) -> None:
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    zf.create_array("../data.zarr", "x", shape=(3,), dtype="int8")[...] = [7, 8, 9]
    for root in (
        "../data.zarr",
        "file:../data.zarr|zarr3:",
        f"file:{tmp_path}/work/../data.zarr|zarr3:",
        "fsspec+file://../data.zarr",
    ):
        np.testing.assert_array_equal(zf.open_array(root, "x")[...], [7, 8, 9], err_msg=root)
    assert sorted(os.listdir(tmp_path)) == ["data.zarr", "work"]


def test_paths_inside_a_store_never_climb_out(tmp_path) -> None:
    from zarrforge.errors import URLPipelineError

    zf.create_group(str(tmp_path / "data.zarr"))
    with pytest.raises((URLPipelineError, InvalidPathError)):
        zf.create_array(f"file:{tmp_path}/data.zarr|zarr3:../escape", shape=(1,), dtype="int8")
    with pytest.raises(InvalidPathError):
        zf.create_array(str(tmp_path / "data.zarr"), "../escape", shape=(1,), dtype="int8")
    assert not (tmp_path / "escape").exists()
