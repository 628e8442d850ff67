"""A variant of the v3 format (a ZEP prototype) written against V3Format's public hooks
only (``zarrforge_std.format_v3.VARIANT_HOOKS``, docs/plugin-guide.md "Variant formats"):
its own ``zarr_format`` value, document name and a top-level field of its own, read,
written, rewritten, listed and detected; and the deprecated ``_node_type`` still works."""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
from pathlib import Path

import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError
from zarrforge_std.format_v3 import VARIANT_HOOKS, V3Format

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "plugin-guide.md"


class NotedV3(V3Format):
    """Zarr v3 whose documents say ``"zarr_format": "3-noted"``, live in ``node.json`` and
    carry a top-level ``note`` (kept in the model's ``format_data``)."""

    name = "test.v3-noted"
    metadata_name = "node.json"
    zarr_format_value = "3-noted"

    def parse(self, document, *, key):
        rest = {k: v for k, v in document.items() if k != "note"}
        note = document.get("note")
        if not isinstance(note, str):
            raise MetadataError(f"must be a string, got {note!r}", field="note", value=note,
                                key=key)
        model = super().parse(rest, key=key)
        return dataclasses.replace(model, format_data={**model.format_data, self.name: note})

    def document(self, metadata):
        document = super().document(metadata)
        document["note"] = metadata.format_data.get(self.name, "new")
        return document

    def new_array(self, spec):
        model = super().new_array(spec)
        return dataclasses.replace(model, format_data={self.name: f"array of {spec.shape}"})


@pytest.fixture(autouse=True)
def registered():
    zf.register("formats", NotedV3.name, NotedV3)
    yield
    zf.registry.formats.unregister(NotedV3.name)


def test_the_variant_overrides_public_hooks_only():
    own = {name for name in vars(NotedV3) if not name.startswith("__") and name != "_abc_impl"}
    assert own <= set(VARIANT_HOOKS), sorted(own - set(VARIANT_HOOKS))
    assert all(not name.startswith("_") for name in VARIANT_HOOKS)
    assert all(name in vars(V3Format) for name in VARIANT_HOOKS)


def test_a_variant_is_written_read_rewritten_and_listed_through_its_hooks():
    root = zf.create_group(None, zarr_format=NotedV3.name)
    array = root.create_array("a", shape=(4,), chunks=(2,), dtype="int8")
    array[:] = [1, 2, 3, 4]
    store = root.store
    assert sorted(store.list()) == ["a/c/0", "a/c/1", "a/node.json", "node.json"]
    document = json.loads(store.get("a/node.json"))
    assert document["zarr_format"] == "3-noted" and document["note"] == "array of (4,)"
    assert json.loads(store.get("node.json"))["note"] == "new"

    again = zf.open_array(store, "a", mode="r+")  # detection asks node_type_of
    assert again.format.name == NotedV3.name and again[:].tolist() == [1, 2, 3, 4]
    again.attrs["k"] = 1  # a rewrite goes through document()
    assert json.loads(store.get("a/node.json"))["note"] == "array of (4,)"
    assert json.loads(store.get("a/node.json"))["attributes"] == {"k": 1}
    assert again.metadata["note"] == "array of (4,)"

    group = zf.open_group(store, mode="r")
    assert group.format.name == NotedV3.name
    assert [name for name, _ in group.members()] == ["a"]  # listing asks node_type_of
    assert V3Format().read_node(store, "a") is None  # not v3's: its document is elsewhere


def test_node_type_of_tells_the_variants_documents_from_v3s():
    v3, noted = V3Format(), NotedV3()
    array = {"zarr_format": 3, "node_type": "array"}
    assert v3.node_type_of(array, "zarr.json") == "array"
    assert noted.node_type_of(array, "zarr.json") is None
    assert noted.node_type_of({"zarr_format": "3-noted", "node_type": "group"}, "k") == "group"
    with pytest.raises(MetadataError, match="must be 'array' or 'group'"):
        noted.node_type_of({"zarr_format": "3-noted", "node_type": "chunk"}, "k")


def test_a_variants_own_field_is_checked_by_its_parse():
    root = zf.create_group(None, zarr_format=NotedV3.name)
    document = json.loads(root.store.get("node.json"))
    root.store.set("node.json", json.dumps({**document, "note": 5}).encode())
    with pytest.raises(MetadataError) as info:
        zf.open_group(root.store, mode="r")
    assert info.value.field == "note" and "node.json" in str(info.value)


def test_the_plugin_guide_lists_exactly_the_variant_hooks():
    text = GUIDE.read_text(encoding="utf-8")
    section = text.split("#### Variant formats", 1)[1].split("\n#", 1)[0]
    heads = [line.split(": ", 1)[0] for line in section.splitlines() if line.startswith("* `")]
    listed = [name for head in heads for name in re.findall(r"`([a-z_]+)[(`]", head)]
    assert listed == list(VARIANT_HOOKS)


def test_the_deprecated_node_type_still_answers_and_an_override_of_it_is_honoured():
    with pytest.warns(DeprecationWarning, match="node_type_of"):
        assert V3Format._node_type({"zarr_format": 3, "node_type": "group"}, "k") == "group"
    with pytest.warns(DeprecationWarning, match="overrides V3Format._node_type"):
        class Legacy(V3Format):
            name = "test.v3-legacy"

            @staticmethod
            def _node_type(document, key):
                return "group" if document.get("legacy") else None

    assert Legacy().node_type_of({"legacy": True}, "k") == "group"
    assert Legacy().node_type_of({"zarr_format": 3, "node_type": "array"}, "k") is None


DOCUMENTS = (GUIDE, GUIDE.parent / "formats.md",
             GUIDE.parent.parent / "core" / "src" / "zarrforge" / "abc" / "format.py")


def test_new_group_is_documented_as_the_contract_declares_it_both_arguments_optional():
    """The node-writing service calls ``fmt.new_group()`` with no argument: every text that
    states the contract says both arguments are optional, as the abstract method does."""
    from zarrforge.abc.format import Format

    parameters = inspect.signature(Format.new_group).parameters
    assert [(p.name, p.default) for p in list(parameters.values())[1:]] == [
        ("attributes", None), ("extensions", None)]
    for path in DOCUMENTS:
        spelled = re.findall(r"new_group\([^)]*\)", path.read_text(encoding="utf-8"))
        spelled = [s for s in spelled if not s.startswith("new_group(self")]
        assert spelled, path
        signature = "new_group(attributes=None, extensions=None)"
        assert signature in spelled and set(spelled) <= {signature, "new_group()"}, (path, spelled)


def test_every_installed_format_builds_a_group_with_no_arguments():
    from zarrforge.abc.metadata import GroupMetadata
    from zarrforge.hierarchy import get_format, installed_formats

    for name in [*installed_formats(), NotedV3.name]:
        group = get_format(name).new_group()
        assert isinstance(group, GroupMetadata) and dict(group.attributes) == {}, name
