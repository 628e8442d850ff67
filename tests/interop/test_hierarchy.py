"""Groups and nested hierarchies across implementations.

zarr-python has a groups API, so hierarchies go both ways: members listings
(direct and recursive), node types, group attributes, array contents, and
zarr-python's consolidated metadata. tensorstore has no groups API: its
``zarr3`` driver opens array nodes only, so the tests assert that it refuses
group nodes, that it reads arrays nested in a zarrforge hierarchy by path, and
that arrays it writes at nested paths (with no group documents, since it
cannot write them) are arrays zarrforge opens by path and can adopt into a
hierarchy.
"""

from __future__ import annotations

import _interop as X
import numpy as np
import pytest
import tensorstore as ts
import zarr

import zarrforge as zf
from zarrforge.errors import NodeNotFoundError

ROOT_ATTRS = {"title": "interop", "ü": ["nested", {"x": None, "y": [1.5, True]}]}
# every node below the root: name -> (kind, attributes)
NODES = {
    "a": ("group", {"level": 1}),
    "a/b": ("group", {"level": 2, "name": "日本"}),
    "a/b/deep": ("array", {"units": "m"}),
    "a/sibling": ("array", {}),
    "empty": ("group", {}),
    "top": ("array", {"long_name": "température"}),
}
DIRECT = ["a", "empty", "top"]
DEEP = np.arange(5, dtype="int32")
SIBLING = np.array([[True, False], [False, True]])
TOP = np.array([[1.5, np.nan], [-np.inf, 0.0]], dtype="float64")


def build_with_zarrforge(path):
    root = zf.create_group(str(path), attributes=ROOT_ATTRS)
    root.create_group("a", attributes=NODES["a"][1])
    b = root.create_group("a/b", attributes=NODES["a/b"][1])
    b.create_array(
        "deep", shape=(5,), dtype="int32", chunks=(2,), attributes=NODES["a/b/deep"][1], dimension_names=["i"]
    )[:] = DEEP
    root["a"].create_array("sibling", shape=(2, 2), dtype="bool", chunks=(1, 2))[:] = SIBLING
    root.create_group("empty")
    root.create_array(
        "top",
        shape=(2, 2),
        dtype="float64",
        chunks=(1, 1),
        fill_value=float("nan"),
        attributes=NODES["top"][1],
    )[:] = TOP


def build_with_zarr_python(path):
    root = zarr.create_group(str(path), attributes=ROOT_ATTRS)
    a = root.create_group("a", attributes=NODES["a"][1])
    b = a.create_group("b", attributes=NODES["a/b"][1])
    b.create_array(
        "deep", shape=(5,), dtype="int32", chunks=(2,), attributes=NODES["a/b/deep"][1], dimension_names=["i"]
    )[:] = DEEP
    a.create_array("sibling", shape=(2, 2), dtype="bool", chunks=(1, 2))[:] = SIBLING
    root.create_group("empty")
    root.create_array(
        "top",
        shape=(2, 2),
        dtype="float64",
        chunks=(1, 1),
        fill_value=float("nan"),
        attributes=NODES["top"][1],
    )[:] = TOP


def _ts_open(path):
    return ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": f"{path}/"}}, open=True).result()


def check_arrays(get):
    """``get(name)`` returns the array's values as numpy."""
    X.assert_same_bits(np.asarray(get("a/b/deep")), DEEP, "a/b/deep")
    X.assert_same_bits(np.asarray(get("a/sibling")), SIBLING, "a/sibling")
    X.assert_same_bits(np.asarray(get("top")), TOP, "top")


def test_zarrforge_hierarchy_in_zarr_python(tmp_path):
    build_with_zarrforge(tmp_path)
    z = zarr.open_group(str(tmp_path), mode="r")
    assert dict(z.attrs) == ROOT_ATTRS
    assert sorted(name for name, _ in z.members()) == DIRECT
    members = dict(z.members(max_depth=None))
    assert sorted(members) == sorted(NODES)
    for name, (kind, attrs) in NODES.items():
        node = members[name]
        assert isinstance(node, zarr.Group if kind == "group" else zarr.Array), name
        assert dict(node.attrs) == attrs, name
    assert sorted(z.group_keys()) == ["a", "empty"] and sorted(z.array_keys()) == ["top"]
    assert sorted(z["a"].array_keys()) == ["sibling"]
    check_arrays(lambda name: z[name][...])
    # the listings agree with zarrforge's own
    ours = zf.open_group(str(tmp_path), mode="r")
    assert [n for n, _ in ours.members(max_depth=None)] == sorted(members)


def test_zarr_python_hierarchy_in_zarrforge(tmp_path):
    build_with_zarr_python(tmp_path)
    g = zf.open_group(str(tmp_path), mode="r")
    assert g.attrs.asdict() == ROOT_ATTRS
    assert g.keys() == DIRECT
    assert g.group_keys() == ["a", "empty"] and g.array_keys() == ["top"]
    members = dict(g.members(max_depth=None))
    assert sorted(members) == sorted(NODES)
    for name, (kind, attrs) in NODES.items():
        assert isinstance(members[name], zf.Group if kind == "group" else zf.Array), name
        assert members[name].attrs.asdict() == attrs, name
        assert name in g
    assert g["a/b/deep"].dimension_names == ("i",)
    check_arrays(lambda name: g[name][...])
    assert str(g.tree()).splitlines() == [
        "/",
        "├── a",
        "│   ├── b",
        "│   │   └── deep (5,) int32",
        "│   └── sibling (2, 2) bool",
        "├── empty",
        "└── top (2, 2) float64",
    ]


def _entries_without_nested_views(consolidated):
    """The consolidated entries, less the empty view zarr-python nests in each child group
    and the empty ``storage_transformers`` it writes (absent and empty mean the same)."""
    return {
        name: {
            k: v
            for k, v in doc.items()
            if k != "consolidated_metadata" and not (k == "storage_transformers" and v == [])
        }
        for name, doc in consolidated["metadata"].items()
    }


# zarr-python warns that consolidated metadata is not part of the v3 specification
@pytest.mark.filterwarnings("ignore:Consolidated metadata:UserWarning")
def test_zarr_python_consolidated_metadata_in_zarrforge(tmp_path):
    build_with_zarr_python(tmp_path)
    zarr.consolidate_metadata(str(tmp_path))
    consolidated = X.node_document(tmp_path)["consolidated_metadata"]
    assert sorted(consolidated["metadata"]) == sorted(NODES)

    g = zf.open_group(str(tmp_path), mode="r+")
    assert _entries_without_nested_views(
        g.metadata["consolidated_metadata"]
    ) == _entries_without_nested_views(consolidated)
    assert [n for n, _ in g.members(max_depth=None)] == sorted(NODES)
    check_arrays(lambda name: g[name][...])

    # zarrforge's changes rewrite the root document and keep its consolidated view current
    g.attrs["edited_by"] = "zarrforge"
    g["a/b/deep"].attrs["units"] = "km"
    stored = X.node_document(tmp_path)["consolidated_metadata"]
    assert sorted(stored["metadata"]) == sorted(NODES)
    assert stored["metadata"]["a/b/deep"]["attributes"] == {"units": "km"}

    z = zarr.open_consolidated(str(tmp_path), mode="r")
    assert z.attrs["edited_by"] == "zarrforge"
    assert sorted(name for name, _ in z.members(max_depth=None)) == sorted(NODES)
    assert dict(z["a/b/deep"].attrs) == {"units": "km"}  # zarr-python reads it from the view
    check_arrays(lambda name: z[name][...])


@pytest.mark.filterwarnings("ignore:Consolidated metadata:UserWarning")
def test_zarrforge_consolidated_metadata_in_zarr_python(tmp_path):
    build_with_zarrforge(tmp_path)
    zf.consolidate_metadata(str(tmp_path))
    z = zarr.open_consolidated(str(tmp_path), mode="r")
    assert z.metadata.consolidated_metadata is not None
    members = dict(z.members(max_depth=None))
    assert sorted(members) == sorted(NODES)
    for name, (_, attrs) in NODES.items():
        assert dict(members[name].attrs) == attrs, name
    assert sorted(name for name, _ in z["a"].members()) == ["b", "sibling"]
    check_arrays(lambda name: z[name][...])

    # a change made through zarrforge is in the view zarr-python reads
    zf.open_group(str(tmp_path), mode="r+")["top"].attrs["new"] = True
    z = zarr.open_consolidated(str(tmp_path), mode="r")
    assert dict(z["top"].attrs) == {**NODES["top"][1], "new": True}


def test_zarrforge_hierarchy_in_tensorstore(tmp_path):
    build_with_zarrforge(tmp_path)
    for name, (kind, attrs) in {"": ("group", ROOT_ATTRS), **NODES}.items():
        if kind == "group":
            # no groups API in tensorstore: the zarr3 driver refuses group nodes
            with pytest.raises(ValueError, match='"node_type": Expected "array", but received: "group"'):
                _ts_open(tmp_path / name)
            continue
        t = _ts_open(tmp_path / name)
        assert t.spec().to_json()["metadata"].get("attributes", {}) == attrs
    check_arrays(lambda name: _ts_open(tmp_path / name).read().result())
    assert _ts_open(tmp_path / "a/b/deep").domain.labels == ("i",)


def test_tensorstore_nested_arrays_in_zarrforge(tmp_path):
    # tensorstore writes arrays at nested paths; it cannot write group documents
    arrays = (("a/b/deep", DEEP, [2]), ("a/sibling", SIBLING, [1, 2]), ("top", TOP, [1, 1]))
    for name, values, chunks in arrays:
        dtype = {"i": "int32", "b": "bool", "f": "float64"}[values.dtype.kind]
        fill = "NaN" if name == "top" else (False if dtype == "bool" else 0)
        t = ts.open(
            {
                "driver": "zarr3",
                "kvstore": {"driver": "file", "path": f"{tmp_path / name}/"},
                "metadata": {
                    "shape": list(values.shape),
                    "data_type": dtype,
                    "fill_value": fill,
                    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                    "codecs": [X.bytes_codec(), X.zstd()],
                    "attributes": NODES[name][1],
                },
            },
            create=True,
        ).result()
        t.write(values).result()
    assert not (tmp_path / "zarr.json").exists() and not (tmp_path / "a" / "zarr.json").exists()

    # zarrforge opens the arrays by path ...
    check_arrays(lambda name: zf.open_array(str(tmp_path), name)[...])
    assert zf.open_array(str(tmp_path), "top").attrs.asdict() == NODES["top"][1]
    # ... but there is no group: Zarr v3 has no implicit groups
    with pytest.raises(NodeNotFoundError):
        zf.open_group(str(tmp_path), mode="r")
    with pytest.raises(NodeNotFoundError):
        zf.open_group(str(tmp_path), "a", mode="r")

    # zarrforge writes the group documents around tensorstore's arrays
    root = zf.open_group(str(tmp_path), mode="a", attributes=ROOT_ATTRS)
    root.require_group("a/b")
    assert [n for n, _ in root.members(max_depth=None)] == ["a", "a/b", "a/b/deep", "a/sibling", "top"]
    check_arrays(lambda name: root[name][...])
    # and tensorstore still reads its arrays
    check_arrays(lambda name: _ts_open(tmp_path / name).read().result())
