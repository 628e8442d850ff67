"""A writer killed (SIGKILL) at any point leaves nodes that open and hold the state before
or the state after, or leftovers that are marked as unfinished and say so.

Each write path runs in a forked child on a local directory store
(:mod:`zarrforge.testing.kills`): once whole, to count its store writes, then killed
just before each of those writes in turn, and then at random moments within the time a
whole run takes, until it has been killed at least :data:`KILLS` times. After every
kill:

* every node at and below the write's root opens, and each holds the state before or
  the state after: never a partial array, a shape without its data, or stale data;
* leftovers that are neither (a tree whose nodes are not all there, a copy stopped in
  its data) carry the unfinished-write marker, and writing there again without
  ``overwrite`` is refused with an :class:`~zarrforge.errors.UnfinishedWriteError`
  naming the killed operation and its process;
* running the write again (with ``overwrite=True`` where it creates) gives the right
  result, and no marker stays.

``ZARRFORGE_KILL_SEED`` fixes the random moments (printed on failure).
"""

from __future__ import annotations

import collections
import os
import random
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from _reliability import generation_values

import zarrforge
from zarrforge.errors import (
    ContainsNodeError,
    NodeNotFoundError,
    UnfinishedWriteError,
    UnfinishedWriteWarning,
)
from zarrforge.testing.kills import (
    NODE_DOCUMENTS,
    every_node_opens_and_reads,
    killed_after,
    killed_before_write,
    writes_made,
)
from zarrforge_std.stores.local import LocalStore

pytestmark = [
    pytest.mark.skipif(not hasattr(os, "fork"), reason="killing a forked writer is POSIX"),
    # the leftovers of killed writes are opened on purpose: the warning each open gives is
    # expected (the tests that assert it use pytest.warns, which records it regardless)
    pytest.mark.filterwarnings("ignore::zarrforge.errors.UnfinishedWriteWarning"),
]

KILLS = 20
SEED = int(os.environ.get("ZARRFORGE_KILL_SEED", str(random.randrange(2**31))))
# the local store's innermost writes: every kill point is one file written or removed
WRITES = ("_replace", "_replace_all_at", "_replace_at", "_unlink")
SHAPE, CHUNKS = (8, 12), (2, 3)
OLD = generation_values(SHAPE, CHUNKS, 0)
EXTRA = generation_values((3, 12), CHUNKS, 1)


class WritePath:
    """One write: ``setup`` makes the state before in a fresh directory, ``write`` is the
    call killed, ``state`` names what a directory holds (``"before"``, ``"after"`` or
    ``"unfinished"``, asserting it is one of them), ``retry`` completes the write."""

    name: str

    def setup(self, root: Path) -> None:
        pass

    def write(self, root: Path) -> None:
        raise NotImplementedError

    def state(self, root: Path) -> str:
        raise NotImplementedError

    def retry(self, root: Path) -> None:
        self.write(root)


def _unfinished_or_fail(root: Path, path: str, what: str) -> str:
    marker = zarrforge.unfinished_write(str(root), path)
    assert marker is not None, f"{what}, and no unfinished-write marker says so"
    assert marker.pid is not None and marker.operation
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:  # every open of what it left says so, naming the operation, and still opens
            zarrforge.open(str(root), path, mode="r")
        except NodeNotFoundError:
            return "unfinished"  # killed before it wrote a node there: nothing to open
    assert any(
        issubclass(w.category, UnfinishedWriteWarning) and repr(marker.operation) in str(w.message)
        for w in caught
    ), f"opening {path!r} did not warn of the unfinished {marker.operation!r}"
    return "unfinished"


class CreateArrayWithParents(WritePath):
    name = "create_array with parents"

    def __init__(self, zarr_format: int) -> None:
        self.zarr_format = zarr_format

    def write(self, root: Path) -> None:
        zarrforge.create_array(
            str(root),
            "g/h/a",
            shape=SHAPE,
            chunks=CHUNKS,
            dtype="i4",
            attributes={"units": "K"},
            zarr_format=self.zarr_format,
        )

    def retry(self, root: Path) -> None:
        try:
            self.write(root)
        except UnfinishedWriteError as exc:
            assert exc.unfinished.operation == "create_array"
            zarrforge.create_array(
                str(root),
                "g/h/a",
                shape=SHAPE,
                chunks=CHUNKS,
                dtype="i4",
                attributes={"units": "K"},
                zarr_format=self.zarr_format,
                overwrite=True,
            )
        except ContainsNodeError:
            pass  # not marked: the killed write had finished (the test checks it did)

    def state(self, root: Path) -> str:
        try:
            array = zarrforge.open_array(str(root), "g/h/a", mode="r")
        except NodeNotFoundError:
            # parent groups written without the array: the marker must say so
            parents = [f for f in root.rglob("*") if f.name in NODE_DOCUMENTS]
            if not parents and zarrforge.unfinished_write(str(root), "g/h/a") is None:
                return "before"
            return _unfinished_or_fail(root, "g/h/a", f"{len(parents)} parent group(s) without their array")
        assert dict(array.attrs) == {"units": "K"} and array.shape == SHAPE
        return "unfinished" if zarrforge.unfinished_write(str(root), "g/h/a") else "after"


def _source(root: Path) -> None:
    group = zarrforge.create_group(str(root / "source"))
    for name, generation in (("x", 2), ("y", 3)):
        array = group.create_array(name, shape=SHAPE, chunks=CHUNKS, dtype="i4", attributes={"name": name})
        array[...] = generation_values(SHAPE, CHUNKS, generation)
    group.create_group("sub").attrs["kept"] = True


class Copy(WritePath):
    name = "copy"

    def setup(self, root: Path) -> None:
        _source(root)

    def write(self, root: Path) -> None:
        zarrforge.copy(str(root / "source"), str(root / "dest"), step_bytes=1)

    def retry(self, root: Path) -> None:
        try:
            self.write(root)
        except UnfinishedWriteError as exc:
            assert exc.unfinished.operation == "copy"
            zarrforge.copy(str(root / "source"), str(root / "dest"), overwrite=True)
        except ContainsNodeError:
            pass  # not marked: the killed copy had finished (the test checks it did)

    def state(self, root: Path) -> str:
        try:
            dest = zarrforge.open_group(str(root / "dest"), mode="r")
        except NodeNotFoundError:
            return "before"
        source = zarrforge.open_group(str(root / "source"), mode="r")
        complete = True
        for name in ("x", "y"):  # what is there opens and reads, whole or not
            try:
                array = dest[name]
            except KeyError:
                complete = False
                continue
            complete &= bool(np.array_equal(array[...], source[name][...]))
        complete &= "sub" in dest and dest["sub"].attrs.get("kept") is True
        if complete and zarrforge.unfinished_write(str(root / "dest")) is None:
            return "after"
        return _unfinished_or_fail(root / "dest", "", "the copy is incomplete")


class Append(WritePath):
    name = "Array.append"

    def setup(self, root: Path) -> None:
        zarrforge.create_array(str(root), "a", shape=SHAPE, chunks=CHUNKS, dtype="i4")[...] = OLD

    def write(self, root: Path) -> None:
        zarrforge.open_array(str(root), "a", mode="r+").append(EXTRA)

    def state(self, root: Path) -> str:
        array = zarrforge.open_array(str(root), "a", mode="r")
        if array.shape == SHAPE:
            np.testing.assert_array_equal(array[...], OLD)
            # nothing the killed append wrote beyond the shape may show after a grow
            grown = zarrforge.open_array(str(root), "a", mode="r+")
            grown.resize((SHAPE[0] + 3, SHAPE[1]))
            assert (grown[SHAPE[0] :] == 0).all(), "stale rows reappeared after a grow"
            grown.resize(SHAPE)
            return "before"
        np.testing.assert_array_equal(array[...], np.concatenate([OLD, EXTRA]))
        return "after"

    def retry(self, root: Path) -> None:
        array = zarrforge.open_array(str(root), "a", mode="r+")
        if array.shape == SHAPE:
            array.append(EXTRA)


class Shrink(WritePath):
    name = "Array.resize (shrink)"

    def setup(self, root: Path) -> None:
        zarrforge.create_array(str(root), "a", shape=SHAPE, chunks=CHUNKS, dtype="i4")[...] = OLD

    def write(self, root: Path) -> None:
        zarrforge.open_array(str(root), "a", mode="r+").resize((3, 5))

    def state(self, root: Path) -> str:
        array = zarrforge.open_array(str(root), "a", mode="r")
        if array.shape == SHAPE:
            np.testing.assert_array_equal(array[...], OLD)
            return "before"
        assert array.shape == (3, 5)
        np.testing.assert_array_equal(array[...], OLD[:3, :5])
        return "after"

    def retry(self, root: Path) -> None:
        zarrforge.open_array(str(root), "a", mode="r+").resize((3, 5))
        grown = zarrforge.open_array(str(root), "a", mode="r+")
        grown.resize(SHAPE)  # what the shrink dropped never comes back
        expected = np.zeros(SHAPE, dtype="i4")
        expected[:3, :5] = OLD[:3, :5]
        np.testing.assert_array_equal(grown[...], expected)
        grown.resize((3, 5))


PATHS = [CreateArrayWithParents(3), CreateArrayWithParents(2), Copy(), Append(), Shrink()]


def _kill_points(path: WritePath, base: Path) -> tuple[int, float]:
    """The writes a whole run makes, and the seconds it takes (the longer of two runs)."""
    counting = base / "counting"
    path.setup(counting)
    writes = writes_made(lambda: path.write(counting), LocalStore, methods=WRITES)
    longest = 0.0
    for attempt in range(2):
        timing = base / f"timing{attempt}"
        path.setup(timing)
        start = time.monotonic()
        assert not killed_after(lambda: path.write(timing), 60.0)  # noqa: B023  # called before the loop moves on
        longest = max(longest, time.monotonic() - start)
    return writes, longest


@pytest.mark.parametrize("path", PATHS, ids=lambda p: f"{p.name} v{getattr(p, 'zarr_format', 3)}")
def test_a_killed_writer_leaves_before_after_or_marked_leftovers(tmp_path: Path, path: WritePath) -> None:
    rng = random.Random(f"{SEED}-{path.name}")
    writes, seconds = _kill_points(path, tmp_path)
    assert writes >= 2, f"{path.name} makes {writes} write(s): nothing to kill between"
    Kill = Callable[[Callable[[], None]], bool]

    def before_write(k: int) -> Kill:
        return lambda op: killed_before_write(op, LocalStore, k, methods=WRITES)

    def after(delay: float) -> Kill:
        return lambda op: killed_after(op, delay)

    kills = [before_write(k) for k in range(1, writes + 1)]
    while len(kills) < KILLS:
        kills.append(after(rng.uniform(0.0, seconds)))
    seen: collections.Counter[str] = collections.Counter()
    for number, kill in enumerate(kills):
        root = tmp_path / f"kill{number}"
        path.setup(root)
        where = f"{path.name}, kill {number} ({'before write ' + str(number + 1) if number < writes else 'timed'}), seed {SEED}"
        killed = kill(lambda: path.write(root))  # noqa: B023  # called before the loop moves on
        every_node_opens_and_reads(root)
        state = path.state(root)
        seen[state if killed else "finished"] += 1
        if not killed:
            assert state == "after", where
        path.retry(root)
        assert path.state(root) == "after", where
        assert not any(p.name == "__zarrforge_unfinished.json" for p in root.rglob("*")), where
    print(f"{path.name}: {len(kills)} kills ({writes} before each write, the rest timed): {dict(seen)}")
    assert sum(seen.values()) >= KILLS
    assert seen["before"] + seen["unfinished"] + seen["after"] >= writes  # each point killed


def test_leftovers_of_a_killed_tree_creation_are_refused_naming_the_writer(tmp_path: Path) -> None:
    def create_tree(root: Path) -> None:
        zarrforge.create_array(str(root), "g/h/a", shape=(4,), chunks=(2,), dtype="i4")

    writes = writes_made(lambda: create_tree(tmp_path / "counting"), LocalStore, methods=WRITES)
    root = tmp_path / "d"
    # killed before its last write, the marker's removal: the nodes are all there, but
    # nothing but the marker could tell that, so a new write there is refused all the same
    assert killed_before_write(lambda: create_tree(root), LocalStore, writes, methods=WRITES)
    marker = zarrforge.unfinished_write(str(root), "g/h/a")
    assert marker is not None and marker.operation == "create_array" and marker.pid != os.getpid()
    with pytest.raises(
        UnfinishedWriteError,
        match=rf"'/g/h/a' holds what an unfinished write "
        rf"\('create_array' by process {marker.pid} "
        r".*overwrite=True \(or mode='w'\)",
    ):
        zarrforge.create_array(str(root), "g/h/a", shape=(4,), chunks=(2,), dtype="i4")
    zarrforge.create_array(str(root), "g/h/a", shape=(4,), chunks=(2,), dtype="i4", overwrite=True)
    assert zarrforge.unfinished_write(str(root), "g/h/a") is None


def test_a_write_that_succeeds_or_fails_leaves_no_marker(tmp_path: Path) -> None:
    from zarrforge.errors import StoreError
    from zarrforge.testing.faults import Fail, FaultyStore, on

    zarrforge.create_array(str(tmp_path / "ok"), "g/h/a", shape=(4,), chunks=(2,), dtype="i4")
    assert not list((tmp_path / "ok").rglob("__zarrforge_unfinished.json"))
    inner = LocalStore(tmp_path / "failed")
    faulty = FaultyStore(inner)
    faulty.add(on("set", key="g/h/zarr.json"), Fail())
    with pytest.raises(StoreError):
        zarrforge.create_array(faulty, "g/h/a", shape=(4,), chunks=(2,), dtype="i4")
    assert sorted(inner.list()) == []  # rolled back, marker included


def test_a_malformed_marker_reads_as_an_unknown_writer(tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "d")
    zarrforge.create_group(store, "g")
    store.set("g/__zarrforge_unfinished.json", b"{not json")
    marker = zarrforge.unfinished_write(store, "g")
    assert marker is not None and (marker.operation, marker.pid) == (None, None)
    with pytest.raises(UnfinishedWriteError, match=r"an unfinished write \(a write\)"):
        zarrforge.create_group(store, "g")
    store.set("g/__zarrforge_unfinished.json", b'{"operation": 5, "pid": true, "host": ["x"]}')
    marker = zarrforge.unfinished_write(store, "g")
    assert (marker.operation, marker.pid, marker.host) == (None, None, None)


def test_a_store_that_keeps_only_zarr_keys_is_never_marked() -> None:
    """An Icechunk session refuses keys that are not Zarr's: a store that says so
    (``capabilities.bookkeeping_keys`` false) gets no marker, and its writes succeed."""
    import dataclasses

    from zarrforge.errors import StoreError
    from zarrforge.testing.kit_store import KitMemoryStore

    class ZarrKeysOnly(KitMemoryStore):
        capabilities = dataclasses.replace(KitMemoryStore.capabilities, bookkeeping_keys=False)

        def _set(self, key, value):
            if key.rsplit("/", 1)[-1].startswith("__"):
                raise StoreError(f"invalid zarr key format {key!r}")
            super()._set(key, value)

    store = ZarrKeysOnly()
    zarrforge.create_array(store, "g/h/a", shape=(4,), chunks=(2,), dtype="i4")
    zarrforge.copy(store, store, source_path="g", dest_path="copy")
    assert zarrforge.unfinished_write(store, "copy") is None
    assert not any("__zarrforge" in key for key in store.list())
