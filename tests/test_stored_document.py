"""``Array.metadata`` / ``Group.metadata``: the stored document, answering zarr-python's
metadata attribute names too (zarrforge.nodes.stored_document)."""

from __future__ import annotations

import json
import pickle

import pytest

import zarrforge as zf


def test_a_consolidated_group_lists_its_members_as_zarr_python_reads_them() -> None:
    store: dict = {}
    root = zf.create_group(store)
    root.create_array("a", shape=(4, 2), chunks=(2, 2), dtype="float64", fill_value=1.5)
    root.create_group("child", attributes={"kind": "child"}).create_group("grandchild")
    zf.consolidate_metadata(store)
    opened = zf.open_group(store)
    view = opened.metadata.consolidated_metadata
    assert (view.kind, view.must_understand) == ("inline", False)
    assert sorted(view.metadata) == ["a", "child", "child/grandchild"]
    array = view.metadata["a"]
    assert (array.shape, array.chunks, array.ndim) == ((4, 2), (2, 2), 2)
    assert (array.data_type, array.fill_value, array.node_type) == ("float64", 1.5, "array")
    assert view.metadata["child"].attributes == {"kind": "child"}
    # a member's own document carries no view (docs/coming-from-zarr-python.md)
    assert opened["child"].metadata.consolidated_metadata is None
    # the document as stored, whether or not the handle reads its members through the view
    # (zarr-python gives None there: a difference docs/coming-from-zarr-python.md lists)
    unconsolidated = zf.open_group(store, use_consolidated=False)
    assert sorted(unconsolidated.metadata.consolidated_metadata.metadata) == sorted(view.metadata)


def test_the_document_stays_the_stored_dict() -> None:
    store: dict = {}
    array = zf.create_array(store, shape=(3,), dtype="i2")
    document = array.metadata
    assert document == json.loads(store["zarr.json"])
    assert json.loads(json.dumps(document)) == document
    assert pickle.loads(pickle.dumps(document)) == document
    assert type(document.to_dict()) is dict and document.to_dict() == document
    assert (document.zarr_format, document.node_type, document.attributes) == (3, "array", {})
    assert document.codecs == document["codecs"]


def test_a_v2_document_answers_from_the_file_holding_each_fact() -> None:
    store: dict = {}
    group = zf.create_group(store, zarr_format=2, attributes={"x": 1})
    array = group.create_array("b", shape=(5,), chunks=(2,), dtype="<i4")
    assert (group.metadata.zarr_format, group.metadata.node_type) == (2, "group")
    assert group.metadata.attributes == {"x": 1}
    document = array.metadata
    assert (document.node_type, document.shape, document.chunks) == ("array", (5,), (2,))
    assert (document.dtype, document.order, document.filters) == ("<i4", "C", None)


def test_a_fact_the_document_does_not_hold_is_an_attribute_error_naming_what_it_holds() -> None:
    group = zf.create_group({})
    with pytest.raises(
        AttributeError,
        match=r"group's metadata document has no 'shape'; "
        r"it holds \['attributes', ",
    ):
        group.metadata.shape
    with pytest.raises(AttributeError, match="no attribute 'no_such_member'"):
        group.metadata.no_such_member


def test_group_metadata_under_zarr_pythons_module_path_describes_groups_to_create() -> None:
    from zarrforge.core.group import GroupMetadata

    store: dict = {}
    created = dict(
        zf.create_hierarchy(store=store, nodes={"a/b": GroupMetadata(attributes={"kind": "leaf"})})
    )
    assert sorted(created) == ["", "a", "a/b"]
    assert dict(zf.open_group(store, "a/b").attrs) == {"kind": "leaf"}
    assert GroupMetadata() == {"zarr_format": 3, "node_type": "group", "attributes": {}}
    v2 = GroupMetadata(zarr_format=2)
    assert (v2.zarr_format, v2.node_type, v2.attributes) == (2, "group", {})
    assert pickle.loads(pickle.dumps(v2)) == v2
    with pytest.raises(ValueError, match="zarr_format must be 2 or 3, got 4"):
        GroupMetadata(zarr_format=4)
    with pytest.raises(TypeError, match="attributes must be a dict, got list"):
        GroupMetadata(attributes=[1])  # type: ignore[arg-type]  # wrong on purpose: the check is under test
