"""Metadata updates that meet another writer's change between their read and their
conditional write: in every format, neither update is lost.

The race is made certain by a store wrapper that lets another writer change the
node's attributes right after the updater's first versioned read. Before the fix,
the Zarr v2 update lost the other writer's key every time: it read its documents a
second time inside the guard and so checked its write against the version after
the other writer's change, not the one its change was computed from. The
time-bounded tests with real processes live in ``test_concurrency.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import zarrforge
from zarrforge.testing.faults import ChangeBetweenReads
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore

FORMATS = [2, 3, "draft-2022"]


def _store(kind: str, tmp_path: Path):
    return MemoryStore() if kind == "memory" else LocalStore(tmp_path / "store")


@pytest.mark.parametrize("kind", ["memory", "local"])
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("node", ["array", "group"])
def test_an_attribute_update_racing_another_writer_keeps_both(tmp_path, kind, fmt, node) -> None:
    store = _store(kind, tmp_path)
    if node == "array":
        zarrforge.create_array(
            store, "a", shape=(4,), chunks=(2,), dtype="int32", zarr_format=fmt, attributes={"before": 0}
        )
        opener = zarrforge.open_array
    else:
        zarrforge.create_group(store, "a", zarr_format=fmt, attributes={"before": 0})
        opener = zarrforge.open_group
    other = opener(store, "a", mode="r+")
    wrapper = ChangeBetweenReads(store, lambda: other.attrs.__setitem__("theirs", 1), versioned_only=True)
    mine = opener(wrapper, "a", mode="r+")
    mine.attrs["mine"] = 2
    assert wrapper.reads  # the other writer's change landed inside this update
    assert dict(opener(store, "a").attrs) == {"before": 0, "theirs": 1, "mine": 2}


@pytest.mark.parametrize("fmt", [2, 3])
def test_consolidated_metadata_racing_an_attribute_change_keeps_both(tmp_path, fmt) -> None:
    store = LocalStore(tmp_path / "store")
    root = zarrforge.create_group(store, zarr_format=fmt)
    root.create_array("x", shape=(2,), chunks=(2,), dtype="int8")
    zarrforge.consolidate_metadata(store)
    other = zarrforge.open_array(store, "x", mode="r+")
    wrapper = ChangeBetweenReads(store, lambda: other.attrs.__setitem__("theirs", 1), versioned_only=True)
    mine = zarrforge.open_array(wrapper, "x", mode="r+")
    mine.attrs["mine"] = 2
    assert wrapper.reads
    fresh = zarrforge.open_group(store, mode="r")  # through the consolidated view
    assert dict(fresh["x"].attrs) == {"theirs": 1, "mine": 2}
    assert dict(zarrforge.open_group(store, mode="r", use_consolidated=False)["x"].attrs) == {
        "theirs": 1,
        "mine": 2,
    }


@pytest.mark.parametrize("kind", ["memory", "local"])
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("first", ["resize", "attributes"])
def test_a_resize_and_an_attribute_update_racing_each_other_keep_both(tmp_path, kind, fmt, first) -> None:
    """A resize is a metadata update like any other: one racing another handle's change
    (an attribute update landing inside a resize, or a resize inside an attribute
    update) keeps both, and the handle that raced keeps working with the new shape."""
    store = _store(kind, tmp_path)
    zarrforge.create_array(store, "a", shape=(4,), chunks=(2,), dtype="int32", zarr_format=fmt, fill_value=0)
    other = zarrforge.open_array(store, "a", mode="r+")
    if first == "resize":
        change, mine_does = (lambda: other.attrs.__setitem__("theirs", 1), lambda a: a.resize((6,)))
    else:
        change, mine_does = lambda: other.resize((6,)), lambda a: a.attrs.__setitem__("theirs", 1)
    wrapper = ChangeBetweenReads(store, change, versioned_only=True)
    mine = zarrforge.open_array(wrapper, "a", mode="r+")
    mine_does(mine)
    assert wrapper.reads
    stored = zarrforge.open_array(store, "a")
    assert stored.shape == (6,) and dict(stored.attrs) == {"theirs": 1}
    mine[4:6] = [5, 6]
    assert zarrforge.open_array(store, "a")[...].tolist() == [0, 0, 0, 0, 5, 6]
