"""A large ``.zmetadata`` read as an index of its entries and written back as spans.

Creating one array under a v2 root consolidated over 50,000 nodes parsed the 12 MB
``.zmetadata`` into a tree and wrote it back from one: 2.9 s and 20x the document in
memory. It is now indexed where it lies in the bytes (``zarrforge_v2._json``,
``zarrforge_v2.consolidated.NodeLayout``), each node's documents parsed when the node
opens, and written back with unchanged entries as the bytes read. The thresholds are
lowered so that small hierarchies take the same path.
"""

from __future__ import annotations

import gc
import json
import pickle
import shutil
import tracemalloc

import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError
from zarrforge.metadata import raw_reading
from zarrforge.plugin_api import IndexedEntries
from zarrforge_std.stores.memory import MemoryStore
from zarrforge_v2 import _json


@pytest.fixture
def small_thresholds(monkeypatch):
    monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", 0)
    monkeypatch.setattr(_json, "LARGE_BYTES", 0)
    monkeypatch.setattr(_json._LARGE_DOCUMENTS, "min_bytes", 0)


def _root(tmp_path, nodes: int, *, real: int = 1, pad: int = 0) -> str:
    """A v2 root consolidated over ``nodes`` arrays (the first ``real`` stored too), its
    ``.zmetadata`` written as zarrforge writes one (built directly: consolidating that
    many nodes would take minutes)."""
    root = str(tmp_path / "root.zarr")
    group = zf.create_group(root, zarr_format=2)
    for i in range(real):
        group.create_array(
            f"a{i}", shape=(4,), chunks=(2,), dtype="i4", attributes={"i": i, "pad": "x" * pad}
        )
    zf.consolidate_metadata(root)
    path = tmp_path / "root.zarr" / ".zmetadata"
    document = json.loads(path.read_text())
    entries = document["metadata"]
    zarray = entries["a0/.zarray"]
    for i in range(nodes):
        entries[f"a{i}/.zarray"] = zarray
        entries[f"a{i}/.zattrs"] = {"i": i, "pad": "x" * pad}
    document["metadata"] = dict(sorted(entries.items()))
    path.write_text(json.dumps(document))
    return root


def _view(tmp_path) -> dict:
    return json.loads((tmp_path / "root.zarr" / ".zmetadata").read_bytes())["metadata"]


def test_a_group_opens_its_members_from_an_indexed_zmetadata(tmp_path, small_thresholds):
    root = _root(tmp_path, 30, real=2)
    path = tmp_path / "root.zarr" / ".zmetadata"
    document = json.loads(path.read_text())
    document["metadata"]["lonely/.zattrs"] = {"no": "node"}  # .zattrs alone is no node
    document["metadata"] = dict(sorted(document["metadata"].items()))
    path.write_text(json.dumps(document))
    group = zf.open_group(root, mode="r")
    assert type(group.metadata_model.consolidated) is IndexedEntries
    assert sorted(group.array_keys()) == sorted(f"a{i}" for i in range(30))
    assert "lonely" not in group
    assert group["a7"].attrs["i"] == 7 and group["a7"].shape == (4,)
    assert pickle.loads(pickle.dumps(group))["a8"].attrs["i"] == 8


def test_creating_under_an_indexed_zmetadata_keeps_every_other_entry_byte_for_byte(
    tmp_path, small_thresholds
):
    root = _root(tmp_path, 200, real=10)
    path = tmp_path / "root.zarr" / ".zmetadata"
    before = path.read_bytes()
    zf.create_array(root, "a100x", shape=(3,), chunks=(3,), dtype="u1", zarr_format=2)
    after = path.read_bytes()
    start = after.index(b'"a100x/.zarray"')
    end = after.index(b'"a101/.zarray"')
    assert after[:start] + after[end:] == before, "only the new node's entries were added"
    view = _view(tmp_path)
    assert list(view) == sorted(view)
    assert view["a100x/.zarray"]["shape"] == [3] and view["a100x/.zattrs"] == {}
    zf.open_group(root)["a7"].attrs["i"] = "seven"
    assert _view(tmp_path)["a7/.zattrs"]["i"] == "seven"
    del zf.open_group(root)["a100x"]
    assert not any(name.startswith("a100x/") for name in _view(tmp_path))


def test_an_indexed_zmetadata_and_a_parsed_one_write_the_same_document(tmp_path, monkeypatch):
    root = _root(tmp_path, 60, real=3)
    shutil.copytree(root, tmp_path / "before")

    def changed(threshold: int) -> bytes:
        shutil.rmtree(root)
        shutil.copytree(tmp_path / "before", root)
        monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", threshold)
        monkeypatch.setattr(_json, "LARGE_BYTES", threshold)
        monkeypatch.setattr(_json._LARGE_DOCUMENTS, "min_bytes", threshold)
        zf.create_group(root + "/g", attributes={"k": 1}, zarr_format=2).create_array(
            "inner", shape=(2,), chunks=(2,), dtype="f8"
        )
        del zf.open_group(root)["a1"]
        zf.open_group(root)["a2"].attrs["i"] = -1
        zf.open_group(root).attrs["root"] = "changed"
        return (tmp_path / "root.zarr" / ".zmetadata").read_bytes()

    assert changed(0) == changed(1 << 30)


def test_a_node_with_both_documents_is_refused_as_the_dict_form_refuses_it(tmp_path, monkeypatch):
    root = _root(tmp_path, 5)
    path = tmp_path / "root.zarr" / ".zmetadata"
    document = json.loads(path.read_text())
    document["metadata"]["a3/.zgroup"] = {"zarr_format": 2}
    document["metadata"] = dict(sorted(document["metadata"].items()))
    path.write_text(json.dumps(document))
    messages = []
    for threshold in (0, 1 << 30):
        monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", threshold)
        monkeypatch.setattr(_json, "LARGE_BYTES", threshold)
        monkeypatch.setattr(_json._LARGE_DOCUMENTS, "min_bytes", threshold)
        with pytest.raises(MetadataError, match="both .zarray and .zgroup") as caught:
            zf.open_group(root, mode="r")
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("change", ["unnormalised path", "entry not an object"])
def test_entries_the_index_does_not_read_are_read_whole(tmp_path, small_thresholds, change):
    root = _root(tmp_path, 5)
    path = tmp_path / "root.zarr" / ".zmetadata"
    document = json.loads(path.read_text())
    if change == "unnormalised path":
        document["metadata"]["/a9/.zarray"] = document["metadata"]["a0/.zarray"]
    else:
        document["metadata"]["notes"] = "a string, not a document"
    path.write_text(json.dumps(document))
    group = zf.open_group(root, mode="r")
    assert type(group.metadata_model.consolidated) is dict
    assert ("a9" in group) == (change == "unnormalised path")


def test_creating_under_a_large_zmetadata_holds_at_most_twice_the_document(tmp_path):
    """Traced allocations while one array is created under a root consolidated over
    10,000 nodes: at most twice the ``.zmetadata`` (the store's read, the index, the new
    entries, the write; measured, not timed)."""
    root = _root(tmp_path, 10_000, pad=250)
    size = (tmp_path / "root.zarr" / ".zmetadata").stat().st_size
    assert size > _json.LARGE_BYTES
    zf.create_array(MemoryStore(), shape=(1,), chunks=(1,), dtype="u1", zarr_format=2)
    gc.collect()
    tracemalloc.start()
    try:
        zf.create_array(root, "new", shape=(4,), chunks=(4,), dtype="i4", zarr_format=2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 2 * size, f"peak {peak} bytes for a {size}-byte .zmetadata"
    assert len(_view(tmp_path)) == 2 * 10_001 + 2


def test_entries_that_are_no_node_documents_are_dropped_as_the_dict_form_drops_them(tmp_path, monkeypatch):
    """Found by the differential fuzz target ``metadata_views_indexed``: the index kept
    a member that is no node's document when writing the view back; a view built from
    its nodes leaves it out."""
    root = _root(tmp_path, 5)
    path = tmp_path / "root.zarr" / ".zmetadata"
    document = json.loads(path.read_text())
    document["metadata"].update(
        {"node_type": {}, "zarr.json": {"zarr_format": 3}, "lonely/.zattrs": {"no": "node"}}
    )
    document["metadata"] = dict(sorted(document["metadata"].items()))
    path.write_text(json.dumps(document))
    shutil.copytree(root, tmp_path / "before")
    written = []
    for threshold in (0, 1 << 30):
        shutil.rmtree(root)
        shutil.copytree(tmp_path / "before", root)
        monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", threshold)
        monkeypatch.setattr(_json, "LARGE_BYTES", threshold)
        monkeypatch.setattr(_json._LARGE_DOCUMENTS, "min_bytes", threshold)
        zf.create_array(root, "new", shape=(1,), chunks=(1,), dtype="u1", zarr_format=2)
        written.append(_view(tmp_path))
    assert written[0] == written[1]
    assert not {"node_type", "zarr.json", "lonely/.zattrs"} & set(written[0])


def test_a_zmetadata_without_its_format_member_reads_through_the_index(tmp_path, small_thresholds):
    """Found by ``metadata_views_indexed``: kerchunk writes ``.zmetadata`` without
    ``zarr_consolidated_format``; read whole it was format 1, read as an index refused."""
    root = _root(tmp_path, 5)
    path = tmp_path / "root.zarr" / ".zmetadata"
    document = json.loads(path.read_text())
    del document["zarr_consolidated_format"]
    path.write_text(json.dumps(document))
    group = zf.open_group(root, mode="r")
    assert type(group.metadata_model.consolidated) is IndexedEntries
    assert sorted(group.array_keys()) == [f"a{i}" for i in range(5)]
