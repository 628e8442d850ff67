"""Detection claims a node only by the format's own markers, and a failing plugin
cannot break the library.

* A document another format reads is never reported as this format's broken node:
  the 2022 draft claims a root ``zarr.json`` only by its ``zarr_format`` URI, and the
  core drops a format's "broken node" claim where another format reads a sound node.
* A format plugin that fails unexpectedly while looking for its nodes (a bug: a
  ``TypeError``, say) is taken to find none, with one ``PluginFailureWarning`` per
  process naming it; creating, opening and listing go on.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError, NodeNotFoundError, PluginFailureWarning
from zarrforge.nodes.hierarchy import get_format
from zarrforge.registries import plugin_failures
from zarrforge_draft2022.format import Draft2022Format
from zarrforge_std.format_v3 import V3Format
from zarrforge_std.stores.memory import MemoryStore

NAN_ROOT = b'{"zarr_format": 3, "node_type": "group", "attributes": {"missing": NaN}}'


def test_a_v3_root_with_non_finite_attributes_is_not_a_draft_node() -> None:
    store = MemoryStore()
    store.set("zarr.json", NAN_ROOT)  # as zarr-python 3 writes NaN attributes
    draft = get_format("draft-2022")
    assert not draft.detect(store, "") and not draft.detect(store, "new")
    array = zf.create_array(store, "new", shape=(3,), chunks=(3,), dtype="int8")
    array[...] = [1, 2, 3]
    np.testing.assert_array_equal(zf.open_array(store, "new")[...], [1, 2, 3])
    with pytest.raises(NodeNotFoundError):
        zf.open_array(store, "missing")


@pytest.mark.parametrize("root", [b"not json at all", b'{"zarr_format": 3, "node_type": "group"}', b"[1, 2]"])
def test_the_draft_claims_a_root_document_only_by_its_marker(root: bytes) -> None:
    store = MemoryStore()
    store.set("zarr.json", root)
    draft = get_format("draft-2022")
    assert isinstance(draft, Draft2022Format)
    assert draft.entry_point(store) is None
    assert not draft.detect(store, "")


@pytest.fixture
def fresh_warnings(monkeypatch):
    monkeypatch.setattr(plugin_failures, "_warned", set())


def _registered(name: str, cls):
    zf.register("formats", name, cls)
    return lambda: zf.registry.REGISTRIES["formats"].unregister(name)


def test_a_format_plugin_failing_unexpectedly_finds_nothing_and_warns_once(fresh_warnings) -> None:
    class Failing(V3Format):
        name = "test.failing"

        def read_document(self, store, path):
            raise TypeError("the JSON object must be str, bytes or bytearray, not NoneType")

        def detect(self, store, path):
            raise TypeError("a bug in detect")

    undo = _registered(Failing.name, Failing)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            store = MemoryStore()
            zf.create_array(store, "a", shape=(2,), dtype="int8")[...] = [5, 6]
            np.testing.assert_array_equal(zf.open_array(store, "a")[...], [5, 6])
            with pytest.raises(NodeNotFoundError):
                zf.open_array(store, "nothing/here")
            assert list(zf.open_group(store)) == ["a"]
            zf.create_group(store, "g")
    finally:
        undo()
    failures = [w for w in caught if issubclass(w.category, PluginFailureWarning)]
    assert len(failures) == 1, [str(w.message) for w in caught]
    assert "test.failing" in str(failures[0].message) and "TypeError" in str(failures[0].message)


def test_a_format_calling_every_node_its_broken_one_does_not_block_creation() -> None:
    class ClaimsEverything(V3Format):
        """Reports a broken node of its own wherever any zarr.json is."""

        name = "test.claims-everything"

        def read_document(self, store, path):
            if store.get(f"{path}/zarr.json" if path else "zarr.json") is not None:
                raise MetadataError("not one of mine, but I say it is broken", key="zarr.json")
            return None

    undo = _registered(ClaimsEverything.name, ClaimsEverything)
    try:
        store = MemoryStore()
        zf.create_group(store)
        array = zf.create_array(store, "a", shape=(2,), dtype="int8")  # no "already exists"
        array[...] = [1, 2]
        np.testing.assert_array_equal(zf.open_array(store, "a")[...], [1, 2])
    finally:
        undo()


def test_plugins_reports_a_format_whose_detection_fails(fresh_warnings) -> None:
    class Failing(V3Format):
        name = "test.failing-report"

        def read_document(self, store, path):
            raise TypeError("the JSON object must be str, bytes or bytearray, not NoneType")

    undo = _registered(Failing.name, Failing)
    try:
        rows = {row.name: row.status for row in zf.plugins() if row.point == "formats"}
    finally:
        undo()
    assert rows["test.failing-report"].startswith("error: its detection raises TypeError")
    assert rows["3"] == "ok" and rows["2"] == "ok" and rows["draft-2022"] == "ok"


def test_plugins_reports_a_format_that_failed_earlier_in_the_process(fresh_warnings) -> None:
    class FailsOnce(V3Format):
        name = "test.fails-once"
        failed = False

        def detect(self, store, path):
            if not FailsOnce.failed:
                FailsOnce.failed = True
                raise KeyError("shape")
            return False

        def read_document(self, store, path):
            return None

    undo = _registered(FailsOnce.name, FailsOnce)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PluginFailureWarning)
            zf.create_array(MemoryStore(), "a", shape=(1,), dtype="int8")  # meets the failure
        rows = {row.name: row.status for row in zf.plugins() if row.point == "formats"}
    finally:
        undo()
    assert rows["test.fails-once"].startswith("error: failed while looking for its nodes")


def test_opening_a_node_of_the_default_format_builds_no_other_format(monkeypatch):
    """Detection builds a format only when it asks it: a v3 node is found by the v3
    format, and the others (the 2022 draft's constructor reads settings) are never made."""
    import zarrforge
    from zarrforge_std.stores.memory import MemoryStore

    built = []
    for name in zarrforge.registry.formats.names():
        if name in ("3", "2", "draft-2022"):
            cls = zarrforge.registry.formats.get(name)
            original = cls.__init__

            def counting(self, *args, _original=original, _name=name, **kwargs):
                built.append(_name)
                _original(self, *args, **kwargs)

            monkeypatch.setattr(cls, "__init__", counting)
    store = MemoryStore()
    zarrforge.create_array(store, "a", shape=(2,), dtype="i1")
    built.clear()
    zarrforge.open_array(store, "a")[...]
    assert built and set(built) == {"3"}
