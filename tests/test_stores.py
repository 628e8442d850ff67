"""Behaviour of the std stores: memory and local directory."""

from __future__ import annotations

import os

import pytest

import zarrforge as zf
from zarrforge.abc.store import ByteRange
from zarrforge.errors import ReadOnlyError
from zarrforge.storing.storage import resolve_store
from zarrforge_std.stores.local import TEMP_PREFIX, LocalStore
from zarrforge_std.stores.memory import MemoryStore


@pytest.fixture(params=["memory", "local"])
def store(request, tmp_path):
    return MemoryStore() if request.param == "memory" else LocalStore(tmp_path / "s")


def test_get_set_delete(store):
    assert store.get("a/b") is None
    store.set("a/b", b"hello")
    assert store.get("a/b") == b"hello" and store.exists("a/b")
    store.delete("a/b")
    assert store.get("a/b") is None and not store.exists("a/b")
    store.delete("a/b")  # deleting a missing key is fine


@pytest.mark.parametrize(
    "byte_range,expected",
    [
        (ByteRange(2, 3), b"234"),
        (ByteRange(offset=7), b"789"),
        (ByteRange(length=2), b"89"),
        (ByteRange(8, 10), b"89"),
        (ByteRange(20, 1), b""),
    ],
)
def test_byte_ranges(store, byte_range, expected):
    store.set("k", b"0123456789")
    assert store.get("k", byte_range) == expected
    assert store.get_many([("k", byte_range), ("missing", None)]) == [expected, None]


def test_byte_range_rejects_negative_values():
    with pytest.raises(ValueError):
        ByteRange(-1, 2)
    with pytest.raises(ValueError):
        ByteRange()


def test_listing(store):
    for key in ["zarr.json", "a/zarr.json", "a/c/0", "a/c/1", "b/x/zarr.json"]:
        store.set(key, b"1")
    assert sorted(store.list()) == ["a/c/0", "a/c/1", "a/zarr.json", "b/x/zarr.json", "zarr.json"]
    assert list(store.list_prefix("a/")) == ["a/c/0", "a/c/1", "a/zarr.json"]
    listing = store.list_dir("")
    assert listing.keys == ["zarr.json"] and listing.prefixes == ["a/", "b/"]
    assert store.list_dir("a/").prefixes == ["c/"]
    store.erase_prefix("a/")
    assert sorted(store.list()) == ["b/x/zarr.json", "zarr.json"]


def test_read_only_refuses_every_mutation(tmp_path):
    for store in (MemoryStore(read_only=True), LocalStore(tmp_path, read_only=True)):
        for call in (
            lambda: store.set("k", b"v"),  # noqa: B023  # called in this iteration
            lambda: store.delete("k"),  # noqa: B023  # called before the loop moves on
            lambda: store.erase_prefix(""),  # noqa: B023  # called in this iteration
        ):
            with pytest.raises(ReadOnlyError):
                call()


def test_local_writes_leave_no_temporary_files(tmp_path):
    store = LocalStore(tmp_path)
    store.set("a/k", b"1")
    store.set("a/k", b"2")
    assert os.listdir(tmp_path / "a") == ["k"]
    (tmp_path / "a" / f"{TEMP_PREFIX}stale").write_bytes(b"partial")
    assert list(store.list()) == ["a/k"]
    assert store.list_dir("a/").keys == ["k"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_names_its_temporary_files_apart_from_its_parent(tmp_path):
    """Temporary names are the process's stem plus a counter a forked child inherits; the
    stem holds the pid, and is made again in the child."""
    from zarrforge_std.stores import local

    next(local._temp_counter)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its stem, then leave without running pytest's exit
        os.write(write, local._temp_stem.encode())
        os._exit(0)
    os.close(write)
    child_stem = os.read(read, 1000).decode()
    os.close(read)
    os.waitpid(pid, 0)
    assert f"-{pid}-" in child_stem and f"-{os.getpid()}-" in local._temp_stem
    assert child_stem != local._temp_stem


def test_local_get_many_opens_each_key_once_for_all_its_ranges(tmp_path, monkeypatch):
    from zarrforge_std.stores import local

    monkeypatch.setattr(local, "_native", None)  # the opens counted are Python's
    store = LocalStore(tmp_path)
    store.set("a/k", bytes(range(100)))
    store.set("a/j", b"small")
    opened = _recording_opens(monkeypatch, local)
    answers = store.get_many(
        [
            ("a/k", ByteRange(90, None)),
            ("a/k", None),
            ("a/k", ByteRange(None, 3)),
            ("a/j", None),
            ("a/missing", None),
            ("a/k", ByteRange(0, 2)),
        ]
    )
    assert answers == [
        bytes(range(90, 100)),
        bytes(range(100)),
        bytes([97, 98, 99]),
        b"small",
        None,
        b"\x00\x01",
    ]
    # "j" and "missing", two whole reads side by side in "a", are opened relative to it
    assert [os.path.basename(p) for p, _ in opened] == ["k", "a", "j", "missing", "k"]


def _recording_opens(monkeypatch, module):
    """Record ``(path, dir_fd)`` of each ``os.open`` the local store makes."""
    opened = []
    real_open = module.os.open

    def recording(path, *args, **kwargs):
        opened.append((path, kwargs.get("dir_fd")))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(module.os, "open", recording)
    return opened


def test_a_new_nodes_first_local_write_makes_its_directory_with_one_call(tmp_path, monkeypatch):
    """A key in a new directory below a checked one: one ``mkdir``, then the write; no
    look for a link (a directory the store made is real) and no create that fails first."""
    from zarrforge_std.stores import local

    store = LocalStore(tmp_path)
    store.set("group/zarr.json", b"{}")  # "group" is checked now
    calls = []
    for name in ("mkdir", "lstat", "open", "stat"):
        real = getattr(local.os, name)
        monkeypatch.setattr(
            local.os,
            name,
            lambda path, *a, real=real, name=name, **k: calls.append((name, path)) or real(path, *a, **k),
        )
    store.set("group/new/zarr.json", b"new")
    assert [name for name, _ in calls] == ["mkdir", "open"]
    assert calls[0][1] == str(tmp_path / "group" / "new")
    assert (tmp_path / "group" / "new" / "zarr.json").read_bytes() == b"new"
    calls.clear()
    store.set("group/new/c/0", b"chunk")  # below the directory just made: the same
    assert [name for name, _ in calls] == ["mkdir", "open"]
    calls.clear()
    store.set("group/new/zarr.json", b"again")  # a directory already there: no mkdir
    assert [name for name, _ in calls] == ["open"]


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_a_new_directory_is_not_made_through_a_link_that_leaves_the_root(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    outside.mkdir()
    store = LocalStore(root)
    store.set("zarr.json", b"{}")
    os.symlink(outside, root / "out")  # an unchecked directory: its new subdirectory is not made
    with pytest.raises(zf.errors.InvalidPathError, match="'out/new/zarr.json' leads out of the store root"):
        store.set("out/new/zarr.json", b"x")
    assert list(outside.iterdir()) == []


@pytest.mark.skipif(os.name != "posix", reason="directory descriptors are used on POSIX")
def test_a_local_batch_opens_each_directory_once_and_its_files_by_name(tmp_path, monkeypatch):
    from zarrforge_std.stores import local

    monkeypatch.setattr(local, "_native", None)  # Python's way (the C helper's: below)
    store = LocalStore(tmp_path)
    store.set("c/0/0", b"old")  # "c/0" exists, "c/1" does not yet
    opened = _recording_opens(monkeypatch, local)
    store.set_many([(f"c/{i}/{j}", bytes([i, j])) for i in range(2) for j in range(3)])
    relative = [path for path, at in opened if at is not None]
    assert len(relative) == 6 and all(name.startswith(TEMP_PREFIX) for name in relative)
    by_path = [path for path, at in opened if at is None]
    # each directory opened once; "c/1", absent, asked for, made, then opened
    assert by_path == [str(tmp_path / "c" / "0"), str(tmp_path / "c" / "1"), str(tmp_path / "c" / "1")]
    for directory in ("0", "1"):  # no temporary files left
        assert sorted(os.listdir(tmp_path / "c" / directory)) == ["0", "1", "2"]
    opened.clear()
    keys = [(f"c/{i}/{j}", None) for i in range(2) for j in range(4)]
    assert store.get_many(keys) == [bytes([i, j]) if j < 3 else None for i in range(2) for j in range(4)]
    assert [path for path, at in opened if at is not None] == ["0", "1", "2", "3"] * 2
    assert [path for path, at in opened if at is None] == [str(tmp_path / "c" / d) for d in "01"]


def test_a_local_batch_goes_through_the_c_helper_a_directory_at_a_time(tmp_path, monkeypatch):
    from zarrforge_std.stores import local

    if local._native is None:
        pytest.skip("zarrforge-batch-io's C helper is not built here")
    calls = []
    for name in ("read_files", "write_files"):
        real = getattr(local._native, name)
        monkeypatch.setattr(
            local._native,
            name,
            lambda *args, real=real, name=name: calls.append((name, args[1])) or real(*args),
        )
    assert LocalStore.capabilities.io_without_gil
    store = LocalStore(tmp_path)
    values = {f"c/{i}/{j}": bytes([i, j]) * (20_000 * j) for i in range(2) for j in range(3)}  # 0 to 78 KB
    store.set_many(values.items())
    assert calls == [("write_files", ["0", "1", "2"])] * 2
    calls.clear()
    keys = [*values, "c/1/9", "c/1/2/below-a-file"]
    assert store.get_many([(k, None) for k in keys]) == [*values.values(), None, None]
    assert calls == [("read_files", ["0", "1", "2"]), ("read_files", ["0", "1", "2", "9"])]
    for directory in ("0", "1"):  # no temporary files left
        assert sorted(os.listdir(tmp_path / "c" / directory)) == ["0", "1", "2"]


@pytest.mark.skipif(os.name != "posix", reason="directory descriptors are used on POSIX")
def test_a_local_batch_read_of_a_directory_that_is_a_file_or_absent_reads_nothing(tmp_path, local_batches):
    store = LocalStore(tmp_path)
    store.set("f", b"a file where a directory is asked for")
    store.set("d/0/x", b"a directory where a value is asked for")
    assert store.get_many([("f/0", None), ("f/1", None), ("none/0", None), ("none/1", None)]) == [None] * 4
    assert store.get_many([("d/0", None), ("d/1", None)]) == [None, None]


@pytest.mark.skipif(os.name != "posix", reason="directory descriptors are used on POSIX")
def test_a_local_batch_reads_what_only_the_path_can_report_by_its_path(tmp_path, local_batches):
    """A file a batch cannot read relative to its directory (here: a link to itself, a
    cycle) is read again by its path, which reports it, naming the key."""
    store = LocalStore(tmp_path)
    store.set_many([("a/0", b"0"), ("a/2", b"2")])
    os.symlink("1", tmp_path / "a" / "1")
    with pytest.raises(zf.errors.StoreError, match="'a/1' .* symbolic links form a cycle"):
        store.get_many([("a/0", None), ("a/1", None), ("a/2", None)])


def test_local_delete_prunes_empty_directories(tmp_path):
    store = LocalStore(tmp_path)
    store.set("a/b/c", b"1")
    store.delete("a/b/c")
    assert list(tmp_path.iterdir()) == []


def test_named_memory_urls_share_one_store():
    a = zf.create_array("memory://shared-test", "x", shape=(2,), dtype="int8", compressors=None)
    a[:] = [5, 6]
    assert zf.open_array("memory://shared-test", "x")[:].tolist() == [5, 6]
    assert zf.open_array("memory://shared-test", "x", mode="r").read_only
    assert resolve_store("memory://") is not resolve_store("memory://")


def test_plain_paths_and_file_urls_resolve_to_local_stores(tmp_path):
    zf.create_array(str(tmp_path / "d.zarr"), shape=(2,), dtype="int8", compressors=None)[:] = 3
    assert zf.open_array(f"file://{tmp_path}/d.zarr")[:].tolist() == [3, 3]
    assert zf.open_array(tmp_path / "d.zarr")[:].tolist() == [3, 3]


def test_unknown_url_scheme_names_the_plugin(monkeypatch):
    monkeypatch.setitem(zf.registry.KNOWN_PROVIDERS["store"], "test-scheme", "zarrforge-test")
    with pytest.raises(zf.errors.UnknownExtensionError, match="provided by the package 'zarrforge-test'"):
        zf.open_array("test-scheme://bucket/data.zarr")


class _BatchCounting(MemoryStore):
    """A memory store counting the batch calls it receives."""

    def __init__(self):
        super().__init__()
        self.batches: list[tuple[str, int]] = []

    def set_many(self, items):
        items = list(items)
        self.batches.append(("set_many", len(items)))
        super().set_many(items)

    def delete_many(self, keys):
        keys = list(keys)
        self.batches.append(("delete_many", len(keys)))
        super().delete_many(keys)


def test_wrappers_pass_batches_on_whole():
    from zarrforge.abc.store import WrapperStore
    from zarrforge_std.runtime_transformers import LRUCache, RequestCounter

    inner = _BatchCounting()
    counter = RequestCounter(LRUCache(WrapperStore(inner)))
    counter.set_many([(f"k{i}", b"v") for i in range(10)])
    counter.delete_many([f"k{i}" for i in range(4)])
    assert inner.batches == [("set_many", 10), ("delete_many", 4)]
    assert [kind for kind, _ in counter.calls] == ["set_many", "delete_many"]
    assert sorted(inner.list()) == [f"k{i}" for i in range(4, 10)]


def test_a_wrapper_intercepting_single_writes_sees_every_item_of_a_batch_once():
    from zarrforge.abc.store import WrapperStore

    class Recording(WrapperStore):
        def __init__(self, inner):
            super().__init__(inner)
            self.seen = []

        def _set(self, key, value):
            self.seen.append(key)
            self.inner.set(key, value)

    recording = Recording(MemoryStore())
    recording.set_many([("a", b"1"), ("b", b"2")])
    recording.set_parts("c", [b"x", b"y"])
    assert recording.seen == ["a", "b", "c"] and recording.get("c") == b"xy"
    with pytest.raises(zf.errors.InvalidPathError):
        recording.set_many([("ok", b"1"), ("../bad", b"2")])
    assert recording.get("ok") is None  # keys are checked before anything is written


@pytest.mark.parametrize("size", [0, 1, 4096, 65535, 65536, 65537, 3 * 65536 + 5])
def test_local_reads_values_of_every_size_whole_and_in_ranges(tmp_path, size):
    # whole values are read with one read when short, and at their size when not
    store = LocalStore(tmp_path)
    value = bytes(range(256)) * (size // 256) + bytes(size % 256)
    store.set("c/0", value)
    assert store.get("c/0") == value
    assert store.get_many([("c/0", None), ("c/1", None), ("c/0", ByteRange(1, 3))]) == [
        value,
        None,
        value[1:4],
    ]
    assert store.get("c/0", ByteRange(None, 2)) == value[-2:]


def test_a_local_store_at_the_file_system_root_joins_keys_to_it():
    assert LocalStore("/")._path("tmp/x") == "/tmp/x"


@pytest.mark.parametrize(
    "key", ["", "/a", "a/", "a//b", ".", "..", "a/./b", "a/../b", "../a", "a/..", "a\\b", "a\x00b", "./a"]
)
def test_malformed_keys_are_refused(key):
    from zarrforge.abc.store import validate_key
    from zarrforge.errors import InvalidPathError

    with pytest.raises(InvalidPathError):
        validate_key(key)


@pytest.mark.parametrize(
    "key", ["c/0/1", "zarr.json", ".zarray", "a/.zattrs", "a/.b./c", "a.b", "...", "a/...", "c.0.1"]
)
def test_well_formed_keys_are_accepted(key):
    from zarrforge.abc.store import validate_key

    assert validate_key(key) == key


def test_a_local_batch_writes_memoryviews_as_given_and_checks_everything_first(tmp_path):
    import numpy as np

    store = LocalStore(tmp_path)
    strided = memoryview(np.arange(16, dtype=np.uint8))[::2]  # not contiguous: written as a copy
    store.set_many([("a/b", memoryview(b"xyz")), ("c", strided)])
    assert store.get("a/b") == b"xyz" and store.get("c") == bytes(range(0, 16, 2))
    with pytest.raises(ReadOnlyError):
        LocalStore(tmp_path, read_only=True).set_many([("a/b", b"new")])
    with pytest.raises(zf.errors.InvalidPathError):
        store.set_many([("a/b", b"new"), ("../bad", b"2")])
    assert store.get("a/b") == b"xyz"  # keys are checked before anything is written


def _file_store_status() -> str:
    return next(r.status for r in zf.plugins() if (r.point, r.name) == ("stores", "file"))


def test_zarrforge_plugins_says_whether_the_local_stores_batches_run_in_c(monkeypatch):
    """The local store's row carries its ``plugin_note``: where small-file batches run, and
    why not in C when they do not."""
    import sys

    from zarrforge_std.stores import local

    batch_io = pytest.importorskip("zarrforge_batch_io")
    if batch_io.AVAILABLE:
        assert _file_store_status() == "ok (small-file batches in C, without the GIL: zarrforge-batch-io)"
    monkeypatch.setattr(local, "_native", None)
    monkeypatch.setattr(batch_io, "AVAILABLE", False)  # installed where no C compiler was found
    assert _file_store_status().startswith(
        "ok (small-file batches in Python: zarrforge-batch-io is installed without its C helper"
    )
    monkeypatch.setitem(sys.modules, "zarrforge_batch_io", None)  # not installed
    assert _file_store_status() == "ok (small-file batches in Python: zarrforge-batch-io is not installed)"


def test_a_plugin_note_that_fails_leaves_its_extension_ok():
    from zarrforge.registries import registry

    class Noted(MemoryStore):
        @classmethod
        def plugin_note(cls):
            raise RuntimeError("a bug in the note")

    class Quiet(MemoryStore):
        plugin_note = None  # not the declared class method: left out too

    zf.register("stores", "noted-test", Noted)
    zf.register("stores", "quiet-test", Quiet)
    try:
        rows = {r.name: r.status for r in zf.plugins() if r.point == "stores"}
        assert rows["noted-test"] == "ok (in-process)" and rows["quiet-test"] == "ok (in-process)"
    finally:
        registry.stores.unregister("noted-test")
        registry.stores.unregister("quiet-test")
