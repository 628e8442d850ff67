"""The models on their own: JSON, the ZEP's schema and examples, renaming, diff, flattening."""

from __future__ import annotations

import json
import pathlib

import pytest

import zarrforge_zom as zom
from zarrforge_zom import (
    ArraySpecV2,
    ArraySpecV3,
    Difference,
    GroupSpec,
    GroupSpecV2,
    GroupSpecV3,
    SchemaValidationError,
    SpecError,
)

HERE = pathlib.Path(__file__).parent
EXAMPLE_V3 = json.loads((HERE / "zep6_example_v3.json").read_text())
EXAMPLE_V2 = json.loads((HERE / "zep6_example_v2.json").read_text())


def array_v3(**changes):
    fields = {
        "shape": (4, 4),
        "data_type": "int32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 2]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 0,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
    }
    fields.update(changes)
    return ArraySpecV3(**fields)


def test_the_zeps_v3_example_follows_both_schemas_and_round_trips():
    assert zom.schema_issues(EXAMPLE_V3, verbatim=True) == []
    assert zom.schema_issues(EXAMPLE_V3) == []
    spec = zom.from_json(EXAMPLE_V3)
    assert isinstance(spec, GroupSpecV3)
    array = spec.members["array"]
    assert array.shape == (1000, 1000) and array.data_type == "|u1"
    assert array.dimension_names == ("rows", "columns")
    assert spec.to_json() == EXAMPLE_V3


def test_the_zeps_v2_example_and_the_errata():
    verbatim = {(i.node, i.location, i.message) for i in zom.schema_issues(EXAMPLE_V2, verbatim=True)}
    # The ZEP's own v2 schema rejects its own v2 example: the 'attributess' typo, the
    # zarr_format property, a null compressor and '{}' filters.
    messages = " ".join(m for _, _, m in verbatim)
    assert "'attributess' is a required property" in messages
    assert "'zarr_format' was unexpected" in messages
    assert any(loc == "compressor" for _, loc, _ in verbatim)
    corrected = zom.schema_issues(EXAMPLE_V2)
    # The corrected schema only rejects "filters": {}, which the v2 spec does not allow either.
    assert [(i.node, i.location) for i in corrected] == [("/foo", "filters")]
    fixed = json.loads(json.dumps(EXAMPLE_V2))
    fixed["members"]["foo"]["filters"] = None
    spec = zom.from_json(fixed)
    assert isinstance(spec, GroupSpecV2)
    assert spec.members["foo"] == ArraySpecV2(
        shape=(1000, 1000),
        chunks=(100, 100),
        dtype="|u1",
        compressor=None,
        fill_value=0,
        dimension_separator="/",
        attributes={"baz": True},
    )
    assert zom.from_json(spec.to_json()) == spec


def test_corrected_schemas_accept_what_the_verbatim_ones_accept():
    for fmt in (2, 3):
        verbatim, fixed = zom.json_schema(fmt, verbatim=True), zom.json_schema(fmt)
        assert verbatim != fixed and len(zom.ERRATA[fmt]) >= 4
        assert "$schema" not in verbatim
    spec = GroupSpecV3(
        members={"a": array_v3(codecs=[{"name": "bytes"}, {"name": "crc32c"}], dimension_names=["x", None])}
    )
    assert zom.schema_issues(spec.to_json()) == []
    verbatim = zom.schema_issues(spec.to_json(), verbatim=True)
    assert {i.location for i in verbatim} == {"codecs[0]", "codecs[1]", "dimension_names"}


def test_schema_issues_name_the_node_and_the_field():
    document = GroupSpecV3(members={"g": GroupSpecV3(members={"a": array_v3()})}).to_json()
    document["members"]["g"]["members"]["a"]["shape"] = [4, "four"]
    document["members"]["g"]["attributes"] = []
    del document["members"]["g"]["members"]["a"]["codecs"]
    issues = zom.schema_issues(document)
    assert {(i.node, i.location) for i in issues} == {
        ("/g", "attributes"),
        ("/g/a", "shape[1]"),
        ("/g/a", ""),
    }
    assert any("'codecs' is a required property" in i.message for i in issues)
    with pytest.raises(SchemaValidationError) as info:
        zom.from_json(document)
    assert len(info.value.issues) == 3 and "/g/a shape[1]" in str(info.value)


def test_unknown_fields_need_must_understand_false():
    document = array_v3().to_json()
    document["future"] = {"must_understand": False, "x": 1}
    assert zom.schema_issues(document) == []
    assert zom.from_json(document).extra == {"future": {"must_understand": False, "x": 1}}
    document["future"] = 3
    assert [i.location for i in zom.schema_issues(document)] == ["future"]


def test_models_normalise_to_json_and_compare_as_json():
    a = array_v3(shape=[4, 4], attributes={"t": (1, 2)}, fill_value=0)
    assert a.shape == (4, 4) and a.attributes == {"t": [1, 2]}
    assert a == array_v3(attributes={"t": [1, 2]})
    assert a != array_v3(attributes={"t": [1, 2]}, fill_value=0.0)
    assert array_v3(attributes={"x": float("nan")}) == array_v3(attributes={"x": float("nan")})
    assert array_v3(attributes={"b": True}) != array_v3(attributes={"b": 1})
    with pytest.raises(SpecError, match="shape"):
        array_v3(shape=(4, -1))
    with pytest.raises(SpecError, match="not a JSON value"):
        array_v3(attributes={"x": object()})
    with pytest.raises(SpecError, match="'shape' is a field"):
        array_v3(extra={"shape": 1})
    with pytest.raises(SpecError, match="reserved for Zarr's own data"):
        GroupSpecV3(members={"__zarr_bad": array_v3()})
    # the spec's other reserved names model what other tools wrote (xarray's "__values__");
    # creating them is refused when the model is written (test_zom_hierarchy.py)
    assert list(GroupSpecV3(members={"__values__": array_v3()}).members) == ["__values__"]
    with pytest.raises(SpecError, match="cannot hold a Zarr v2"):
        GroupSpecV3(members={"x": GroupSpecV2()})
    with pytest.raises(TypeError):
        {array_v3()}  # models are mutable, hence unhashable


def test_the_members_renaming_rule():
    assert zom.to_zom_properties({"a": 1}) == {"a": 1}
    assert zom.to_zom_properties({"members": 1}) == {"_members": 1}
    assert zom.to_zom_properties({"members": 1, "_members": 2}) == {"_members": 2, "__members": 1}
    assert zom.to_zom_properties({"members": 1, "_members": 2, "__members": 3}) == {
        "_members": 2,
        "__members": 3,
        "___members": 1,
    }
    for zarr in (
        {},
        {"members": 1},
        {"members": 1, "_members": 2},
        {"members": 1, "_members": 2, "__members": 3, "x": 4},
    ):
        assert zom.from_zom_properties(zom.to_zom_properties(zarr)) == zarr
    spec = GroupSpecV3(
        extra={"members": {"must_understand": False}, "_members": {"must_understand": False, "v": 2}}
    )
    document = spec.to_json()
    assert document["__members"] == {"must_understand": False}
    assert document["_members"] == {"must_understand": False, "v": 2}
    assert document["members"] == {}
    assert zom.from_json(document) == spec


def test_diff_of_two_models():
    expected = GroupSpecV3(
        attributes={"a": 1, "b": {"c": 2}},
        members={
            "x": array_v3(
                codecs=[
                    {"name": "bytes", "configuration": {"endian": "little"}},
                    {"name": "gzip", "configuration": {"level": 1}},
                ]
            ),
            "y": GroupSpecV3(),
            "z": array_v3(),
        },
    )
    found = GroupSpecV3(
        attributes={"b": {"c": 3}, "d": 4},
        members={
            "x": array_v3(
                codecs=[
                    {"name": "bytes", "configuration": {"endian": "little"}},
                    {"name": "gzip", "configuration": {"level": 5}},
                ]
            ),
            "y": array_v3(),
            "w": GroupSpecV3(),
        },
    )
    assert zom.diff(expected, found) == [
        Difference("/", "missing", "attributes.a", 1, None),
        Difference("/", "changed", "attributes.b.c", 2, 3),
        Difference("/", "extra", "attributes.d", None, 4),
        Difference("/x", "changed", "codecs[1].configuration.level", 1, 5),
        Difference("/y", "changed", "node_type", "group", "array"),
        Difference("/z", "missing", None, array_v3(), None),
        Difference("/w", "extra", None, None, GroupSpecV3()),
    ]
    assert expected.diff(expected) == []
    assert zom.diff(GroupSpecV3(), GroupSpecV2()) == [Difference("/", "changed", "zarr_format", 3, 2)]
    odd = zom.diff(GroupSpecV3(attributes={"a.b": 1}), GroupSpecV3(attributes={"a.b": 2}))
    assert odd[0].field == "attributes['a.b']"


def test_flatten_and_rebuild():
    spec = GroupSpecV3(
        attributes={"r": 1},
        members={"g": GroupSpecV3(members={"a": array_v3(), "h": GroupSpecV3()}), "b": array_v3()},
    )
    flat = spec.flatten()
    assert list(flat) == ["/", "/g", "/g/a", "/g/h", "/b"]
    assert flat["/g"] == GroupSpecV3()
    assert GroupSpec.from_flat(flat) == spec
    with pytest.raises(SpecError, match="parent"):
        GroupSpec.from_flat({"/": GroupSpecV3(), "/x/y": array_v3()})


def test_formats_zep6_does_not_model_are_refused():
    with pytest.raises(SchemaValidationError, match="versions 2 and 3"):
        zom.from_json({"zarr_format": 4, "node_type": "group", "attributes": {}, "members": {}})
    with pytest.raises(ValueError):
        zom.json_schema(4)
