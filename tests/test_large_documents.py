"""Large documents: a consolidated view of thousands of entries is read with its
entries kept as text, written back from that text, and parsed once per operation;
large attributes are kept as text until they are first used.

Creating one node under a root whose view holds 50,000 members used to parse the root
twice into a tree of dicts and write it back from that tree (5-7 s, 20x the document
in memory). The thresholds are lowered here so that small hierarchies take the same
path; tests/test_json_io.py holds the reader's own cases.
"""

from __future__ import annotations

import json

import pytest

import zarrforge as zf
import zarrforge_std.format_v3 as format_v3
from zarrforge.errors import MetadataError
from zarrforge.metadata import document as document_module
from zarrforge.metadata import json_io, raw_reading
from zarrforge.metadata.json_io import load_document
from zarrforge.metadata.raw_json import ABSENT_MEMBER, RawJSON
from zarrforge.metadata.raw_reading import load_document_keeping_raw

VIEW = ("consolidated_metadata", "metadata")


@pytest.fixture
def small_thresholds(monkeypatch):
    monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", 0)
    monkeypatch.setattr(format_v3._LARGE_DOCUMENTS, "min_bytes", 0)


def _consolidated_root(tmp_path, members: int) -> str:
    root = str(tmp_path / "root.zarr")
    g = zf.create_group(root)
    for i in range(members):
        g.create_array(f"a{i}", shape=(4,), chunks=(2,), dtype="i4", attributes={"i": i})
    g.create_group("sub", attributes={"nan": float("nan")})
    zf.consolidate_metadata(root)
    return root


@pytest.fixture
def entry_parses(monkeypatch):
    """How many times a consolidated entry kept as text is parsed."""
    count = {"n": 0}
    parse_all = document_module.ListedContent._all

    def counting(self):
        if self.raw is not None and self._parsed is None:
            count["n"] += 1
        return parse_all(self)

    monkeypatch.setattr(document_module.ListedContent, "_all", counting)
    return count


@pytest.fixture
def root_parses(monkeypatch):
    count = {"n": 0}
    parse = format_v3.V3Format._document_from

    def counting(self, data, key):
        if key == "zarr.json":
            count["n"] += 1
        return parse(self, data, key)

    monkeypatch.setattr(format_v3.V3Format, "_document_from", counting)
    return count


def test_creating_a_node_under_a_large_view_parses_the_root_once_and_no_entry(
    tmp_path, small_thresholds, entry_parses, root_parses
):
    root = _consolidated_root(tmp_path, 40)
    root_parses["n"] = entry_parses["n"] = 0
    zf.create_array(root, "new", shape=(3,), chunks=(3,), dtype="u1")
    assert root_parses["n"] == 1
    assert entry_parses["n"] == 0
    stored = json.loads((tmp_path / "root.zarr" / "zarr.json").read_text())
    entries = stored["consolidated_metadata"]["metadata"]
    assert sorted(entries) == sorted([f"a{i}" for i in range(40)] + ["sub", "new"])
    assert entries["a7"]["attributes"] == {"i": 7}
    assert entries["new"]["shape"] == [3]


def test_a_view_written_back_from_text_equals_one_written_from_parsed_entries(tmp_path, monkeypatch):
    root = _consolidated_root(tmp_path, 30)
    (tmp_path / "copy.zarr").mkdir()
    before = (tmp_path / "root.zarr" / "zarr.json").read_bytes()

    def rewritten(threshold: int) -> dict:
        (tmp_path / "root.zarr" / "zarr.json").write_bytes(before)
        monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", threshold)
        zf.open_group(root).attrs["touched"] = threshold
        text = (tmp_path / "root.zarr" / "zarr.json").read_text()
        return json.loads(text.replace("NaN", '"nan"'))

    as_text, as_parsed = rewritten(0), rewritten(1 << 30)
    as_text["attributes"]["touched"] = as_parsed["attributes"]["touched"]
    assert as_text == as_parsed


def test_members_of_a_large_view_open_with_their_metadata(tmp_path, small_thresholds, entry_parses):
    root = _consolidated_root(tmp_path, 20)
    entry_parses["n"] = 0
    g = zf.open_group(root, mode="r")
    assert entry_parses["n"] == 0
    assert g["a3"].attrs["i"] == 3 and g["a3"].chunks == (2,)
    assert entry_parses["n"] == 1
    assert sorted(g.group_keys()) == ["sub"]
    assert g.metadata["consolidated_metadata"]["metadata"]["a5"]["attributes"] == {"i": 5}


def test_a_broken_entry_of_a_large_view_is_a_named_error_when_its_member_opens(tmp_path, small_thresholds):
    root = _consolidated_root(tmp_path, 3)
    path = tmp_path / "root.zarr" / "zarr.json"
    document = json.loads(path.read_text().replace("NaN", '"nan"'))
    # a duplicate key inside one entry: kept as text, found when that entry is parsed
    entry = json.dumps(document["consolidated_metadata"]["metadata"]["a1"])
    broken = entry[:-1] + ', "node_type": "array"}'
    document["consolidated_metadata"]["metadata"]["a1"] = "PLACEHOLDER"
    path.write_text(json.dumps(document).replace('"PLACEHOLDER"', broken))
    g = zf.open_group(root, mode="r")
    assert g["a0"].attrs["i"] == 0
    with pytest.raises(MetadataError, match="duplicate key 'node_type'") as caught:
        g["a1"]
    assert "a1" in str(caught.value)


@pytest.mark.parametrize(
    "text",
    [
        '{"consolidated_metadata": {"metadata": {"a": {"x": 1}, "a": {"x": 2}}}}',
        '{"a": 1, "a": 2}',
        '{"consolidated_metadata": {"metadata": {"a": NaN}}}',
        '{"consolidated_metadata": {"metadata": {"a": [1, 2}}}',
        '{"consolidated_metadata": {"metadata": {"a": 1}}} trailing',
        "[1, 2]",
        '{"consolidated_metadata": {"metadata": {"a": 1,}}}',
    ],
)
def test_the_text_keeping_reader_refuses_what_the_strict_reader_refuses(text, monkeypatch):
    monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", 0)
    with pytest.raises(MetadataError) as strict:
        load_document(text.encode(), key="k")
    with pytest.raises(MetadataError) as keeping:
        load_document_keeping_raw(text.encode(), key="k", at=VIEW, kept=())
    assert str(keeping.value) == str(strict.value)


def test_the_text_keeping_reader_keeps_entries_and_their_named_members(monkeypatch):
    monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", 0)
    text = (
        '{ "zarr_format": 3, "consolidated_metadata": {"kind": "inline", "metadata":'
        ' {"x": {"node_type": "array", "attributes": {"v": NaN}},\n "y": [1, 2], "z": {}}},'
        ' "attributes": {"k": [1, {"n": null}]}}'
    )
    document = load_document_keeping_raw(
        text.encode(), key="k", at=VIEW, kept=("node_type", "missing"), allow_nan=True
    )
    entries = document["consolidated_metadata"]["metadata"]
    assert all(type(entry) is RawJSON for entry in entries.values())
    assert entries["x"].text == '{"node_type": "array", "attributes": {"v": NaN}}'
    assert entries["x"].kept["node_type"] == "array"
    assert entries["x"].kept["missing"] is ABSENT_MEMBER
    assert entries["y"].kept is None and entries["y"].text == "[1, 2]"
    assert document["attributes"] == {"k": [1, {"n": None}]}
    assert document["consolidated_metadata"]["kind"] == "inline"
    written = json_io.dump_document(document).decode()
    assert '"x": {"node_type": "array", "attributes": {"v": NaN}}' in written
    reread = load_document(written.encode(), key="k", allow_nan=True)
    original = load_document(text.encode(), key="k", allow_nan=True)
    assert json.dumps(reread, sort_keys=True) == json.dumps(original, sort_keys=True)


def test_a_document_under_the_threshold_is_parsed_whole(monkeypatch):
    monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", 1000)
    text = b'{"consolidated_metadata": {"metadata": {"x": {"node_type": "group"}}}}'
    document = load_document_keeping_raw(text, key="k", at=VIEW, kept=("node_type",))
    assert document["consolidated_metadata"]["metadata"]["x"] == {"node_type": "group"}


# --- large attributes ----------------------------------------------------------------


@pytest.fixture
def large_attributes(tmp_path, monkeypatch):
    """An array whose attributes (about 30 kB) are over a lowered threshold."""
    monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", 4096)
    root = str(tmp_path / "a.zarr")
    values = {f"key{i}": [i, i / 2, "v"] for i in range(1000)}
    zf.create_array(root, shape=(4,), chunks=(2,), dtype="i4", attributes=values)
    return root, values


def test_large_attributes_are_parsed_at_their_first_use_only(large_attributes, entry_parses):
    root, values = large_attributes
    array = zf.open_array(root, mode="r")
    assert entry_parses["n"] == 0
    assert array.shape == (4,)
    assert array.attrs["key7"] == [7, 3.5, "v"]
    assert entry_parses["n"] == 1
    assert array.attrs.asdict() == values and len(array.attrs) == 1000
    assert entry_parses["n"] == 1


def test_large_attributes_are_written_back_as_read_when_something_else_changes(
    large_attributes, entry_parses, tmp_path
):
    root, values = large_attributes
    path = tmp_path / "a.zarr" / "zarr.json"
    text = json.loads(path.read_text())["attributes"]
    zf.open_array(root, mode="r+").resize((8,))
    assert entry_parses["n"] == 0
    stored = json.loads(path.read_text())
    assert stored["shape"] == [8] and stored["attributes"] == text == values
    array = zf.open_array(root, mode="r+")
    array.attrs["added"] = 1  # a change of the attributes parses them, once
    assert entry_parses["n"] == 1
    assert zf.open_array(root).attrs.asdict() == {**values, "added": 1}


def test_broken_large_attributes_are_a_named_error_at_their_first_use(large_attributes, tmp_path):
    root, _ = large_attributes
    path = tmp_path / "a.zarr" / "zarr.json"
    path.write_text(path.read_text().replace('"key5": [', '"key5": [tru, '))
    array = zf.open_array(root, mode="r")  # opens: the attributes were not parsed
    with pytest.raises(MetadataError, match="not valid JSON") as caught:
        array.attrs["key1"]
    assert "zarr.json" in str(caught.value) and "attributes" in str(caught.value)


def test_large_attributes_that_are_not_an_object_are_refused_at_open(large_attributes, tmp_path):
    root, _ = large_attributes
    path = tmp_path / "a.zarr" / "zarr.json"
    document = json.loads(path.read_text())
    document["attributes"] = list(range(3000))
    path.write_text(json.dumps(document))
    with pytest.raises(MetadataError, match="must be an object") as caught:
        zf.open_array(root)
    assert caught.value.key == "zarr.json"
