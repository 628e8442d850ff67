"""Symbolic links in the local store: read through as every reader does, never written
through (``zarrforge_std.stores.local``).

Before: a value that was a link was refused (``StoreError: ... is a symbolic link``), so
data published with chunk files linked into a sibling folder (neuroglancer's OME-Zarr 0.6
test data), which zarr-python 3 and tensorstore read, did not open; a lock file that was a
link was followed (``set_if`` created the file it named); erasing the whole store left a
directory link in place; listings did not descend into linked directories; no option
refused links for trees other people made.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import InvalidPathError, StoreError
from zarrforge.plugin_api import ByteRange, ListDirResult
from zarrforge_std.stores.local import LocalStore, LocalStoreOptionError

REFUSE = {"links": "refuse"}


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"host name and passwords")
    return root, outside


# --- a tree like neuroglancer's OME-Zarr fixtures: chunk files linked to a sibling folder ------


LEVELS: dict[str, dict[str, Any]] = {
    "0": {"shape": (3, 40, 50), "chunks": (1, 16, 16), "shards": None},
    "1": {"shape": (3, 20, 25), "chunks": (1, 8, 8), "shards": (1, 16, 16)},
}


def _level_data(name: str) -> np.ndarray:
    shape = LEVELS[name]["shape"]
    return (np.arange(np.prod(shape), dtype="uint16") * (3 + int(name))).reshape(shape)


@pytest.fixture
def linked_ome_zarr(tmp_path: Path) -> Path:
    """An OME-Zarr-like v3 group written by zarr-python 3 (level "1" sharded), whose chunk
    (and shard) files were then moved to the sibling folder ``chunks/`` and linked back
    with relative links, as neuroglancer's test data keeps them."""
    zarr = pytest.importorskip("zarr")
    if not zarr.__version__.startswith("3."):
        pytest.skip("zarr-python 3 writes the fixture")
    root = tmp_path / "image.ome.zarr"
    group = zarr.open_group(str(root), mode="w", zarr_format=3)
    group.attrs["ome"] = {
        "version": "0.5",
        "multiscales": [
            {
                "axes": [
                    {"name": "c", "type": "channel"},
                    {"name": "y", "type": "space"},
                    {"name": "x", "type": "space"},
                ],
                "datasets": [
                    {
                        "path": name,
                        "coordinateTransformations": [
                            {"type": "scale", "scale": [1.0, 2.0 ** int(name), 2.0 ** int(name)]}
                        ],
                    }
                    for name in LEVELS
                ],
            }
        ],
    }
    for name, layout in LEVELS.items():
        array = group.create_array(
            name, shape=layout["shape"], chunks=layout["chunks"], shards=layout["shards"], dtype="uint16"
        )
        array[...] = _level_data(name)
    sibling = tmp_path / "chunks"
    moved = 0
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name != "zarr.json":
            target = sibling / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(path, target)
            os.symlink(os.path.relpath(target, path.parent), path)
            moved += 1
    assert moved >= 10 and (root / "0" / "c" / "0" / "0" / "0").is_symlink()
    return root


def test_chunks_linked_to_a_sibling_folder_read_as_zarr_python_and_tensorstore_read_them(
    linked_ome_zarr: Path,
) -> None:
    zarr = pytest.importorskip("zarr")
    ts = pytest.importorskip("tensorstore")
    group = zf.open_group(str(linked_ome_zarr), mode="r")
    assert group.attrs["ome"]["multiscales"][0]["datasets"][1]["path"] == "1"
    assert sorted(group.array_keys()) == ["0", "1"]
    peer = zarr.open_group(str(linked_ome_zarr), mode="r")
    for name in LEVELS:
        ours = group[name][...]
        spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(linked_ome_zarr / name)}}
        theirs = ts.open(spec, open=True, read=True).result().read().result()
        np.testing.assert_array_equal(ours, np.asarray(peer[name][...]), err_msg=name)
        np.testing.assert_array_equal(ours, theirs, err_msg=name)
        np.testing.assert_array_equal(ours, _level_data(name), err_msg=name)
        # a region: partial reads of the linked shard files (byte ranges through a link)
        np.testing.assert_array_equal(
            group[name][1, 3:13, 5:17], np.asarray(peer[name][1, 3:13, 5:17]), err_msg=name
        )
    # the listing walks the links as keys, as the files are there for every reader
    keys = set(group.store.list_prefix("1/"))
    assert "1/c/0/0/0" in keys and "1/zarr.json" in keys
    assert group["0"].nchunks_initialized == 3 * 3 * 4


def test_the_refuse_option_refuses_the_linked_chunks_naming_the_key_and_the_link(
    linked_ome_zarr: Path,
) -> None:
    group = zf.open_group(str(linked_ome_zarr), mode="r", storage_options=REFUSE)
    assert group.store.links == "refuse"
    assert sorted(group.array_keys()) == ["0", "1"]  # the documents are plain files
    with pytest.raises(StoreError, match=r"is a symbolic link \(to '\.\./") as info:
        group["0"][...]
    assert (info.value.key or "").startswith("0/c/") and "links='refuse'" in str(info.value)
    with pytest.raises(StoreError, match="'1/c/0/0/0' .* is a symbolic link"):
        group["1"][0, 0, 0]


# --- reads go through links; writes, deletes and erases never do ------------------------------


def test_a_chunk_that_is_a_link_reads_its_target_and_a_write_replaces_the_link(places) -> None:
    root, outside = places
    array = zf.create_array(str(root), "a", shape=(4,), chunks=(4,), dtype="uint8", compressors=None)
    array[...] = 1
    chunk = root / "a" / "c" / "0"
    (outside / "chunk").write_bytes(bytes([5, 6, 7, 8]))
    chunk.unlink()
    os.symlink(outside / "chunk", chunk)
    np.testing.assert_array_equal(zf.open_array(str(root), "a")[...], [5, 6, 7, 8])
    store = LocalStore(root)
    assert store.exists("a/c/0") and store.getsize("a/c/0") == 4
    assert store.get("a/c/0", ByteRange(1, 2)) == bytes([6, 7])
    value, generation = store.get_versioned("a/c/0")
    assert value == bytes([5, 6, 7, 8]) and generation is not None
    array[...] = 2  # a write replaces the link with a file of its own
    assert not chunk.is_symlink() and chunk.read_bytes() == bytes([2, 2, 2, 2])
    assert (outside / "chunk").read_bytes() == bytes([5, 6, 7, 8])  # the target untouched


def test_every_write_to_a_linked_key_replaces_the_link_and_leaves_the_target(places, local_batches) -> None:
    root, outside = places
    secret = outside / "secret.txt"
    before = secret.read_bytes()
    store = LocalStore(root)
    for write in (
        lambda key: store.set(key, b"new"),
        lambda key: store.set_many([(key, b"new")]),
        lambda key: store.set_many([("before", b"b"), (key, b"new")]),  # relative to the root
        lambda key: store.set_if(key, b"new", if_generation=store.get_versioned(key)[1]),
    ):
        os.symlink(secret, root / "k")
        assert store.get("k") == before  # read through the link
        write("k")
        assert not (root / "k").is_symlink() and (root / "k").read_bytes() == b"new"
        assert secret.read_bytes() == before
        (root / "k").unlink()


def test_a_lock_file_that_is_a_link_is_refused_and_never_written_through(places) -> None:
    root, outside = places
    store = LocalStore(root)
    store.set("k", b"old")
    planted = outside / "created-through-the-lock"
    os.symlink(planted, root / ".zarrforge-lock-k")  # a link naming a file not there yet
    with pytest.raises(StoreError, match="lock file .* is a symbolic link") as info:
        store.set_if("k", b"new", if_generation=store.get_versioned("k")[1])
    assert info.value.key == "k"
    assert not os.path.lexists(planted)  # nothing created where the link points
    assert store.get("k") == b"old"


def test_deleting_a_linked_key_or_erasing_a_linked_node_leaves_the_target(places) -> None:
    root, outside = places
    secret = outside / "secret.txt"
    store = LocalStore(root)
    (root / "a").mkdir()
    os.symlink(secret, root / "a" / "k")
    assert store.get("a/k") == secret.read_bytes()
    store.delete("a/k")
    assert not os.path.lexists(root / "a") and secret.exists()  # the link and its empty dir
    # a node linked out of the root: read through, then deleted as a link
    zf.create_group(str(root))
    zf.create_array(str(outside / "data"), "x", shape=(2,), dtype="int8")[...] = [1, 2]
    os.symlink(outside / "data", root / "glink")
    group = zf.open_group(str(root), mode="r+")
    np.testing.assert_array_equal(group["glink/x"][...], [1, 2])
    del group["glink"]
    assert not os.path.lexists(root / "glink")
    np.testing.assert_array_equal(zf.open_array(str(outside / "data"), "x")[...], [1, 2])
    # deleting a key below the link is deleting through it: refused, by key and link
    os.symlink(outside / "data", root / "glink")
    with pytest.raises(InvalidPathError, match="'glink/x/zarr.json'.*symbolic link 'glink'"):
        store.delete("glink/x/zarr.json")
    # erasing the whole store removes links as links
    store.erase_prefix("")
    assert os.listdir(root) == [] and secret.exists()
    assert sorted(os.listdir(outside / "data" / "x")) == ["c", "zarr.json"]


def test_a_write_whose_directory_leaves_the_root_through_a_link_is_refused_naming_it(places) -> None:
    root, outside = places
    os.symlink(outside, root / "out")
    store = LocalStore(root)
    assert store.get("out/secret.txt") == b"host name and passwords"  # reads go through
    writes = {
        "set": lambda: store.set("out/new/deep/k", b"x"),
        "set_many": lambda: store.set_many([("out/new/k", b"x")]),
        "set_if": lambda: store.set_if("out/new/k", b"x", if_generation=None),
        "overwrite": lambda: store.set("out/secret.txt", b"x"),
        "erase": lambda: store.erase_prefix("out/new/"),
    }
    for _name, write in writes.items():
        with pytest.raises(InvalidPathError, match="through the symbolic link 'out'"):
            write()
    with pytest.raises(
        InvalidPathError,
        match=r"key 'out/arr/[^']*' leads out of the store "
        r"root .* symbolic link 'out'",
    ):
        zf.create_array(str(root), "out/arr", shape=(4,), chunks=(2,), dtype="int8")
    assert sorted(os.listdir(outside)) == ["secret.txt"]  # nothing created outside
    assert (outside / "secret.txt").read_bytes() == b"host name and passwords"


def test_a_link_below_a_directory_already_written_is_refused_as_one_at_the_root(places) -> None:
    # a directory whose parent the store already found inside its root is checked by one
    # look at the directory itself: a link there is still followed to where it leads
    root, outside = places
    store = LocalStore(root)
    store.set("group/zarr.json", b"{}")
    store.set("group/inner/k", b"x")  # "group" and "group/inner" are known now
    os.symlink(outside, root / "group" / "out")
    with pytest.raises(InvalidPathError, match="through the symbolic link 'group/out'"):
        store.set("group/out/k", b"x")
    os.symlink(root / "group" / "inner", root / "group" / "alias")  # a link that stays inside
    store.set("group/alias/k2", b"y")
    assert (root / "group" / "inner" / "k2").read_bytes() == b"y"
    assert sorted(os.listdir(outside)) == ["secret.txt"]
    # links="refuse" takes the same one look, and refuses even the link that stays inside
    refusing = LocalStore(root, links="refuse")
    assert refusing.get("group/inner/k") == b"x"  # "group" and "group/inner" pass
    for key in ("group/alias/k2", "group/out/secret.txt"):
        with pytest.raises(InvalidPathError, match="passes through the symbolic link"):
            refusing.get(key)


def test_listings_walk_linked_directories_and_stop_at_cycles(places) -> None:
    root, outside = places
    store = LocalStore(root)
    store.set("real/b/v", b"1")
    os.symlink(root / "real", root / "real" / "b" / "up")  # a cycle
    os.symlink(outside, root / "out")
    os.symlink(outside / "secret.txt", root / "value")
    os.symlink(root / "nowhere", root / "dangling")
    os.symlink("loop", root / "loop")
    assert list(store.list_prefix("")) == ["out/secret.txt", "real/b/v", "value"]
    assert list(store.list_prefix("real/b/up/")) == ["real/b/up/b/v"]  # the cycle, once
    assert store.list_dir("") == ListDirResult(["value"], ["out/", "real/"])
    assert store.get("dangling") is None and not store.exists("dangling")
    with pytest.raises(StoreError, match="'loop'.*cycle") as info:
        store.get("loop")
    assert info.value.key == "loop"


# --- links="refuse": every link refused, by key and link --------------------------------------


def test_the_refuse_option_refuses_every_link_by_key_and_link(places, local_batches) -> None:
    root, outside = places
    store = LocalStore(root, links="refuse")
    store.set("real/v", b"1")
    store.set("plain", b"2")
    os.symlink(root / "real", root / "alias")  # inside the root, refused all the same
    os.symlink(outside / "secret.txt", root / "value")
    for read in (
        lambda: store.get("value"),
        lambda: store.exists("value"),
        lambda: store.getsize("value"),
        lambda: store.get_versioned("value"),
        lambda: store.get_many([("value", None)]),
        lambda: store.get_many([("real/v", None), ("plain", None), ("value", None)]),  # relative
    ):
        with pytest.raises(StoreError, match=r"'value' .* is a symbolic link \(to '.*secret") as info:
            read()
        assert info.value.key == "value"
    for use in (
        lambda: store.get("alias/v"),
        lambda: store.exists("alias/v"),
        lambda: list(store.list_prefix("alias/")),
        lambda: store.list_dir("alias/"),
        lambda: store.set("alias/w", b"2"),
    ):
        with pytest.raises(InvalidPathError, match="passes through the symbolic link 'alias'"):
            use()
    assert not (root / "real" / "w").exists()
    # listed as they are, not walked; the real tree reads as ever
    assert list(store.list_prefix("")) == ["plain", "real/v", "value"]
    assert store.list_dir("") == ListDirResult(["plain", "value"], ["alias/", "real/"])
    assert store.get("real/v") == b"1"
    store.set("value", b"mine")  # writing replaces the link, as under the default
    assert not (root / "value").is_symlink()
    assert (outside / "secret.txt").read_bytes() == b"host name and passwords"


def test_the_links_option_is_a_storage_option_of_paths_and_urls(places) -> None:
    root, _ = places
    zf.create_array(str(root), "a", shape=(2,), dtype="int8")[...] = [1, 2]
    for url in (str(root), f"file://{root}", f"file:{root}|zarr3:"):
        group = zf.open_group(url, mode="r", storage_options=REFUSE)
        assert group.store.links == "refuse", url
        assert zf.open_group(url, mode="r").store.links == "follow", url
    for url in (str(root), f"file:{root}|zarr3:"):
        with pytest.raises(
            LocalStoreOptionError, match=r"option links='yes' is not valid; valid: 'follow' .* 'refuse'"
        ):
            zf.open_group(url, mode="r", storage_options={"links": "yes"})
        with pytest.raises(
            LocalStoreOptionError, match=r"storage option 'links' only .*got \['follow_links'\]"
        ):
            zf.open_group(url, mode="r", storage_options={"follow_links": False})
    with pytest.raises(LocalStoreOptionError, match="links=False"):
        LocalStore(root, links=False)  # type: ignore[arg-type]
    assert repr(LocalStore(root, links="refuse")).endswith("links='refuse')")
