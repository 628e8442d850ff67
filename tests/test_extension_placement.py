"""Where ZEP 10 entries are written (issue #50): a skippable entry as a top-level key peers
can read, or in the ``extensions`` list; both forms read; each entry kept in the form it was
read in; ``must_understand`` written back as read (absent, true, false).

The peers' side (zarr-python 3.4.2 and tensorstore reading and rewriting the top-level form)
is tests/interop/test_extension_placement_peers.py.
"""

from __future__ import annotations

import json

import pytest

import zarrforge as zf
from zarrforge.abc.extension import Extension
from zarrforge.errors import MetadataError, UnknownExtensionError
from zarrforge.metadata.extension_entries import raw_extension_entries
from zarrforge.plugin_api import UnknownExtension


class Tag(Extension):
    """{"label": str}, on arrays and groups."""

    name = "test.placed"

    def __init__(self, label: str) -> None:
        self.label = label

    @classmethod
    def from_json(cls, name, configuration):
        label = (configuration or {}).get("label")
        if not isinstance(label, str):
            raise MetadataError(f"label must be a string, got {label!r}", field="configuration.label")
        return cls(label)

    def to_json(self):
        return {"name": self.name, "configuration": {"label": self.label}}


class Other(Tag):
    name = "test.placed-too"


@pytest.fixture(autouse=True)
def registered():
    zf.register("extensions", Tag.name, Tag)
    zf.register("extensions", Other.name, Other)
    yield
    zf.registry.extensions.unregister(Tag.name)
    zf.registry.extensions.unregister(Other.name)


def _skippable(cls=Tag, label="x", **mark):
    return {"name": cls.name, "configuration": {"label": label}, "must_understand": False, **mark}


@pytest.fixture(params=["array", "group"])
def node(request):
    root = zf.create_group(None)
    if request.param == "array":
        return zf.create_array(root.store, "n", shape=(4,), dtype="int8", compressors=None)
    return root.create_group("n")


def _stored(node) -> dict:
    return json.loads(node.store.get("n/zarr.json"))


def _edit(node, **fields) -> None:
    document = _stored(node)
    for name, value in fields.items():
        if value is None:
            document.pop(name, None)
        else:
            document[name] = value
    node.store.set("n/zarr.json", json.dumps(document).encode())


def test_a_new_skippable_entry_is_a_top_level_key_and_the_empty_list_is_omitted(node):
    node.set_extension(_skippable())
    stored = _stored(node)
    assert stored[Tag.name] == _skippable()
    assert "extensions" not in stored
    reopened = zf.open(node.store, "n")
    assert [type(e) for e in reopened.extensions] == [Tag] and reopened.extensions[0].label == "x"
    assert reopened.extensions[0].must_understand is False


def test_an_entry_that_must_be_understood_stays_in_the_list_beside_a_top_level_one(node):
    node.set_extension({"name": Other.name, "configuration": {"label": "m"}})
    node.set_extension(_skippable())
    stored = _stored(node)
    assert stored["extensions"] == [{"name": Other.name, "configuration": {"label": "m"}}]
    assert stored[Tag.name] == _skippable()


def test_the_setting_chooses_the_list_for_new_entries(node):
    with zf.config.set(skippable_extensions="list"):
        node.set_extension(_skippable())
    stored = _stored(node)
    assert stored["extensions"] == [_skippable()] and Tag.name not in stored


def test_the_setting_refuses_other_forms():
    with pytest.raises(ValueError, match="skippable_extensions.*'top-level'.*'list'.*got 'inline'"):
        zf.config.set(skippable_extensions="inline")


def test_entries_keep_the_form_they_were_read_in_whatever_the_setting(node):
    _edit(node, extensions=[_skippable(Other, "l")], **{Tag.name: _skippable(Tag, "t")})
    opened = zf.open(node.store, "n", mode="r+")
    opened.attrs["k"] = 1  # a rewrite under the default (top-level)
    stored = _stored(node)
    assert stored["extensions"] == [_skippable(Other, "l")] and stored[Tag.name] == _skippable(Tag, "t")
    with zf.config.set(skippable_extensions="list"):
        opened = zf.open(node.store, "n", mode="r+")
        opened.set_extension(_skippable(Tag, "changed"))  # replacing an entry keeps its form
    stored = _stored(node)
    assert stored[Tag.name] == _skippable(Tag, "changed")
    assert stored["extensions"] == [_skippable(Other, "l")]


def test_list_entries_are_read_first_then_top_level_ones_in_document_order(node):
    unknown = {"name": "elsewhere.flag", "must_understand": False}
    _edit(
        node,
        attributes=None,
        **{Tag.name: _skippable(Tag, "t"), "elsewhere.flag": unknown},
        extensions=[_skippable(Other, "l")],
    )
    document = _stored(node)
    assert list(document)[-1] == "extensions"  # the list comes last in the document...
    opened = zf.open(node.store, "n")
    assert [e.name for e in opened.extensions] == [Other.name, Tag.name, "elsewhere.flag"]  # ...yet first
    assert isinstance(opened.extensions[2], UnknownExtension) and opened.extensions[2].document == unknown
    raw = raw_extension_entries(document, {"zarr_format", "node_type", "shape"})
    assert [(r.field, r.placement) for r in raw][:1] == [("extensions[0]", "list")]


def test_an_unknown_top_level_entry_is_kept_in_its_form_on_rewrite(node):
    unknown = {"name": "elsewhere.flag", "configuration": {"a": [1, None]}, "must_understand": False}
    _edit(node, **{"elsewhere.flag": unknown})
    opened = zf.open(node.store, "n", mode="r+")
    opened.attrs["k"] = 2
    stored = _stored(node)
    assert stored["elsewhere.flag"] == unknown and "extensions" not in stored


def test_one_name_in_both_forms_is_refused_naming_both(node):
    _edit(node, extensions=[_skippable(Tag, "l")], **{Tag.name: _skippable(Tag, "t")})
    with pytest.raises(MetadataError) as info:
        zf.open(node.store, "n")
    message = str(info.value)
    assert "extensions[0]" in message and f"top-level key {Tag.name!r}" in message


def test_a_top_level_entry_with_a_bad_configuration_is_named_by_its_key(node):
    _edit(node, **{Tag.name: {"name": Tag.name, "configuration": {"label": 5}, "must_understand": False}})
    with pytest.raises(MetadataError, match=rf"{Tag.name}\.configuration\.label"):
        zf.open(node.store, "n")


@pytest.mark.parametrize(
    "value",
    [
        {"name": "some.other-name", "must_understand": False},  # named otherwise
        {"name": "x.field", "must_understand": False, "extra": 1},  # members an entry lacks
        {"must_understand": False, "payload": [1, 2]},  # no name at all
    ],
    ids=["other-name", "extra-member", "no-name"],
)
def test_other_skippable_fields_stay_plain_unknown_fields(node, value):
    _edit(node, **{"x.field": value})
    opened = zf.open(node.store, "n", mode="r+")
    assert opened.extensions == ()
    opened.attrs["k"] = 3
    assert _stored(node)["x.field"] == value


def test_a_skippable_entry_whose_name_is_taken_stays_in_the_list(node):
    # an unknown field of that name is kept already, and "attributes" is a field of v3
    _edit(node, **{"elsewhere.taken": {"must_understand": False, "payload": 1}})
    opened = zf.open(node.store, "n", mode="r+")
    opened.set_extension({"name": "elsewhere.taken", "must_understand": False})
    opened.set_extension({"name": "attributes", "must_understand": False})
    stored = _stored(node)
    assert stored["extensions"] == [
        {"name": "elsewhere.taken", "must_understand": False},
        {"name": "attributes", "must_understand": False},
    ]
    assert stored["elsewhere.taken"] == {"must_understand": False, "payload": 1}
    assert isinstance(stored["attributes"], dict)


@pytest.mark.parametrize("mark", [None, True, False], ids=["absent", "true", "false"])
def test_must_understand_is_written_back_as_read(node, mark):
    entry = {"name": Other.name, "configuration": {"label": "m"}}
    if mark is not None:
        entry["must_understand"] = mark
    with zf.config.set(skippable_extensions="list"):  # every form in the list, to compare
        _edit(node, extensions=[entry])
        opened = zf.open(node.store, "n", mode="r+")
        assert opened.extensions[0].must_understand is (mark is not False)
        assert opened.extensions[0].must_understand_mark is mark
        opened.attrs["k"] = 4
    assert _stored(node)["extensions"] == [entry]


def test_a_replacement_built_from_the_mark_keeps_an_absent_member_absent(node):
    node.set_extension({"name": Other.name, "configuration": {"label": "a"}})
    old = zf.open(node.store, "n").get_extension(Other.name)
    new = Other("b")
    new.must_understand = old.must_understand_mark
    node.set_extension(new)
    assert _stored(node)["extensions"] == [{"name": Other.name, "configuration": {"label": "b"}}]


def test_must_understand_refuses_what_is_not_a_bool_or_none():
    with pytest.raises(TypeError, match="True, False or None"):
        Tag("x").must_understand = "no"


def test_an_unknown_top_level_entry_that_must_be_understood_is_not_an_entry(node):
    # without "must_understand": false a key is no skippable entry: the unknown-field rule
    # refuses it, as before; inside the list the same object is an unknown extension
    _edit(node, extensions=[{"name": "elsewhere.needed"}])
    with pytest.raises(UnknownExtensionError, match="elsewhere.needed"):
        zf.open(node.store, "n")
