"""Chunk memory layouts other than C and F (issue #30): the draft writes any registered
layout, names it in ``chunk_memory_layout`` (a URI as the draft's extension object) and
encodes the chunks through it; the zarr-python dialect refuses what zarr-python 2 cannot
read, and array -> array codecs must fit what the layout hands them."""

from __future__ import annotations

import numpy as np
import pytest
from _draft_helpers import doc

import zarrforge as zf
from zarrforge.abc import MemoryLayout
from zarrforge.errors import MetadataError
from zarrforge_draft2022 import Draft2022Format
from zarrforge_std.stores.memory import MemoryStore

URI = "https://example.org/layouts/reversed"


class Reversed(MemoryLayout):
    """C order backwards; the codecs receive the 1-D reversed chunk (the default)."""

    name = "test.reversed"

    def empty(self, shape, dtype):
        return np.empty(tuple(shape), dtype=dtype)

    def linearize(self, array):
        return np.ravel(array, order="C")[::-1].copy()

    def delinearize(self, flat, shape):
        return np.reshape(flat[::-1], tuple(shape))


class ReversedByUri(Reversed):
    name = URI


class Rows(Reversed):
    """C order, handing the codecs the chunk as rows of its last axis (2-D)."""

    name = "test.rows"

    def linearize(self, array):
        return np.ravel(array, order="C")

    def delinearize(self, flat, shape):
        return np.reshape(flat, tuple(shape))

    def codec_shape(self, shape):
        return (int(np.prod(shape[:-1])), shape[-1])


@pytest.fixture(autouse=True)
def layouts():
    for cls in (Reversed, ReversedByUri, Rows):
        zf.register("memory_layouts", cls.name, cls)
    yield
    for cls in (Reversed, ReversedByUri, Rows):
        zf.registry.memory_layouts.unregister(cls.name)


EDITOR = Draft2022Format(dialect="editor")


def create(store, order, **kwargs):
    options = {
        "shape": (3, 4),
        "chunks": (2, 3),
        "dtype": "<i2",
        "fill_value": -1,
        "compressors": None,
        "fmt": EDITOR,
    }
    options.update(kwargs)
    if order is not None:
        options["order"] = order
    return zf.create_array(store, "a", **options)


def test_a_registered_layout_is_recorded_and_orders_the_stored_bytes():
    store = MemoryStore()
    a = create(store, "test.reversed")
    values = np.arange(12, dtype="<i2").reshape(3, 4)
    a[...] = values
    assert doc(store, "meta/root/a.array.json")["chunk_memory_layout"] == "test.reversed"
    assert np.frombuffer(store.get("data/root/a/c0/0"), "<i2").tolist() == [6, 5, 4, 2, 1, 0]
    # an edge chunk is stored whole, fill values included, in the layout's order
    assert np.frombuffer(store.get("data/root/a/c1/1"), "<i2").tolist() == [-1, -1, -1, -1, -1, 11]
    b = zf.open_array(store, "a")
    assert np.array_equal(b[...], values)
    assert b.filters[0].to_json() == {
        "name": "zarrforge.memory_layout",
        "configuration": {"layout": "test.reversed"},
    }


def test_the_format_option_names_the_layout_when_order_is_not_given():
    store = MemoryStore()
    create(store, None, fmt=Draft2022Format(dialect="editor", chunk_memory_layout="test.reversed"))
    assert doc(store, "meta/root/a.array.json")["chunk_memory_layout"] == "test.reversed"


@pytest.mark.parametrize("dialect", ["editor", "zarr-python"])
def test_order_F_is_recorded_not_dropped(dialect):
    store = MemoryStore()
    a = create(store, "F", fmt=Draft2022Format(dialect=dialect))
    a[...] = np.arange(12).reshape(3, 4)
    assert doc(store, "meta/root/a.array.json")["chunk_memory_layout"] == "F"
    assert np.frombuffer(store.get("data/root/a/c0/0"), "<i2").tolist() == [0, 4, 1, 5, 2, 6]


def test_a_layout_registered_under_a_uri_is_written_as_the_drafts_extension_object():
    store = MemoryStore()
    a = create(store, URI)
    a[...] = np.arange(12).reshape(3, 4)
    assert doc(store, "meta/root/a.array.json")["chunk_memory_layout"] == {
        "extension": URI,
        "type": "reversed",
    }
    assert np.frombuffer(store.get("data/root/a/c0/0"), "<i2").tolist() == [6, 5, 4, 2, 1, 0]
    assert np.array_equal(zf.open_array(store, "a")[...], np.arange(12).reshape(3, 4))


def test_the_layout_value_read_is_written_back_as_read(hierarchy):
    value = {"extension": URI, "type": "backwards", "must_understand": True}
    document = {
        "shape": [4],
        "data_type": "int16",
        "chunk_memory_layout": value,
        "chunk_grid": {"type": "regular", "chunk_shape": [4]},
        "fill_value": 0,
        "codecs": [],
    }
    store = hierarchy({"meta/root/a.array.json": document})
    a = zf.open_array(store, "a")
    a.attrs["touched"] = True  # rewrites the document
    assert doc(store, "meta/root/a.array.json")["chunk_memory_layout"] == value
    a[...] = [1, 2, 3, 4]
    assert np.frombuffer(store.get("data/root/a/c0"), "<i2").tolist() == [4, 3, 2, 1]


def test_the_zarr_python_dialect_refuses_a_layout_zarr_python_cannot_read():
    with pytest.raises(
        MetadataError,
        match="zarr-python 2 reads only the chunk memory "
        "layouts 'C' and 'F', not 'test.reversed'.*'editor' dialect",
    ) as info:
        create(MemoryStore(), "test.reversed", fmt=Draft2022Format(dialect="zarr-python"))
    assert info.value.field == "chunk_memory_layout"


def test_an_unknown_layout_is_refused_naming_the_argument():
    with pytest.raises(zf.errors.UnknownExtensionError, match="unknown memory layout") as info:
        create(MemoryStore(), "test.nowhere")
    assert info.value.field == "order"


def test_array_codecs_after_a_layout_see_the_array_it_hands_them():
    # the 1-D default: a transpose written for the chunk's two axes does not fit
    with pytest.raises(
        MetadataError,
        match=r"the memory layout 'test.reversed' hands the "
        r"codecs an array of shape \[6\] for chunks of \[2, 3\]",
    ) as info:
        create(
            MemoryStore(),
            "test.reversed",
            filters=[{"name": "transpose", "configuration": {"order": [1, 0]}}],
        )
    assert info.value.field == "codecs[1]"
    # a layout handing over 2-D rows takes it, and the stored bytes follow the transpose
    store = MemoryStore()
    a = create(store, "test.rows", filters=[{"name": "transpose", "configuration": {"order": [1, 0]}}])
    a[...] = np.arange(12).reshape(3, 4)
    assert np.frombuffer(store.get("data/root/a/c0/0"), "<i2").tolist() == [0, 4, 1, 5, 2, 6]
    assert np.array_equal(zf.open_array(store, "a")[...], np.arange(12).reshape(3, 4))
