"""zarrforge.copy: whole hierarchies, re-encoding, (un)sharding, refusal before writing."""

from __future__ import annotations

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import ContainsNodeError
from zarrforge_std.stores.memory import MemoryStore


def source_hierarchy():
    root = zf.create_group(MemoryStore(), attributes={"title": "src"})
    a = root.create_array(
        "a",
        shape=(30, 20),
        dtype="float32",
        chunks=(7, 6),
        fill_value=float("nan"),
        dimension_names=["y", "x"],
        attributes={"units": "K"},
    )
    a[:20] = np.arange(400, dtype="float32").reshape(20, 20)
    g = root.create_group("g", attributes={"k": [1, 2]})
    s = g.create_array("s", shape=(16, 16), dtype="int16", chunks=(4, 4), shards=(8, 16), fill_value=-1)
    s[2:10] = 5
    return root


def snapshot(group):
    out = {}
    for name, node in [("", group), *group.members(max_depth=None)]:
        entry = {"attrs": node.attrs.asdict()}
        if isinstance(node, zf.Array):
            entry.update(
                shape=node.shape,
                dtype=str(node.dtype),
                dims=node.dimension_names,
                fill=np.asarray(node.fill_value).tobytes(),
                data=node[...].tobytes(),
            )
        out[name] = entry
    return out


def test_copy_preserves_every_value_attribute_name_and_fill_value():
    src = source_hierarchy()
    dest = zf.copy(src, MemoryStore())
    assert snapshot(dest) == snapshot(src)
    assert dest["g/s"].shards == (8, 16) and dest["a"].chunks == (7, 6)


def test_copy_can_rechunk_recompress_and_shard():
    src = source_hierarchy()
    dest = zf.copy(
        src,
        MemoryStore(),
        source_path="",
        chunks=(5, 5),
        shards=(10, 10),
        compressors=[{"name": "gzip", "configuration": {"level": 1}}],
    )
    assert snapshot(dest) == snapshot(src)
    a = dest["a"]
    assert a.chunks == (5, 5) and a.shards == (10, 10)
    assert a.metadata["codecs"][0]["configuration"]["codecs"][1]["name"] == "gzip"


def test_copy_can_unshard():
    src = source_hierarchy()
    dest = zf.copy(src["g/s"], MemoryStore(), shards=False)
    assert dest.shards is None and dest.chunks == (4, 4)
    assert np.array_equal(dest[...], src["g/s"][...])


def test_progress_is_reported_per_step_of_whole_write_units():
    src = source_hierarchy()
    calls = []
    zf.copy(src, MemoryStore(), progress=lambda path, done, total: calls.append((path, done, total)))
    a_calls = [c for c in calls if c[0] == "a"]
    assert a_calls == [("a", 20, 20)]  # 5 x 4 chunks of (7, 6) over (30, 20): one step
    assert [c for c in calls if c[0] == "g/s"][-1] == ("g/s", 2, 2)
    # a step of one chunk's bytes (7 * 6 int32 elements): one report per chunk
    calls.clear()
    zf.copy(
        src,
        MemoryStore(),
        step_bytes=7 * 6 * 4,
        progress=lambda path, done, total: calls.append((path, done, total)),
    )
    assert [c[1] for c in calls if c[0] == "a"] == list(range(1, 21))
    # two rows of chunks' bytes: steps of 4 chunks (one row of the 5 x 4 grid), then
    # whole rows, the last one included
    calls.clear()
    dest = MemoryStore()
    zf.copy(
        src,
        dest,
        step_bytes=7 * 6 * 4 * 4 + 1,
        progress=lambda path, done, total: calls.append((path, done, total)),
    )
    assert [c[1] for c in calls if c[0] == "a"] == [4, 8, 12, 16, 20]
    np.testing.assert_array_equal(zf.open_array(dest, "a")[...], src["a"][...])
    with pytest.raises(ValueError, match="step_bytes must be a positive int"):
        zf.copy(src, MemoryStore(), step_bytes=0)


def test_existing_destination_is_refused_before_anything_is_written():
    src = source_hierarchy()
    dest = MemoryStore()
    zf.create_group(dest).create_group("g")
    before = dict(dest._data)
    with pytest.raises(ContainsNodeError, match="already exists at '/'"):
        zf.copy(src, dest)
    assert dest._data == before


def test_a_node_in_the_way_below_a_new_root_is_refused_before_anything_is_written():
    src = source_hierarchy()
    dest = MemoryStore()
    zf.create_group(dest, "copy/g")
    dest.delete("copy/zarr.json")  # no root, but a node where the copy puts one
    before = dict(dest._data)
    with pytest.raises(ContainsNodeError, match="already exists at '/copy/g'"):
        zf.copy(src, dest, dest_path="copy")
    assert dest._data == before


def test_unrepresentable_node_is_refused_before_anything_is_written():
    src = source_hierarchy()
    dest = MemoryStore()
    with pytest.raises(zf.errors.MetadataError, match="cannot copy '/a'"):
        zf.copy(src, dest, compressors=[{"name": "no.such.codec"}])
    assert dest._data == {}
