"""An interrupted ``zarrforge.copy`` can be run again with ``overwrite=True`` to a correct
destination.

Interruptions: a store error partway through the data (``FaultyStore``), a
store error while the metadata of a hierarchy is being written, and a copy
process killed with SIGKILL. After a failure in the data the destination opens,
its root carries the unfinished-write marker, and the copy without ``overwrite``
refuses with ``UnfinishedWriteError``; a failure in the metadata leaves nothing.
After each, the copy with ``overwrite=True`` produces a destination equal to the
source (the same documents and the same data in every array) and no marker.
"""

from __future__ import annotations

import random
import signal
from pathlib import Path

import numpy as np
import pytest
from _reliability import generation_values, start_worker

import zarrforge
from zarrforge.errors import IncompleteCopyError, StoreError, UnfinishedWriteError
from zarrforge.testing.faults import Fail, FaultyStore, on
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore

# the leftovers of killed writes are opened on purpose: the warning each open gives is
# expected (the tests that assert it use pytest.warns, which records it regardless)
pytestmark = pytest.mark.filterwarnings("ignore::zarrforge.errors.UnfinishedWriteWarning")


def _source(store, fmt: str = "3") -> None:
    zarrforge.create_group(store, "", zarr_format=fmt, attributes={"title": "source"})
    a = zarrforge.create_array(
        store,
        "a",
        shape=(40, 30),
        chunks=(8, 6),
        dtype="int32",
        zarr_format=fmt,
        attributes={"units": "m"},
        fill_value=0,
    )
    a[...] = generation_values((40, 30), (8, 6), 0)
    a[8:16, :] = 0  # a band of fill-value chunks, which the copy does not write
    b = zarrforge.create_array(
        store, "g/b", shape=(100,), chunks=(7,), dtype="float64", zarr_format=fmt, fill_value=-1.0
    )
    b[::3] = np.arange(34) * 0.5


def _assert_same(source, dest) -> None:
    src, dst = zarrforge.open_group(source, mode="r"), zarrforge.open_group(dest, mode="r")
    assert dict(src.attrs) == dict(dst.attrs)
    src_members = dict(src.members(max_depth=None))
    dst_members = dict(dst.members(max_depth=None))
    assert sorted(src_members) == sorted(dst_members)
    for name, node in src_members.items():
        other = dst_members[name]
        assert node.metadata == other.metadata, name
        if isinstance(node, zarrforge.Array):
            assert np.array_equal(node[...], other[...]), name
            assert sorted(node.stored_chunks()) == sorted(other.stored_chunks()), name


@pytest.mark.parametrize("fmt", ["3", "2"])
@pytest.mark.parametrize("nth", [1, 5, 17])
def test_copy_interrupted_by_a_store_error_can_be_rerun(tmp_path: Path, fmt: str, nth: int) -> None:
    source = MemoryStore()
    _source(source, fmt)
    dest = LocalStore(tmp_path / "dest")
    faulty = FaultyStore(dest)
    faulty.add(
        on(
            "set",
            where=lambda c: not (c.key or "").endswith((".json", ".zarray", ".zattrs", ".zgroup")),
            nth=nth,
        ),
        Fail(),
    )
    with pytest.raises(
        IncompleteCopyError, match="stopped .*run the same zarrforge.copy with overwrite=True"
    ) as info:
        zarrforge.copy(source, faulty)
    report = info.value
    assert isinstance(report.__cause__, StoreError)
    arrays = sorted(
        "/" + name
        for name, node in zarrforge.open_group(source).members(max_depth=None)
        if isinstance(node, zarrforge.Array)
    )
    assert sorted([*report.completed, report.stopped[0], *report.pending]) == arrays
    assert 0 <= report.stopped[1] <= report.stopped[2]
    zarrforge.open_group(dest, mode="r")  # the partial destination opens
    marker = zarrforge.unfinished_write(dest, "")
    assert marker is not None and marker.operation == "copy"
    with pytest.raises(UnfinishedWriteError, match="'copy'"):  # a ContainsNodeError
        zarrforge.copy(source, dest)
    zarrforge.copy(source, dest, overwrite=True)
    _assert_same(source, dest)
    assert zarrforge.unfinished_write(dest, "") is None


def test_copy_interrupted_while_writing_metadata_can_be_rerun(tmp_path: Path) -> None:
    source = MemoryStore()
    _source(source)
    dest = MemoryStore()
    faulty = FaultyStore(dest)
    faulty.add(on("set", "g/*zarr.json"), Fail())
    with pytest.raises(StoreError):
        zarrforge.copy(source, faulty)
    assert sorted(dest.list()) == []  # node writing rolled back, marker and all
    zarrforge.copy(source, dest, overwrite=True)
    _assert_same(source, dest)


def test_copy_killed_midway_can_be_rerun(tmp_path: Path) -> None:
    source = tmp_path / "source"
    _source(str(source))
    rng = random.Random()
    for trial in range(3):
        dest = tmp_path / f"dest{trial}"
        process = start_worker("copy", str(source), str(dest))
        assert process.stdout.readline().strip() == "ready"
        units = rng.randint(1, 20)
        for _ in range(units):  # kill after a random number of written units
            if not process.stdout.readline():
                break
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        zarrforge.copy(str(source), str(dest), overwrite=True)
        _assert_same(str(source), str(dest))


def test_rerun_replaces_chunks_the_interrupted_copy_wrote(tmp_path: Path) -> None:
    """Re-running after the *source* changed: overwrite erases the old destination
    node first, so no chunk of the interrupted copy survives where the new source
    holds the fill value."""
    source = MemoryStore()
    _source(source)
    dest = MemoryStore()
    faulty = FaultyStore(dest)
    faulty.add(on("set", "a/c/*", nth=10), Fail())
    with pytest.raises(IncompleteCopyError):
        zarrforge.copy(source, faulty)
    zarrforge.open_array(source, "a", mode="r+")[...] = 0
    zarrforge.copy(source, dest, overwrite=True)
    _assert_same(source, dest)
    assert not any(k.startswith("a/c/") for k in dest.list())
