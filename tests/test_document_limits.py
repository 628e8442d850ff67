"""Nothing is written that cannot be reopened: metadata documents over
``config.max_document_bytes`` are refused before anything is written, a consolidated
view that would be too large is refused with advice, and a root made unreadable by a
view (an older release, another tool) is repaired by ``remove_consolidated_metadata``."""

from __future__ import annotations

import contextlib

import pytest

import zarrforge as zf
from zarrforge.errors import DocumentTooLargeError, MetadataError, UnusedViewWarning
from zarrforge.metadata.raw_json import RawJSON
from zarrforge.metadata.raw_reading import load_document_keeping_raw
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore

FORMATS = [3, 2, "draft-2022"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_default_limit_refuses_a_70_mb_attribute_before_writing(fmt) -> None:
    store = MemoryStore()
    array = zf.create_array(store, "a", shape=(2,), dtype="int8", zarr_format=fmt, attributes={"kept": 1})
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
            zf.create_array(
                store, "a", shape=(2,), dtype="int8", zarr_format=fmt, attributes={"big": "x" * 5000}
            )
        with pytest.raises(DocumentTooLargeError):
            zf.create_group(store, "g", zarr_format=fmt, attributes={"big": "y" * 5000})
    assert list(store.list()) == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_attribute_update_over_the_limit_leaves_the_node_as_it_was(fmt) -> None:
    store = MemoryStore()
    array = zf.create_array(store, "a", shape=(2,), dtype="int8", zarr_format=fmt, attributes={"kept": 1})
    before = dict(store._data)
    with zf.config.set(max_document_bytes=4096):
        with pytest.raises(DocumentTooLargeError):
            array.attrs["big"] = "x" * 5000
        assert store._data == before  # nothing written, not even a part
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
        # the root opens without its view (inside zarr.json for v3: set aside unread)
        assert zf.open_group(store, use_consolidated=False).attrs["title"] == "t"
        if fmt == 3:  # nothing below it changes while the view cannot be kept in step
            files = _files(tmp_path / "data")
            with pytest.raises(MetadataError, match="remove_consolidated_metadata"):
                zf.create_array(store, "new", shape=(1,), dtype="int8", zarr_format=fmt)
            assert _files(tmp_path / "data") == files
        repaired = zf.remove_consolidated_metadata(store)
        assert repaired.metadata_model.consolidated is None
        assert dict(zf.open_group(store).attrs) == {"title": "t"}
        assert len(zf.open_group(store)["sub"].members()) == 40
        zf.create_array(store, "new", shape=(1,), dtype="int8", zarr_format=fmt)
    assert sorted(name for name, _ in zf.open_group(store).members()) == ["new", "sub"]


def _files(root) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _root_with_view_over(tmp_path, limit: int):
    store = LocalStore(tmp_path / "data")
    root = zf.create_group(store, attributes={"title": "t"})
    for i in range(40):
        root.create_array(f"a{i}", shape=(2,), dtype="int8", attributes={"i": i})
    zf.consolidate_metadata(store)
    assert (tmp_path / "data" / "zarr.json").stat().st_size > limit
    return store


def test_a_v3_root_whose_view_is_over_the_limit_opens_without_it(tmp_path) -> None:
    store = _root_with_view_over(tmp_path, 4096)
    with zf.config.set(max_document_bytes=4096):
        group = zf.open_group(store, use_consolidated=False, mode="r")
        assert group.attrs["title"] == "t" and len(group.members()) == 40
        with pytest.warns(UnusedViewWarning, match="remove_consolidated_metadata"):
            group = zf.open_group(store, mode="r")  # the default falls back to the store
        assert group["a7"].attrs["i"] == 7
        with pytest.raises(
            MetadataError, match="no consolidated metadata it can use.*max_document_bytes"
        ) as refused:
            zf.open_group(store, use_consolidated=True)
        assert "remove_consolidated_metadata" in str(refused.value)  # names the repair


@pytest.mark.parametrize("change", ["create", "resize", "attributes", "delete", "root attributes"])
def test_below_a_view_over_the_limit_nothing_changes_until_it_is_repaired(tmp_path, change) -> None:
    store = _root_with_view_over(tmp_path, 4096)
    before = _files(tmp_path / "data")
    with (
        zf.config.set(max_document_bytes=4096),
        pytest.warns(UnusedViewWarning) if change == "delete" else contextlib.nullcontext(),
    ):
        act = {
            "create": lambda: zf.create_array(store, "new", shape=(1,), dtype="int8"),
            "resize": lambda: zf.open_array(store, path="a1").resize((4,)),
            "attributes": lambda: zf.open_array(store, path="a1").attrs.update(z=1),
            "delete": lambda: zf.open_group(store).__delitem__("a2"),
            "root attributes": lambda: zf.open_group(store, use_consolidated=False).attrs.update(z=1),
        }[change]
        with pytest.raises(MetadataError, match="max_document_bytes"):
            act()
    assert _files(tmp_path / "data") == before


VIEW = ("consolidated_metadata", "metadata")


@pytest.mark.parametrize(
    "text",
    [
        # what is over the limit is not the view
        '{"attributes": {"big": "%s"}, "consolidated_metadata": {"metadata": {}}}' % ("x" * 200),
        # no view at all
        '{{"attributes": [{}]}}'.format(", ".join(["1"] * 100)),
        # not an object, or not JSON
        "[{}]".format(", ".join(["1"] * 100)),
        '{"consolidated_metadata": {"metadata": {"a": "%s"}' % ("x" * 200),
    ],
)
def test_a_document_over_the_limit_is_refused_unless_only_its_view_is_over(text) -> None:
    with zf.config.set(max_document_bytes=100):
        with pytest.raises(DocumentTooLargeError, match="exceeds the limit of 100 bytes"):
            load_document_keeping_raw(text.encode(), key="k", at=VIEW, kept=())


def test_a_document_over_the_limit_only_by_its_view_is_read_with_the_view_set_aside() -> None:
    view = '{"kind": "inline", "metadata": {"a": "%s"}}' % ("x" * 200)
    text = f'{{"zarr_format": 3, "consolidated_metadata": {view}, "attributes": {{"t": 1}}}}'
    with zf.config.set(max_document_bytes=100):
        document = load_document_keeping_raw(text.encode(), key="k", at=VIEW, kept=())
    assert document["attributes"] == {"t": 1} and document["zarr_format"] == 3
    assert type(document["consolidated_metadata"]) is RawJSON
    assert document["consolidated_metadata"].text == view


def test_the_limit_can_be_turned_off_and_is_validated() -> None:
    with zf.config.set(max_document_bytes=None):
        array = zf.create_array(None, "a", shape=(2,), dtype="int8", attributes={"big": "x" * 100})
        assert array.attrs["big"] == "x" * 100
    with pytest.raises(ValueError, match="max_document_bytes"):
        zf.config.update(max_document_bytes=-5)
