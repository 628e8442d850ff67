"""A variant of the v3 format (a ZEP prototype) written against V3Format's public hooks
only (``zarrforge_std.format_v3.VARIANT_HOOKS``, docs/plugin-guide/formats.md "Variant formats"):
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
from zarrforge.errors import MetadataError, MustUnderstandError, NodeTypeError
from zarrforge_std.format_v3 import VARIANT_HOOKS, V3Format
from zarrforge_std.stores.memory import MemoryStore

DOCS = Path(__file__).resolve().parent.parent / "docs"
GUIDE = DOCS / "plugin-guide" / "formats.md"


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
            raise MetadataError(f"must be a string, got {note!r}", field="note", value=note, key=key)
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
    section = text.split("## Variant formats", 1)[1].split("\n#", 1)[0]
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


DOCUMENTS = (
    GUIDE,
    DOCS / "formats.md",
    DOCS.parent / "core" / "src" / "zarrforge" / "abc" / "format.py",
)


def test_new_group_is_documented_as_the_contract_declares_it_both_arguments_optional():
    """The node-writing service calls ``fmt.new_group()`` with no argument: every text that
    states the contract says both arguments are optional, as the abstract method does."""
    from zarrforge.abc.format import Format

    parameters = inspect.signature(Format.new_group).parameters
    assert [(p.name, p.default) for p in list(parameters.values())[1:]] == [
        ("attributes", None),
        ("extensions", None),
    ]
    for path in DOCUMENTS:
        spelled = re.findall(r"new_group\([^)]*\)", path.read_text(encoding="utf-8"))
        spelled = [s for s in spelled if not s.startswith("new_group(self")]
        assert spelled, path
        signature = "new_group(attributes=None, extensions=None)"
        assert signature in spelled and set(spelled) <= {signature, "new_group()"}, (path, spelled)


def test_every_installed_format_builds_a_group_with_no_arguments():
    from zarrforge.abc.metadata import GroupMetadata
    from zarrforge.nodes.hierarchy import get_format, installed_formats

    for name in [*installed_formats(), NotedV3.name]:
        group = get_format(name).new_group()
        assert isinstance(group, GroupMetadata) and dict(group.attributes) == {}, name


class StampedV3(V3Format):
    """Zarr v3 documents (``"zarr_format": 3``, ``zarr.json``) carrying a required
    top-level ``stamp`` of the variant's own: plain v3 refuses them (``must_understand``),
    and the variant claims them by that field (:attr:`V3Format.required_fields`)."""

    name = "test.v3-stamped"
    required_fields = ("stamp",)
    asked = 0  # how often the variant was asked about a document

    def node_type_of(self, document, key):
        type(self).asked += 1
        return super().node_type_of(document, key)

    def parse(self, document, *, key):
        stamp = document.get("stamp")
        if not isinstance(stamp, str):
            raise MetadataError(f"must be a string, got {stamp!r}", field="stamp", value=stamp, key=key)
        model = super().parse({k: v for k, v in document.items() if k != "stamp"}, key=key)
        return dataclasses.replace(model, format_data={**model.format_data, self.name: stamp})

    def document(self, metadata):
        return {**super().document(metadata), "stamp": metadata.format_data.get(self.name, "fresh")}


class CountingStore(MemoryStore):
    def __init__(self):
        super().__init__()
        self.reads: list[str] = []

    def get(self, key, byte_range=None):
        self.reads.append(key)
        return super().get(key, byte_range)


@pytest.fixture
def stamped():
    zf.register("formats", StampedV3.name, StampedV3)
    StampedV3.asked = 0
    yield
    zf.registry.formats.unregister(StampedV3.name)


def test_a_variant_keeping_zarr_format_3_is_claimed_by_its_required_field(stamped):
    store = CountingStore()
    root = zf.create_group(store, zarr_format=StampedV3.name)
    root.create_array("a", shape=(2,), chunks=(2,), dtype="int8")[:] = [5, 6]
    document = json.loads(store.get("zarr.json"))
    assert document["zarr_format"] == 3 and document["stamp"] == "fresh"

    store.reads.clear()
    group = zf.open_group(store, mode="r")  # v3 is asked first and hands the node over
    assert group.format.name == StampedV3.name
    assert group.metadata_model.format_data[StampedV3.name] == "fresh"
    # the document was read once, by v3; then the open's probe for a killed write's marker
    assert store.reads == ["zarr.json", "__zarrforge_unfinished.json"]
    array = zf.open_array(store, "a", mode="r+")
    assert array.format.name == StampedV3.name and array[:].tolist() == [5, 6]
    assert [name for name, _ in group.members()] == ["a"]
    root.create_group("g")  # creating inside the variant's hierarchy: v3 is not in the way
    assert json.loads(store.get("g/zarr.json"))["stamp"] == "fresh"
    with pytest.raises(NodeTypeError, match="under the Zarr test.v3-stamped node"):
        zf.create_array(store, "b", shape=(1,), dtype="int8")  # a plain v3 node under it


def test_plain_v3_documents_still_open_as_v3_without_asking_the_variant(stamped):
    store = CountingStore()
    zf.create_group(store).create_array("a", shape=(1,), dtype="int8")
    store.reads.clear()
    StampedV3.asked = 0  # creation asks every format whether a node of its is in the way
    assert zf.open_group(store, mode="r").format.name == "3"
    assert zf.open_array(store, "a", mode="r").format.name == "3"
    assert StampedV3.asked == 0 and store.reads[0] == "zarr.json"


def test_without_the_variant_v3_refuses_the_document_naming_the_field(stamped):
    store = zf.create_group(None, zarr_format=StampedV3.name).store
    zf.registry.formats.unregister(StampedV3.name)
    try:
        with pytest.raises(MustUnderstandError) as info:
            zf.open_group(store, mode="r")
    finally:
        zf.register("formats", StampedV3.name, StampedV3)
    assert info.value.field == "stamp" and "zarr.json" in str(info.value)
