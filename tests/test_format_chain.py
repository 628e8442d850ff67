"""A v2 -> v3 -> draft-2022 -> v3 chain of copies preserves every value and attribute."""

from __future__ import annotations

import numpy as np

import zarrforge as zf
from zarrforge_std.stores.memory import MemoryStore


def build_v2():
    root = zf.create_group(
        MemoryStore(), attributes={"title": "chain", "nested": {"a": [1, 2]}}, zarr_format=2
    )
    t = root.create_array(
        "t",
        shape=(13, 7),
        dtype="float32",
        chunks=(4, 3),
        fill_value=float("nan"),
        dimension_names=["time", "x"],
        attributes={"units": "K"},
    )
    t[:10] = np.arange(70, dtype="float32").reshape(10, 7) / 3
    g = root.create_group("g", attributes={"level": 1})
    i = g.create_array(
        "i",
        shape=(9,),
        dtype="int16",
        chunks=(4,),
        fill_value=-7,
        compressors=[{"name": "gzip", "configuration": {"level": 1}}],
    )
    i[2:8] = np.arange(6, dtype="int16") - 3
    c = g.create_array("c", shape=(3, 2), dtype="complex64", chunks=(2, 2))
    c[...] = np.array([[1 + 2j, -1j], [3, 4.5 - 1j], [0, 7j]], dtype="complex64")
    return root


def content(group):
    out = {"": ({k: v for k, v in group.attrs.items() if k != "_ARRAY_DIMENSIONS"}, None)}
    for name, node in group.members(max_depth=None):
        attrs = {k: v for k, v in node.attrs.items() if k != "_ARRAY_DIMENSIONS"}
        if isinstance(node, zf.Array):
            out[name] = (
                attrs,
                (
                    node.shape,
                    str(node.dtype),
                    node.dimension_names,
                    np.asarray(node.fill_value).tobytes(),
                    node[...].tobytes(),
                ),
            )
        else:
            out[name] = (attrs, None)
    return out


def test_v2_to_v3_to_draft_to_v3_preserves_values_attributes_names_and_fill_values():
    v2 = build_v2()
    expected = content(v2)
    v3 = zf.copy(v2, MemoryStore(), zarr_format=3)
    draft = zf.copy(v3, MemoryStore(), zarr_format="draft-2022")
    back = zf.copy(draft, MemoryStore(), zarr_format=3)
    formats = [n.metadata_model.format_name for n in (v2, v3, draft, back)]
    assert formats == ["2", "3", "draft-2022", "3"]
    for stage in (v3, draft, back):
        assert content(stage) == expected
    assert back["t"].dimension_names == ("time", "x")
