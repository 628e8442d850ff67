"""ZEP 10 extensions: parsing, the must_understand rule, the API, and their behaviour."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.extension import Extension
from zarrforge.errors import CodecError, MetadataError, SkippedExtensionWarning, UnknownExtensionError


class Tag(Extension):
    """A test extension with a validated configuration: {"label": str}."""

    name = "test.tag"

    def __init__(self, label):
        self.label = label

    @classmethod
    def from_json(cls, name, configuration):
        label = (configuration or {}).get("label")
        if not isinstance(label, str):
            raise MetadataError(
                f"label must be a string, got {label!r}", field="configuration.label", value=label
            )
        return cls(label)

    def to_json(self):
        return {"name": self.name, "configuration": {"label": self.label}}


class ArrayOnly(Tag):
    name = "test.array-only"
    node_types = frozenset({"array"})


@pytest.fixture(autouse=True)
def registered():
    zf.register("extensions", "test.tag", Tag)
    zf.register("extensions", "test.array-only", ArrayOnly)
    yield
    zf.registry.extensions.unregister("test.tag")
    zf.registry.extensions.unregister("test.array-only")


def _with_extensions(store, key, extensions):
    document = json.loads(store.get(key))
    document["extensions"] = extensions
    store.set(key, json.dumps(document).encode())


@pytest.fixture(params=["array", "group"])
def node(request):
    root = zf.create_group(None)
    if request.param == "array":
        return zf.create_array(root.store, "n", shape=(4,), dtype="int8", compressors=None)
    return root.create_group("n")


def test_known_extension_opens_and_round_trips(node):
    entry = {"name": "test.tag", "configuration": {"label": "x"}}
    _with_extensions(node.store, "n/zarr.json", [entry])
    opened = zf.open(node.store, "n", mode="r+")
    assert isinstance(opened.extensions[0], Tag) and opened.extensions[0].label == "x"
    opened.attrs["k"] = 1
    assert json.loads(node.store.get("n/zarr.json"))["extensions"] == [entry]


@pytest.mark.parametrize(
    "entry", ["other.thing", {"name": "other.thing"}, {"name": "other.thing", "must_understand": True}]
)
def test_unknown_extension_that_must_be_understood_stops_the_node(node, entry):
    _with_extensions(node.store, "n/zarr.json", [entry])
    with pytest.raises(UnknownExtensionError, match="unknown extension 'other.thing'") as info:
        zf.open(node.store, "n")
    assert "extensions[0]" in str(info.value)


def test_unknown_extension_with_must_understand_false_is_kept(node):
    entry = {"name": "other.thing", "must_understand": False, "configuration": {"a": [1]}}
    _with_extensions(
        node.store, "n/zarr.json", [entry, {"name": "test.tag", "configuration": {"label": "y"}}]
    )
    opened = zf.open(node.store, "n", mode="r+")
    assert opened.extensions[0].document == entry
    opened.set_extension({"name": "test.tag", "configuration": {"label": "z"}})
    stored = json.loads(node.store.get("n/zarr.json"))["extensions"]
    assert stored == [entry, {"name": "test.tag", "configuration": {"label": "z"}}]


@pytest.mark.parametrize(
    "value,message",
    [
        ([], "non-empty list"),
        ({"name": "test.tag"}, "non-empty list"),
        (
            [
                {"name": "test.tag", "configuration": {"label": "a"}},
                {"name": "test.tag", "configuration": {"label": "b"}},
            ],
            "more than once",
        ),
        ([{"name": "test.tag", "configuration": {"label": 3}}], "extensions[0].configuration.label"),
    ],
)
def test_malformed_extensions_are_named_errors(node, value, message):
    _with_extensions(node.store, "n/zarr.json", value)
    with pytest.raises(MetadataError) as info:
        zf.open(node.store, "n")
    assert message in str(info.value)


def test_extension_restricted_to_arrays_is_refused_on_groups():
    g = zf.create_group(None)
    with pytest.raises(MetadataError, match="applies to \\['array'\\], not to a group"):
        g.set_extension({"name": "test.array-only", "configuration": {"label": "a"}})
    a = zf.create_array(
        g.store,
        "a",
        shape=(1,),
        dtype="int8",
        extensions=[{"name": "test.array-only", "configuration": {"label": "a"}}],
    )
    assert a.get_extension("test.array-only").label == "a"


def test_add_change_remove_through_the_api(node):
    node.set_extension({"name": "test.tag", "configuration": {"label": "one"}})
    node.set_extension(Tag("two"))
    assert [e.label for e in zf.open(node.store, "n").extensions] == ["two"]
    with pytest.raises(MetadataError, match="label must be a string"):
        node.set_extension({"name": "test.tag", "configuration": {"label": None}})
    node.remove_extension("test.tag")
    assert "extensions" not in json.loads(node.store.get("n/zarr.json"))
    with pytest.raises(MetadataError, match="has no extension 'test.tag'"):
        node.remove_extension("test.tag")


def test_must_understand_false_is_written_back():
    a = zf.create_array(
        None,
        shape=(1,),
        dtype="int8",
        extensions=[{"name": "test.tag", "must_understand": False, "configuration": {"label": "q"}}],
    )
    # a top-level key by default (tests/test_extension_placement.py has the list form)
    assert json.loads(a.store.get("zarr.json"))["test.tag"] == {
        "name": "test.tag",
        "configuration": {"label": "q"},
        "must_understand": False,
    }


class Shift(Extension):
    """An extension whose behaviour is on the object: selections move one place right,
    and every write is recorded."""

    name = "test.shift"
    node_types = frozenset({"array"})
    written: list = []

    @classmethod
    def from_json(cls, name, configuration):
        return cls()

    def to_json(self):
        return {"name": self.name}

    def map_selection(self, array, selection, kind):
        if kind != "basic":
            return selection
        return slice(selection.start + 1, selection.stop + 1)

    def after_write(self, array, selection, kind, values):
        Shift.written.append((selection, values.tolist()))


def test_selection_and_after_write_are_the_extensions_own_methods():
    zf.register("extensions", "test.shift", Shift)
    Shift.written = []
    try:
        a = zf.create_array(
            None,
            shape=(6,),
            dtype="int8",
            fill_value=0,
            extensions=["test.shift", {"name": "test.tag", "configuration": {"label": "other"}}],
        )
        a[0:2] = [7, 8]
        assert a[0:2].tolist() == [7, 8]
        a.remove_extension("test.shift")
        assert a[0:3].tolist() == [0, 7, 8]  # stored one place to the right
        assert Shift.written == [(slice(1, 3), [7, 8])]  # once: Tag has no behaviour
    finally:
        zf.registry.extensions.unregister("test.shift")


def test_entries_kept_unknown_are_never_called():
    a = zf.create_array(
        None,
        shape=(3,),
        dtype="int8",
        fill_value=0,
        extensions=[{"name": "nobody.knows", "must_understand": False}],
    )
    a[0:2] = [1, 2]
    assert a[...].tolist() == [1, 2, 0]


def test_unknown_codec_with_must_understand_false_reads_with_a_warning_and_refuses_writes():
    a = zf.create_array(None, shape=(4,), dtype="uint8", compressors=None, fill_value=0)
    a[:] = [1, 2, 3, 4]
    document = json.loads(a.store.get("zarr.json"))
    skipped = {"name": "other.checksum", "must_understand": False}
    document["codecs"].append(skipped)
    a.store.set("zarr.json", json.dumps(document).encode())
    with pytest.warns(SkippedExtensionWarning, match="other.checksum"):
        b = zf.open_array(a.store, mode="r+")
    assert b[:].tolist() == [1, 2, 3, 4]
    with pytest.raises(CodecError, match="other.checksum"):
        b[0] = 9
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkippedExtensionWarning)
        b.attrs["x"] = 1
    assert json.loads(a.store.get("zarr.json"))["codecs"][-1] == skipped
    assert np.array_equal(b[:], [1, 2, 3, 4])


def test_plugins_lists_every_point_and_reports_conflicts_and_broken_entries(fake_distribution):
    fake_distribution(
        "zf-ext-a",
        {"zarrforge.extensions": {"test.dup": "dup_a:X"}},
        {
            "dup_a": "from zarrforge.abc.extension import Extension\nclass X(Extension):\n"
            "    name='test.dup'\n    from_json=classmethod(lambda c,n,k: c())\n"
            "    to_json=lambda s: 'test.dup'\n"
        },
    )
    fake_distribution(
        "zf-ext-b", {"zarrforge.extensions": {"test.dup": "dup_b:X", "test.broken": "nope_mod:X"}}
    )
    report = zf.plugins()
    rows = {(r.point, r.name, r.distribution): r for r in report}
    assert rows[("codecs", "bytes", "zarrforge-std")].status == "ok"
    assert rows[("extensions", "test.dup", "zf-ext-a")].status.startswith("conflict")
    assert rows[("extensions", "test.dup", "zf-ext-b")].status.startswith("conflict")
    assert rows[("extensions", "test.broken", "zf-ext-b")].status.startswith("error")
    assert rows[("extensions", "test.tag", None)].status == "ok (in-process)"
    text = str(report)
    assert "zf-ext-a" in text and "zarrforge-numcodecs" in text


def test_an_opened_array_offers_everything_the_extension_contract_declares():
    """Extension methods receive an ``ArrayHandle``: the declared protocol, not a duck."""
    import zarrforge as zf
    from zarrforge.abc import ArrayHandle
    from zarrforge_std.stores.memory import MemoryStore

    array = zf.create_array(MemoryStore(), "a", shape=(3,), dtype="i2")
    assert isinstance(array, ArrayHandle)
    assert not isinstance(object(), ArrayHandle)
