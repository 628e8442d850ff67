"""The Z-order layout example (examples/morton-layout, issue #30), installed through the
entry point its pyproject declares: it changes the stored bytes of a 2022-draft array,
round-trips, passes the memory layout conformance suite, and is refused in v3 with the
documented message."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

import zarrforge as zf
import zarrforge_draft2022
from zarrforge.errors import MetadataError
from zarrforge.testing import MemoryLayoutConformance
from zarrforge_draft2022 import Draft2022Format
from zarrforge_std.stores.memory import MemoryStore

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "morton-layout"
NAME = "zf_morton.zorder"
EDITOR = Draft2022Format(dialect="editor")


@pytest.fixture
def zorder(fake_distribution):
    """The example installed as a distribution: its source on the path, its pyproject's
    entry points registered."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    source = str(EXAMPLE / "src")
    sys.path.insert(0, source)
    fake_distribution(project["name"], project["entry-points"])
    yield zf.registry.memory_layouts.get(NAME)
    sys.path.remove(source)
    for module in [m for m in sys.modules if m == "zf_morton" or m.startswith("zf_morton.")]:
        del sys.modules[module]


def test_the_entry_point_names_the_examples_layout(zorder):
    assert zorder.__module__ == "zf_morton.zorder" and zorder.name == NAME


def test_zorder_changes_the_stored_bytes_of_a_draft_2022_array(zorder):
    values = np.arange(16, dtype="<i2").reshape(4, 4)
    stored = {}
    for order in ("C", NAME):
        store = MemoryStore()
        a = zf.create_array(
            store, "a", shape=(4, 4), chunks=(4, 4), dtype="<i2", compressors=None, order=order, fmt=EDITOR
        )
        a[...] = values
        stored[order] = np.frombuffer(store.get(a.chunk_key((0, 0))), "<i2").tolist()
        assert a.metadata["chunk_memory_layout"] == order
    assert stored["C"] == list(range(16))
    assert stored[NAME] == [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15]


def test_zorder_arrays_round_trip_through_the_store(zorder):
    rng = np.random.default_rng(30)
    values = rng.normal(size=(7, 5, 6))
    store = MemoryStore()
    a = zf.create_array(
        store, "a", shape=values.shape, chunks=(4, 3, 4), dtype="<f8", order=NAME, fmt=EDITOR
    )  # compressed (blosc), edge chunks
    a[...] = values
    a[1:3, 2, :] = -1.0  # a partial write: read, changed and stored again
    values[1:3, 2, :] = -1.0
    again = zf.open_array(store, "a")
    assert again.metadata["chunk_memory_layout"] == NAME
    assert np.array_equal(again[...], values)
    assert np.array_equal(again[2:6, 1:4, 3], values[2:6, 1:4, 3])


def test_zorder_is_refused_in_v3_with_the_documented_message(zorder):
    with pytest.raises(MetadataError) as info:
        zf.create_array(
            MemoryStore(), "a", shape=(4, 4), chunks=(2, 2), dtype="<i2", order=NAME, zarr_format=3
        )
    message = str(info.value)
    assert info.value.field == "order"
    assert f"the memory layout {NAME!r} cannot be stored in a v3 array" in message
    assert "v3 records no memory layout" in message
    assert "expressed with the 'transpose' codec" in message
    assert "the 'draft-2022' format records a chunk memory layout" in message


def test_copying_a_zorder_array_to_v3_is_refused_with_the_same_message(zorder):
    store = MemoryStore()
    a = zf.create_array(store, "a", shape=(4, 4), chunks=(2, 2), dtype="<i2", order=NAME, fmt=EDITOR)
    a[...] = 1
    with pytest.raises(MetadataError, match="v3 records no memory layout") as info:
        zf.copy(store, MemoryStore(), source_path="a", dest_path="a", zarr_format=3)
    assert info.value.field == "codecs[0]"


def test_copying_a_zorder_array_within_the_draft_keeps_its_layout(zorder):
    store = MemoryStore()
    a = zf.create_array(
        store, "a", shape=(5, 3), chunks=(2, 2), dtype="<i2", order=NAME, compressors=None, fmt=EDITOR
    )
    a[...] = np.arange(15).reshape(5, 3)
    target = MemoryStore()
    with zarrforge_draft2022.dialect("editor"):  # a new hierarchy: zarr-python 2 reads no Z order
        b = zf.copy(store, target, source_path="a", dest_path="a")
    assert b.metadata["chunk_memory_layout"] == NAME
    assert target.get(b.chunk_key((0, 0))) == store.get(a.chunk_key((0, 0)))
    assert np.array_equal(b[...], np.arange(15).reshape(5, 3))


class TestZOrderConformance(MemoryLayoutConformance):
    layout_names = [NAME]
    max_examples = 20

    @pytest.fixture(autouse=True)
    def _installed(self, zorder):
        yield


def test_the_plugin_guide_lists_the_examples_layout_as_it_is():
    section = (EXAMPLE.parents[1] / "docs" / "plugin-guide" / "memory-layouts.md").read_text(encoding="utf-8")
    source = (EXAMPLE / "src" / "zf_morton" / "zorder.py").read_text(encoding="utf-8")
    assert f"```python\n{source}```" in section
    entry = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]["entry-points"]
    assert f'"{NAME}" = "{entry["zarrforge.memory_layouts"][NAME]}"' in section
