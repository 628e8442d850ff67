"""Opening a node that a killed write's marker covers warns
(:class:`~zarrforge.errors.UnfinishedWriteWarning`) and still opens and reads."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import UnfinishedWriteWarning
from zarrforge.hierarchy_api import marking_unfinished, unfinished_writes_below
from zarrforge_std.stores.memory import MemoryStore


def _killed(store: MemoryStore, path: str, operation: str) -> None:
    """What a write killed inside its marked block leaves: its marker."""
    with marking_unfinished(store, path, operation) as mark:
        mark.keep()


@pytest.fixture
def store() -> MemoryStore:
    store = MemoryStore()
    zf.create_array(store, "g/a", shape=(4,), dtype="i4")[:] = np.arange(4)
    _killed(store, "g", "to_zarr adding 'wind'")
    return store


@pytest.mark.parametrize(
    "opening",
    [
        lambda s: zf.open_group(s, "g", mode="r"),
        lambda s: zf.open_group(s, "g"),
        lambda s: zf.open(s, "g", mode="r"),
        lambda s: zf.open_array(s, "g/a", mode="r"),
        lambda s: zf.open(s, "g/a"),
    ],
)
def test_every_open_at_or_below_a_marker_warns_naming_the_operation_and_still_reads(store, opening):
    with pytest.warns(
        UnfinishedWriteWarning,
        match=r"\"to_zarr adding 'wind'\".*"
        r"g/__zarrforge_unfinished.json.*may be partial.*overwrite=True",
    ) as caught:
        node = opening(store)
    assert caught[0].message.unfinished.operation == "to_zarr adding 'wind'"
    assert caught[0].filename == __file__  # it points at the caller's open
    array = node if isinstance(node, zf.Array) else node["a"]
    assert array[:].tolist() == [0, 1, 2, 3]


def test_a_marker_at_an_ancestor_is_named_as_such(store):
    with pytest.warns(UnfinishedWriteWarning, match=r"opened '/g/a' below '/g', where"):
        zf.open_array(store, "g/a", mode="r")


def test_no_marker_no_warning_and_one_batched_read(store):
    store.delete("g/__zarrforge_unfinished.json")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        zf.open_array(store, "g/a", mode="r")
        zf.open_group(store, mode="r")
    _killed(store, "other", "copy")  # a marker beside the node is not above it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        zf.open_array(store, "g/a", mode="r")


def test_the_markers_below_a_path_are_found_with_one_listing(store):
    _killed(store, "new/deep", "create_array")
    assert [(m.path, m.operation) for m in unfinished_writes_below(store, "")] == [
        ("g", "to_zarr adding 'wind'"),
        ("new/deep", "create_array"),
    ]
    assert [m.key for m in unfinished_writes_below(store, "new")] == ["new/deep/__zarrforge_unfinished.json"]
