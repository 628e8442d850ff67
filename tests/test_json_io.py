"""Metadata JSON: the layout dump_document writes, that it reads back to the same
value, and the documents it refuses."""

from __future__ import annotations

import json
import math
import random

import pytest

from zarrforge.errors import MetadataError
from zarrforge.metadata import json_io
from zarrforge.metadata.json_io import check_document, dump_document, load_document


def test_layout_objects_one_entry_per_line_plain_lists_on_one() -> None:
    document = {
        "zarr_format": 3,
        "shape": [10, 20],
        "codecs": [{"name": "bytes"}],
        "fill_value": -0.0,
        "empty": {},
        "none": [],
        "nested": [[1, 2], [3]],
        "flags": [True, False, None],
        "text": 'Grüße "☃"\n',
    }
    assert dump_document(document).decode("utf-8") == "\n".join(
        [
            "{",
            '  "zarr_format": 3,',
            '  "shape": [10, 20],',
            '  "codecs": [',
            "    {",
            '      "name": "bytes"',
            "    }",
            "  ],",
            '  "fill_value": -0.0,',
            '  "empty": {},',
            '  "none": [],',
            '  "nested": [',
            "    [1, 2],",
            "    [3]",
            "  ],",
            '  "flags": [true, false, null],',
            '  "text": "Grüße \\"☃\\"\\n"',
            "}",
        ]
    )


def _random_value(rng: random.Random, depth: int = 0):
    leaves = [0, -1, 2**70, 1.5, -0.0, 1e300, 5e-324, True, False, None, "", "é☃", 'q"\\\n\t', "\x00\x1f"]
    roll = rng.random()
    if depth > 4 or roll < 0.4:
        return rng.choice(leaves)
    if roll < 0.7:
        return {
            f"k{i}" if rng.random() < 0.8 else rng.choice(leaves[-4:]): _random_value(rng, depth + 1)
            for i in range(rng.randint(0, 4))
        }
    return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]


def test_documents_read_back_to_the_value_written() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        document = {"value": _random_value(rng)}
        assert load_document(dump_document(document), key="k") == document


def _with_extension_objects(rng: random.Random, depth: int = 0):
    """A random value where extension objects ({"name": ...}, v2's {"id": ...}, lists of
    them) recur, from a small pool, so that the writer's memory of them is used."""
    pool = [
        {"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "zstd", "configuration": {"level": 1, "checksum": False}},
        {"id": "blosc", "cname": "lz4", "shuffle": 1},
        {"name": "regular", "configuration": {"chunk_shape": (10, 10)}},
        {"name": "regular", "configuration": {"chunk_shape": [10, 10]}},  # the same text
    ]
    roll = rng.random()
    if depth > 3 or roll < 0.3:
        return (
            rng.choice(pool) if rng.random() < 0.5 else [rng.choice(pool) for _ in range(rng.randint(1, 3))]
        )
    if roll < 0.6:
        return {f"k{i}": _with_extension_objects(rng, depth + 1) for i in range(rng.randint(1, 3))}
    return _random_value(rng, depth)


def test_extension_objects_written_from_memory_are_written_as_written_fresh(monkeypatch) -> None:
    rng = random.Random(11)
    documents = [
        {"value": _with_extension_objects(rng), "attributes": _with_extension_objects(rng)}
        for _ in range(500)
    ]
    remembered = [dump_document(document) for document in documents for _ in range(2)]
    monkeypatch.setattr(json_io, "_REMEMBERED_CHARS", -1)  # nothing is short enough: no memory
    fresh = [dump_document(document) for document in documents for _ in range(2)]
    assert remembered == fresh
    assert [load_document(data, key="k") for data in remembered[::2]] == json.loads(json.dumps(documents))


def test_documents_written_around_a_remembered_frame_are_written_as_written_fresh(monkeypatch) -> None:
    # documents that differ only in their attributes (wherever these stand among the
    # members) are written from one frame around them; byte for byte what the member
    # by member writing gives
    rng = random.Random(13)
    shared = [{f"m{i}": _with_extension_objects(rng) for i in range(rng.randint(0, 5))} for _ in range(20)]
    documents = []
    for _ in range(600):
        members = list(rng.choice(shared).items())
        members.insert(rng.randint(0, len(members)), ("attributes", _random_value(rng)))
        documents.append(dict(members))
    framed = [dump_document(document) for document in documents]
    monkeypatch.setattr(json_io, "_FRAMED_CHARS", -1)  # nothing is short enough: no frames
    assert [dump_document(document) for document in documents] == framed
    assert [load_document(data, key="k") for data in framed] == json.loads(json.dumps(documents))


def test_extension_objects_with_the_same_text_as_another_kind_of_value_are_written_by_their_text() -> None:
    as_tuple = dump_document({"codecs": [{"name": "x", "configuration": {"shape": (1, 2), "n": 1}}]})
    as_list = dump_document({"codecs": [{"name": "x", "configuration": {"shape": [1, 2], "n": 1}}]})
    as_bool = dump_document({"codecs": [{"name": "x", "configuration": {"shape": [1, 2], "n": True}}]})
    assert as_tuple == as_list
    assert json.loads(as_bool)["codecs"][0]["configuration"]["n"] is True


def test_non_string_keys_follow_json_rules() -> None:
    # keys that are not strings, on purpose: the document type says str keys
    assert json.loads(dump_document({1: "a", 2.5: "b", None: "d"})) == {  # type: ignore[dict-item]
        "1": "a",
        "2.5": "b",
        "null": "d",
    }
    assert json.loads(dump_document({True: "c"})) == {"true": "c"}  # type: ignore[dict-item]


def test_int_and_str_subclasses_are_written_as_json_writes_them() -> None:
    class Count(int):
        pass

    class Name(str):
        pass

    assert json.loads(dump_document({"n": Count(3), "s": Name("x"), "l": [Count(4)]})) == {
        "n": 3,
        "s": "x",
        "l": [4],
    }


def test_a_lone_surrogate_is_written_ascii_escaped() -> None:
    data = dump_document({"attr": "a\ud800b", "other": "é"})
    assert data.isascii()
    assert json.loads(data) == {"attr": "a\ud800b", "other": "é"}


@pytest.mark.parametrize("bad", [b"bytes", object(), {"k": {1, 2}}, {(1, 2): "tuple key"}])
def test_values_json_cannot_hold_are_refused_naming_the_key(bad) -> None:
    with pytest.raises(MetadataError, match="'a/zarr.json'.*cannot be written as JSON"):
        dump_document({"attributes": {"x": bad}}, key="a/zarr.json")
    with pytest.raises(MetadataError, match="cannot be written as JSON"):
        check_document({"attributes": {"x": bad}})


@pytest.mark.parametrize(
    "bad, field",
    [
        (math.nan, "fill_value"),
        (math.inf, "fill_value"),
        (-math.inf, "fill_value"),
        ([1, math.nan], "fill_value[1]"),
        ({"deep": [{"y": math.inf}]}, "fill_value.deep[0].y"),
    ],
)
def test_non_finite_floats_outside_attributes_are_refused_naming_the_field(bad, field) -> None:
    for call in (
        lambda: dump_document({"fill_value": bad, "attributes": {}}, key="a/zarr.json"),
        lambda: check_document({"fill_value": bad}),
    ):
        with pytest.raises(MetadataError, match="JSON, which has no NaN or infinity") as info:
            call()
        assert info.value.field == field


@pytest.mark.parametrize(
    "value, text",
    [
        (math.nan, "NaN"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
        ([1, math.nan], "[1, NaN]"),
        ({"deep": [{"y": math.inf}]}, '"y": Infinity'),
    ],
)
def test_non_finite_floats_in_attributes_are_written_as_zarr_python_writes_them(value, text):
    """Bare tokens, in a node's attributes and in those of a consolidated view's members;
    they read back (load_document(allow_nan=True)) to the same floats."""
    document = {
        "attributes": {"x": value},
        "consolidated_metadata": {"metadata": {"a": {"attributes": {"x": value}}}},
    }
    data = dump_document(document, key="a/zarr.json")
    assert data.decode().count(text) == 2
    check_document(document)
    back = load_document(data, key="a/zarr.json", allow_nan=True)
    assert json.dumps(back, allow_nan=True) == json.dumps(document, allow_nan=True)


def test_new_non_finite_attribute_values_are_refused_only_when_configured():
    import zarrforge
    from zarrforge.metadata.json_io import check_new_attributes

    check_new_attributes({"x": math.nan})  # the default writes them as tokens
    with zarrforge.config.set(non_finite_attributes="refuse"):
        with pytest.raises(MetadataError, match="'refuse'") as info:
            check_new_attributes({"x": [1, {"y": -math.inf}]})
        assert info.value.field == "attributes.x[1].y"
        check_new_attributes({"x": "NaN"})
    with pytest.raises(ValueError, match="'tokens'.*'refuse'"):
        zarrforge.config.update(non_finite_attributes="strict")


def test_an_object_of_many_members_is_written_one_member_a_line_and_reads_back():
    from zarrforge.metadata.json_io import dump_document, load_document

    members = {
        f"a{i}": {"node_type": "array", "shape": [i], "attributes": {"x": [1, {"y": 2}]}} for i in range(1500)
    }
    document = {"zarr_format": 3, "consolidated_metadata": {"metadata": members}}
    text = dump_document(document).decode()
    assert load_document(text.encode(), key="k") == document
    lines = text.splitlines()
    assert '      "a7": {"node_type": "array", "shape": [7], "attributes": {"x": [1, {"y": 2}]}},' in lines
    assert len(lines) < 1510  # one line a member, not one per nested value


def test_the_draft_does_not_parse_a_root_document_without_its_marker(monkeypatch):
    from zarrforge_draft2022 import entry_point

    def refuse(*args, **kwargs):
        raise AssertionError("parsed a document that names no draft URI")

    monkeypatch.setattr(entry_point, "load_document", refuse)
    assert entry_point.parse_entry_point(b'{"zarr_format": 3, "node_type": "group"}') is None
