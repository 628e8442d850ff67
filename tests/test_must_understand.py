"""The must_understand rule for unknown top-level fields, on arrays and groups."""

from __future__ import annotations

import json

import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError, MustUnderstandError


def _edit(store, key, **fields):
    document = json.loads(store.get(key))
    document.update(fields)
    store.set(key, json.dumps(document).encode())
    return document


@pytest.fixture(params=["array", "group"])
def node_store(request):
    store = zf.create_group(None).store
    if request.param == "array":
        zf.create_array(store, "n", shape=(2,), dtype="int8", compressors=None)
    else:
        zf.create_group(store, "n")
    return store


def test_unknown_field_with_must_understand_false_opens_and_is_written_back(node_store):
    extra = {"name": "x.thing", "must_understand": False, "configuration": {"k": [1, 2]}}
    _edit(node_store, "n/zarr.json", my_extension=extra)
    node = zf.open(node_store, "n", mode="r+")
    assert node.metadata["my_extension"] == extra
    node.attrs["touched"] = True  # rewrites the document
    stored = json.loads(node_store.get("n/zarr.json"))
    assert stored["my_extension"] == extra and stored["attributes"] == {"touched": True}


@pytest.mark.parametrize(
    "value",
    [
        {"name": "x.thing"},
        {"must_understand": True},
        "a string",
        42,
        None,
    ],
)
def test_unknown_field_without_must_understand_false_is_refused(node_store, value):
    _edit(node_store, "n/zarr.json", my_extension=value)
    with pytest.raises(MustUnderstandError) as info:
        zf.open(node_store, "n")
    message = str(info.value)
    assert "'my_extension'" in message and "n/zarr.json" in message
    assert "must_understand" in message


def test_consolidated_metadata_is_a_recognised_group_field():
    g = zf.create_group(None)
    cm = {"kind": "inline", "must_understand": False, "metadata": {}}
    _edit(g.store, "zarr.json", consolidated_metadata=cm)
    assert zf.open_group(g.store, mode="r").metadata["consolidated_metadata"] == cm


@pytest.mark.parametrize(
    "field, entry",
    [
        ("data_type", {"name": "int8", "must_understand": False}),
        ("chunk_grid", {"name": "regular", "must_understand": False, "configuration": {"chunk_shape": [2]}}),
        (
            "chunk_key_encoding",
            {"name": "default", "must_understand": False, "configuration": {"separator": "/"}},
        ),
    ],
)
def test_must_understand_false_is_refused_naming_the_extension_and_the_field(field, entry):
    a = zf.create_array(None, shape=(2,), dtype="int8", compressors=None)
    _edit(a.store, "zarr.json", **{field: entry})
    with pytest.raises(MetadataError) as info:
        zf.open_array(a.store)
    message = str(info.value)
    assert info.value.field == f"{field}.must_understand"
    assert f"{field}.must_understand" in message and repr(entry["name"]) in message
    assert "zarr.json" in message


def test_must_understand_false_is_refused_for_a_storage_transformer_naming_it():
    with pytest.raises(MetadataError) as info:
        zf.create_array(
            None,
            shape=(2,),
            dtype="int8",
            storage_transformers=[{"name": "acme.cache", "must_understand": False}],
        )
    assert info.value.field == "storage_transformers[0].must_understand"
    assert "'acme.cache'" in str(info.value)


def test_an_unknown_entry_that_may_not_be_skipped_says_why():
    for extensions in ([{"name": "acme.xr"}], ["acme.xr"]):
        with pytest.raises(
            zf.errors.UnknownExtensionError,
            match='must be understood: the entry does not say "must_understand": false',
        ):
            zf.create_array(None, shape=(4,), dtype="float32", extensions=extensions)
    with pytest.raises(zf.errors.UnknownExtensionError, match="must be understood"):
        zf.create_array(None, shape=(4,), dtype="float32", compressors=[{"name": "acme.squash"}])
