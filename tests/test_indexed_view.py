"""A large consolidated view read as an index of its members, and written back as spans.

Issue #32's scale case: creating one array under a root whose view holds 50,000 members
took 7.7 s and 20x the root document in memory, then 6.4x once entries were kept as
text. The view is now indexed where it lies in the document's bytes
(:mod:`zarrforge.metadata.raw_members`), served lazily
(:mod:`zarrforge.metadata.indexed_view`) and written back as spans of the bytes read
(``Store.set_parts_if``), and the read-modify-write commits against the version the
operation first read instead of reading the document again (:mod:`zarrforge.storing.read_memo`).
The thresholds are lowered so that small hierarchies take the same path.
"""

from __future__ import annotations

import gc
import json
import shutil
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

import zarrforge as zf
import zarrforge_std.format_v3 as format_v3
from zarrforge.errors import MetadataError
from zarrforge.metadata import raw_reading
from zarrforge.metadata.indexed_view import IndexedEntries
from zarrforge.metadata.json_io import dump_document, dump_document_parts, load_document
from zarrforge.metadata.raw_json import ABSENT_MEMBER
from zarrforge.metadata.raw_members import REMOVED, RawMembers, Unusual, read_members
from zarrforge.metadata.raw_reading import load_document_keeping_raw
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore

VIEW = ("consolidated_metadata", "metadata")


class _Decoder(json.JSONDecoder):
    """json's decoder, with the attribute its __init__ sets and typeshed leaves out."""

    scan_once: Callable[[str, int], tuple[Any, int]]


SCAN = _Decoder().scan_once


@pytest.fixture
def small_thresholds(monkeypatch):
    monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", 0)
    monkeypatch.setattr(format_v3._LARGE_DOCUMENTS, "min_bytes", 0)


def _members(text: str, kept: tuple[str, ...] = ("node_type",)) -> RawMembers:
    data = text.encode("utf-8")
    members, end = read_members(data, data.index(b"{"), kept=kept, scan=SCAN)
    assert end == len(data.rstrip())
    return members


# --- the index --------------------------------------------------------------------------


def test_members_are_indexed_by_name_with_their_text_and_kept_values():
    members = _members('{"a": {"node_type": "array", "s": "}{\\"["},\n  "b/c": {"x": [1, {}]}}')
    assert members.names == ["a", "b/c"]
    assert members.value(0).text == '{"node_type": "array", "s": "}{\\"["}'
    assert members.value(1).text == '{"x": [1, {}]}'
    assert members.value(0).kept == {"node_type": "array"}
    assert members.value(1).kept == {"node_type": ABSENT_MEMBER}
    assert members.index("b/c") == 1 and members.index("b") is None
    assert bytes(members.run(0, 2)) == (
        b'"a": {"node_type": "array", "s": "}{\\"["},\n  "b/c": {"x": [1, {}]}'
    )


def test_names_with_escapes_and_non_ascii_text_are_indexed_in_bytes():
    text = '{"z": {}, "ß\\"q": {"v": "\\ud83d\\ude00 ok"}, "\\u00e9t\\u00e9": {"v": "☃"}}'
    members = _members(text)
    assert members.names == ["z", 'ß"q', "été"]
    assert json.loads(members.value(1).text) == {"v": "\U0001f600 ok"}
    assert json.loads(members.value(2).text) == {"v": "☃"}
    assert members.in_order  # by code point, as Python orders names
    assert members.index("été") == 2


def test_members_out_of_order_are_found_and_new_ones_go_last():
    members = _members('{"m": {}, "b": {}, "x": {}}')
    assert not members.in_order
    assert [members.index(n) for n in ("b", "m", "x", "a")] == [1, 0, 2, None]
    assert members.insertion_point("c") == 3
    assert _members('{"b": {}, "m": {}}').insertion_point("c") == 1


@pytest.mark.parametrize(
    "text",
    [
        '{"a": {}, "a": {}}',  # a duplicate name
        '{"b": {}, "a": {}, "b": {}}',  # out of order too
        '{"a": [1]}',  # an entry that is not an object
        '{"a": 1}',
        '{"a": {}, }',
        '{"a": {"x": 1,}}',  # not JSON inside an entry
        '{"a": {"x": 01}}',
        '{"a" {}}',
    ],
)
def test_anything_but_an_object_of_objects_is_left_to_the_whole_parse(text):
    with pytest.raises(Unusual):
        _members(text)


@pytest.mark.parametrize(
    "view",
    [
        b'{"a": {}, "a": {}}',
        b'{"a": {"x": 1,}}',
        b'{"a": {"v": NaN}}',
        b'{"a": {"v": "\\ud800"}, "b": {"x": tru}}',
        b'{"a": {"v": "\xff"}}',  # not UTF-8
    ],
)
def test_the_indexing_reader_refuses_what_the_strict_reader_refuses(view, monkeypatch):
    monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", 0)
    data = b'{"zarr_format": 3, "consolidated_metadata": {"kind": "inline", "metadata": ' + view + b"}}"
    with pytest.raises(MetadataError) as strict:
        load_document(data, key="k")
    with pytest.raises(MetadataError) as indexing:
        load_document_keeping_raw(data, key="k", at=VIEW, kept=())
    assert str(indexing.value) == str(strict.value)


def test_a_document_read_with_an_index_is_the_document_read_whole(monkeypatch):
    monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", 0)
    data = json.dumps(
        {
            "attributes": {"a": [1, {"b": "}"}]},
            "zarr_format": 3,
            "consolidated_metadata": {
                "kind": "inline",
                "must_understand": False,
                "metadata": {f"n{i}": {"i": i, "t": "é"} for i in range(30)},
            },
            "node_type": "group",
        },
        indent=2,
        ensure_ascii=False,
    ).encode()
    document = load_document_keeping_raw(data, key="k", at=VIEW, kept=("i",))
    members = document["consolidated_metadata"]["metadata"]
    assert type(members) is RawMembers and len(members) == 30
    whole = load_document(data, key="k")
    assert {n: json.loads(members.value(i).text) for i, n in enumerate(members.names)} == whole[
        "consolidated_metadata"
    ]["metadata"]
    del whole["consolidated_metadata"]["metadata"], document["consolidated_metadata"]["metadata"]
    assert document == whole


# --- writing back -----------------------------------------------------------------------


def _view_start(data: bytes) -> int:
    return data.index(b'"metadata": ') + len(b'"metadata": ')


def _document(view: str) -> dict:
    data = ('{"zarr_format": 3, "consolidated_metadata": {"metadata": ' + view + "}}").encode()
    members, _ = read_members(data, _view_start(data), kept=(), scan=SCAN)
    return {"zarr_format": 3, "consolidated_metadata": {"metadata": members}}


def test_unchanged_members_are_written_as_the_bytes_they_were_read_in():
    document = _document('{"a": {"x":1},\n      "b": {"y" : [ 2 ]}}')
    parts = dump_document_parts(document)
    assert any(
        type(part) is memoryview and bytes(part) == b'"a": {"x":1},\n      "b": {"y" : [ 2 ]}'
        for part in parts
    )
    assert json.loads(b"".join(parts)) == {
        "zarr_format": 3,
        "consolidated_metadata": {"metadata": {"a": {"x": 1}, "b": {"y": [2]}}},
    }


def test_changes_are_written_in_place_and_new_members_in_name_order():
    document = _document('{"a": {"x": 1}, "c": {"x": 3}, "e": {"x": 5}, "g": {"x": 7}}')
    members = document["consolidated_metadata"]["metadata"]
    document["consolidated_metadata"]["metadata"] = members.edited(
        {"c": {"x": "new"}, "e": REMOVED, "b": {"x": 2}, "h": {"x": 8}, "z": REMOVED}
    )
    written = dump_document(document)
    view = json.loads(written)["consolidated_metadata"]["metadata"]
    assert list(view.items()) == [
        ("a", {"x": 1}),
        ("b", {"x": 2}),
        ("c", {"x": "new"}),
        ("g", {"x": 7}),
        ("h", {"x": 8}),
    ]
    everything_removed = members.edited(dict.fromkeys("aceg", REMOVED))
    document["consolidated_metadata"]["metadata"] = everything_removed
    assert json.loads(dump_document(document))["consolidated_metadata"]["metadata"] == {}


def test_non_finite_numbers_are_refused_in_what_changed_and_kept_in_what_did_not():
    data = b'{"consolidated_metadata": {"metadata": {"a": {"attributes": {"v": NaN}}}}}'
    members, _ = read_members(data, _view_start(data), kept=(), scan=SCAN)
    document = {"consolidated_metadata": {"metadata": members}}
    assert b'"v": NaN' in dump_document(document)
    document["consolidated_metadata"]["metadata"] = members.edited({"b": {"fill": float("inf")}})
    with pytest.raises(MetadataError) as caught:
        dump_document(document)
    assert caught.value.field == "consolidated_metadata.metadata.b.fill"


def test_the_view_over_an_index_behaves_as_a_dict():
    members = _members('{"a": {"node_type": "array"}, "b": {"node_type": "group"}}')
    entries = IndexedEntries(members, lambda name, raws: (name, raws[name].text))
    assert entries["a"] == ("a", '{"node_type": "array"}') and entries["a"] is entries["a"]
    assert len(entries) == 2 and list(entries) == ["a", "b"] and "b" in entries
    copy = entries.copy()
    copy["c"] = "model"
    del copy["a"]
    with pytest.raises(KeyError):
        del copy["a"]
    assert list(copy) == ["b", "c"] and len(copy) == 2 and "a" not in copy
    assert list(entries) == ["a", "b"], "a copy's changes are its own"
    assert copy != entries and copy == {"b": entries["b"], "c": "model"}
    edited = copy.edited(lambda entry: {"written": entry})
    assert edited.changes == {"c": {"written": "model"}, "a": REMOVED}


# --- through the format -----------------------------------------------------------------


def _root_with_view(tmp_path, members: int, *, real: int = 1, attributes_bytes: int = 0) -> str:
    """A root whose consolidated view lists ``members`` arrays (the first ``real`` of
    them stored too), written as zarrforge writes one (the document is built directly:
    consolidating thousands of nodes would take minutes)."""
    root = str(tmp_path / "root.zarr")
    group = zf.create_group(root)
    for i in range(real):
        group.create_array(
            f"a{i}", shape=(4,), chunks=(2,), dtype="i4", attributes={"i": i, "pad": "x" * attributes_bytes}
        )
    zf.consolidate_metadata(root)
    path = tmp_path / "root.zarr" / "zarr.json"
    document = json.loads(path.read_text())
    template = document["consolidated_metadata"]["metadata"]["a0"]
    document["consolidated_metadata"]["metadata"] = dict(
        sorted(
            (f"a{i}", dict(template, attributes={"i": i, "pad": "x" * attributes_bytes}))
            for i in range(members)
        )
    )
    path.write_bytes(dump_document(document))
    return root


def test_creating_under_an_indexed_view_keeps_every_other_entry_byte_for_byte(tmp_path, small_thresholds):
    root = _root_with_view(tmp_path, 200, real=10)
    path = tmp_path / "root.zarr" / "zarr.json"
    before = path.read_bytes()
    zf.create_array(root, "a100x", shape=(3,), chunks=(3,), dtype="u1")
    after = path.read_bytes()
    view = json.loads(after)["consolidated_metadata"]["metadata"]
    assert list(view) == sorted(view) and len(view) == 201
    assert view["a100x"]["shape"] == [3]
    start = after.index(b'      "a100x": ')
    end = after.index(b'      "a101": ', start)
    assert after[:start] + after[end:] == before, "only the new entry was added"
    zf.open_group(root)["a7"].attrs["i"] = "seven"
    view = json.loads(path.read_bytes())["consolidated_metadata"]["metadata"]
    assert view["a7"]["attributes"]["i"] == "seven" and view["a8"]["attributes"]["i"] == 8
    del zf.open_group(root)["a100x"]
    assert b'"a100x"' not in path.read_bytes()


def test_an_indexed_view_and_a_parsed_one_write_the_same_document(tmp_path, monkeypatch):
    root = _root_with_view(tmp_path, 60, real=3)
    path = tmp_path / "root.zarr" / "zarr.json"
    shutil.copytree(root, tmp_path / "before")

    def changed(threshold: int) -> bytes:
        shutil.rmtree(root)
        shutil.copytree(tmp_path / "before", root)
        monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", threshold)
        zf.create_group(root + "/g", attributes={"k": 1}).create_array(
            "inner", shape=(2,), chunks=(2,), dtype="f8"
        )
        del zf.open_group(root)["a1"]
        zf.open_group(root)["a2"].attrs["i"] = -1
        return path.read_bytes()

    assert changed(0) == changed(1 << 30)


def test_entries_whose_stored_form_changes_are_written_as_the_dict_form_writes_them(
    tmp_path, small_thresholds, monkeypatch
):
    root = _root_with_view(tmp_path, 5)
    path = tmp_path / "root.zarr" / "zarr.json"
    document = json.loads(path.read_text())
    entries = document["consolidated_metadata"]["metadata"]
    group = {
        "zarr_format": 3,
        "node_type": "group",
        "attributes": {},
        "consolidated_metadata": {"kind": "inline", "must_understand": False, "metadata": {}},
    }
    entries["/a1"] = entries.pop("a1")  # another spelling of the path a1
    entries["g"] = group  # a nested view, which the outer one overrides
    source = json.dumps(document, indent=1).encode()

    def rewritten(threshold: int) -> dict:
        path.write_bytes(source)
        monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", threshold)
        zf.open_group(root).attrs["touched"] = True
        return json.loads(path.read_bytes())

    indexed = rewritten(0)
    assert indexed == rewritten(1 << 30)
    assert "a1" in indexed["consolidated_metadata"]["metadata"]
    assert "consolidated_metadata" not in indexed["consolidated_metadata"]["metadata"]["g"]


def test_a_bad_entry_of_an_indexed_view_is_refused_naming_it(tmp_path, small_thresholds):
    root = _root_with_view(tmp_path, 5)
    path = tmp_path / "root.zarr" / "zarr.json"
    path.write_bytes(path.read_bytes().replace(b'"node_type": "array"', b'"node_type": "tree"', 1))
    with pytest.raises(MetadataError, match="'array' or 'group'") as caught:
        zf.open_group(root, mode="r")
    assert caught.value.field == "consolidated_metadata.metadata['a0'].node_type"


def test_a_write_computed_from_a_stale_root_is_retried_from_a_fresh_read(
    tmp_path, small_thresholds, monkeypatch
):
    """The memo answers the view update's versioned read from the survey's read; another
    writer's change in between must make the commit conflict and the retry reread."""
    root = _root_with_view(tmp_path, 20)
    commit = LocalStore._set_parts_if
    raced = []

    def with_a_rival(self, key, parts, if_generation):
        if key == "zarr.json" and not raced:
            raced.append(True)
            zf.create_array(root, "rival", shape=(1,), chunks=(1,), dtype="u1")
        return commit(self, key, parts, if_generation)

    monkeypatch.setattr(LocalStore, "_set_parts_if", with_a_rival)
    zf.create_array(root, "mine", shape=(1,), chunks=(1,), dtype="u1")
    view = json.loads((tmp_path / "root.zarr" / "zarr.json").read_bytes())
    assert raced and {"rival", "mine"} <= set(view["consolidated_metadata"]["metadata"])
    assert len(view["consolidated_metadata"]["metadata"]) == 22


def test_creating_under_a_large_view_holds_at_most_twice_the_document(tmp_path):
    """Issue #32's target: at most 2x the root document in memory (traced allocations:
    the store's read, the index, the new entry, the write; measured, not timed)."""
    root = _root_with_view(tmp_path, 6_000, attributes_bytes=150)
    size = (tmp_path / "root.zarr" / "zarr.json").stat().st_size
    assert size > raw_reading.RAW_MEMBERS_MIN_BYTES
    zf.create_array(MemoryStore(), shape=(1,), chunks=(1,), dtype="u1")  # plugins loaded
    gc.collect()
    tracemalloc.start()
    try:
        zf.create_array(root, "new", shape=(4,), chunks=(4,), dtype="i4")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 2 * size, f"peak {peak} bytes for a {size}-byte root document"
    view = json.loads((tmp_path / "root.zarr" / "zarr.json").read_bytes())
    assert len(view["consolidated_metadata"]["metadata"]) == 6_001


def test_a_group_holding_an_indexed_view_pickles_with_it(tmp_path, small_thresholds):
    import pickle

    root = _root_with_view(tmp_path, 30, real=2)
    group = zf.open_group(root, mode="r")
    assert type(group.metadata_model.consolidated) is IndexedEntries
    copy = pickle.loads(pickle.dumps(group))
    assert sorted(copy.array_keys()) == sorted(f"a{i}" for i in range(30))
    assert copy["a1"].attrs["i"] == 1


def _random_text(rng):
    alphabet = 'ab{}[]",:\\ \n\té☃\U0001f600\u2028'
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))


def _random_value(rng, depth=0):
    kind = rng.randrange(6 if depth < 3 else 3)
    if kind == 0:
        return rng.choice([None, True, False, 0, -7, 2.5, 1e300])
    if kind in (1, 2):
        return _random_text(rng)
    if kind in (3, 4):
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {_random_text(rng): _random_value(rng, depth + 1) for _ in range(rng.randrange(4))}


@pytest.mark.parametrize("seed", range(40))
def test_random_views_read_and_edit_as_dicts_do(seed, monkeypatch):
    """Random entries (brackets, quotes and escapes inside strings, non-ASCII text,
    random layouts): the index reads what the whole parse reads, and an edited view is
    written as the same edit of a dict."""
    import random

    monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", 0)
    rng = random.Random(seed)
    names = sorted({_random_text(rng) or "n" for _ in range(rng.randrange(1, 25))})
    if rng.random() < 0.3:
        rng.shuffle(names)
    view = {name: {"node_type": rng.choice(["array", "group"]), "v": _random_value(rng)} for name in names}
    document = {
        "attributes": _random_value(rng),
        "consolidated_metadata": {"kind": "inline", "metadata": view},
        "zarr_format": 3,
    }
    data = json.dumps(document, indent=rng.choice([None, 0, 1, 4]), ensure_ascii=rng.random() < 0.5).encode()
    read = load_document_keeping_raw(data, key="k", at=VIEW, kept=("node_type",))
    members = read["consolidated_metadata"]["metadata"]
    assert type(members) is RawMembers
    assert {n: json.loads(members.value(i).text) for i, n in enumerate(members.names)} == view
    assert [members.value(i).kept["node_type"] for i in range(len(members))] == [
        view[n]["node_type"] for n in members.names
    ]
    changes = {}
    for name in rng.sample(names, min(3, len(names))):
        changes[name] = REMOVED if rng.random() < 0.5 else {"replaced": name}
    for i in range(rng.randrange(3)):
        changes[f"new{i}" + _random_text(rng)] = {"added": i}
    read["consolidated_metadata"]["metadata"] = members.edited(changes)
    expected = {n: v for n, v in view.items() if changes.get(n, v) is not REMOVED}
    expected.update({n: v for n, v in changes.items() if v is not REMOVED})
    written = json.loads(dump_document(read))["consolidated_metadata"]["metadata"]
    assert written == expected


def test_an_error_after_an_indexed_view_is_placed_where_it_is_in_the_document(monkeypatch):
    """The rest of the document is parsed with the view replaced by ``{}``; an error there
    must still give the strict reader's message, whose position counts the view."""
    monkeypatch.setattr(raw_reading, "RAW_MEMBERS_MIN_BYTES", 0)
    view = json.dumps({f"n{i}": {"i": i} for i in range(50)})
    data = ('{"consolidated_metadata": {"metadata": ' + view + '}, "x": tru}').encode()
    with pytest.raises(MetadataError) as strict:
        load_document(data, key="k")
    with pytest.raises(MetadataError) as indexing:
        load_document_keeping_raw(data, key="k", at=VIEW, kept=())
    assert str(indexing.value) == str(strict.value)
    assert f"char {data.index(b'tru}')}" in str(strict.value)
