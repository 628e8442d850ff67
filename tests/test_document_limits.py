"""Nothing is written that cannot be reopened: metadata documents over
``config.max_document_bytes`` are refused before anything is written, a consolidated
view that would be too large is refused with advice, and a root made unreadable by a
view (an older release, another tool) is repaired by ``remove_consolidated_metadata``."""

from __future__ import annotations

import pytest

import zarrforge as zf
from zarrforge.errors import DocumentTooLargeError
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore

FORMATS = [3, 2, "draft-2022"]


def test_the_default_limit_refuses_a_70_mb_attribute_before_writing() -> None:
    store = MemoryStore()
    array = zf.create_array(store, "a", shape=(2,), dtype="int8", attributes={"kept": 1})
    before = dict(store._data)
    with pytest.raises(DocumentTooLargeError, match="max_document_bytes") as info:
        array.attrs["big"] = "x" * 70_000_000
    assert info.value.limit == 64 << 20 and info.value.size > info.value.limit
    assert "could not be reopened" in str(info.value)
    assert store._data == before  # nothing written
    assert dict(zf.open_array(store, "a").attrs) == {"kept": 1}


@pytest.mark.parametrize("fmt", FORMATS)
def test_creating_a_node_with_attributes_over_the_limit_writes_nothing(fmt) -> None:
    store = MemoryStore()
    with zf.config.set(max_document_bytes=4096):
        with pytest.raises(DocumentTooLargeError):
            zf.create_array(store, "a", shape=(2,), dtype="int8", zarr_format=fmt,
                            attributes={"big": "x" * 5000})
        with pytest.raises(DocumentTooLargeError):
            zf.create_group(store, "g", zarr_format=fmt, attributes={"big": "y" * 5000})
    assert list(store.list()) == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_attribute_update_over_the_limit_leaves_the_node_as_it_was(fmt) -> None:
    store = MemoryStore()
    array = zf.create_array(store, "a", shape=(2,), dtype="int8", zarr_format=fmt,
                            attributes={"kept": 1})
    with zf.config.set(max_document_bytes=4096):
        with pytest.raises(DocumentTooLargeError):
            array.attrs["big"] = "x" * 5000
        assert dict(zf.open_array(store, "a").attrs) == {"kept": 1}


def _many_members(fmt, n: int = 40):
    store = MemoryStore()
    root = zf.create_group(store, zarr_format=fmt, attributes={"title": "t"})
    for i in range(n):
        root.create_array(f"sub/a{i}", shape=(2,), dtype="int8", attributes={"i": i})
    return store


@pytest.mark.parametrize("fmt", [3, 2])
def test_a_consolidated_view_over_the_limit_is_refused_with_advice(fmt) -> None:
    store = _many_members(fmt)
    before = dict(store._data)
    with zf.config.set(max_document_bytes=4096):
        with pytest.raises(DocumentTooLargeError) as info:
            zf.consolidate_metadata(store)
        message = str(info.value)
        assert "nothing was written" in message
        assert "zarrforge.consolidate_metadata(store, 'sub') (40 nodes)" in message
        assert store._data == before
        assert zf.open_group(store).attrs["title"] == "t"  # the root still opens
        zf.create_array(store, "new", shape=(1,), dtype="int8", zarr_format=fmt)  # still writable


@pytest.mark.parametrize("fmt", [3, 2])
def test_a_root_made_unreadable_by_its_view_is_repaired(tmp_path, fmt) -> None:
    store = LocalStore(tmp_path / "data")
    root = zf.create_group(store, zarr_format=fmt, attributes={"title": "t"})
    for i in range(40):
        root.create_array(f"sub/a{i}", shape=(2,), dtype="int8")
    zf.consolidate_metadata(store)  # written under the default limit: fine then
    with zf.config.set(max_document_bytes=4096):  # readers with a smaller limit
        if fmt == 3:  # the view is inside zarr.json: the root cannot be read at all
            with pytest.raises(DocumentTooLargeError, match="zarr.json"):
                zf.open_group(store, use_consolidated=False)
            with pytest.raises(DocumentTooLargeError, match="zarr.json"):
                zf.create_array(store, "new", shape=(1,), dtype="int8", zarr_format=fmt)
        else:  # .zmetadata is a document of its own: the root opens without it
            assert zf.open_group(store, use_consolidated=False).attrs["title"] == "t"
        repaired = zf.remove_consolidated_metadata(store)
        assert repaired.metadata_model.consolidated is None
        assert dict(zf.open_group(store).attrs) == {"title": "t"}
        assert len(zf.open_group(store)["sub"].members()) == 40
        zf.create_array(store, "new", shape=(1,), dtype="int8", zarr_format=fmt)
    assert sorted(name for name, _ in zf.open_group(store).members()) == ["new", "sub"]


def test_the_limit_can_be_turned_off_and_is_validated() -> None:
    with zf.config.set(max_document_bytes=None):
        array = zf.create_array(None, "a", shape=(2,), dtype="int8",
                                attributes={"big": "x" * 100})
        assert array.attrs["big"] == "x" * 100
    with pytest.raises(ValueError, match="max_document_bytes"):
        zf.config.update(max_document_bytes=-5)
