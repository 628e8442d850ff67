"""Reading a draft node and writing it back reproduces the document read, spellings included.

The draft names one codec or data type several ways; the format keeps the spellings it read
in the model's ``format_data`` (``zarrforge_draft2022.spellings``), never as attributes on the
codec and data type objects, which belong to other plugins.
"""

from __future__ import annotations

import contextlib
import copy
import pickle

import pytest
from _draft_helpers import doc

import zarrforge as zf
from zarrforge import plugin_api as c
from zarrforge_draft2022 import Draft2022Format, FallbackDataTypeWarning
from zarrforge_draft2022.documents import dump
from zarrforge_std.stores.memory import MemoryStore

GZIP_CODECS_URI = "https://purl.org/zarr/spec/codecs/gzip/1.0"  # the codec documents' family
ENDIAN_CODECS_URI = "https://purl.org/zarr/spec/codecs/endian/1.0"
GRID = {"type": "regular", "chunk_shape": [2], "separator": "/"}

# The editor dialect, in the order it writes fields: a numpy-style type name (written fresh
# it would be "int16"), codec URIs of the ".../codecs/..." family (fresh: ".../codec/...")
# and an endian codec listed though the type name states the byte order (fresh: not listed).
EDITOR = {
    "shape": [4],
    "data_type": "<i2",
    "chunk_grid": GRID,
    "chunk_memory_layout": "C",
    "codecs": [
        {"type": ENDIAN_CODECS_URI, "configuration": {"endian": "little"}},
        {"type": GZIP_CODECS_URI, "configuration": {"level": 9}},
    ],
    "fill_value": 0,
    "extensions": [],
    "attributes": {"k": 1},
}
# zarr-python's dialect: an extension data type no plugin understands, read as its fallback
# (fresh: "<i4"), and a compressor named by the ".../codecs/..." URI.
ZARR_PYTHON = {
    "shape": [4],
    "data_type": {"extension": "https://example.org/dtypes/money", "type": "money", "fallback": "<i4"},
    "chunk_grid": GRID,
    "chunk_memory_layout": "C",
    "compressor": {"codec": GZIP_CODECS_URI, "configuration": {"level": 1}},
    "fill_value": 0,
    "extensions": [],
    "attributes": {"k": 1},
}
CASES = [
    pytest.param(EDITOR, "editor", id="editor"),
    pytest.param(ZARR_PYTHON, "zarr-python", id="zarr-python"),
]


def read(hierarchy, document, dialect):
    store = hierarchy({"meta/root/a.array.json": dump(document, dialect)}, dialect=dialect)
    warns = pytest.warns(FallbackDataTypeWarning) if dialect == "zarr-python" else contextlib.nullcontext()
    with warns:
        array = zf.open_array(store, "a", mode="r+")
    return store, array


@pytest.mark.filterwarnings("ignore::zarrforge_draft2022.FallbackDataTypeWarning")
@pytest.mark.parametrize("document,dialect", CASES)
def test_writing_back_reproduces_the_document_read(hierarchy, document, dialect):
    store, array = read(hierarchy, document, dialect)
    original = store.get("meta/root/a.array.json")
    assert array.format.render(array.metadata_model) == original
    array.attrs["k"] = 2  # a real rewrite of the node's document
    array.attrs["k"] = 1
    assert store.get("meta/root/a.array.json") == original
    assert doc(store, "meta/root/a.array.json") == document


@pytest.mark.filterwarnings("ignore::zarrforge_draft2022.FallbackDataTypeWarning")
@pytest.mark.parametrize("document,dialect", CASES)
def test_reading_sets_no_attribute_on_other_plugins_objects(hierarchy, document, dialect):
    _, array = read(hierarchy, document, dialect)
    model = array.metadata_model
    fresh = [
        c.data_type_from_json(model.data_type.to_json()),
        *(c.codec_from_json(k.to_json(), field="codecs") for k in model.codecs),
    ]
    for read_object, made_object in zip([model.data_type, *model.codecs], fresh):
        assert vars(read_object).keys() == vars(made_object).keys(), read_object


@pytest.mark.filterwarnings("ignore::zarrforge_draft2022.FallbackDataTypeWarning")
@pytest.mark.parametrize("document,dialect", CASES)
def test_the_spellings_survive_pickling_and_copying_the_model(hierarchy, document, dialect):
    store, array = read(hierarchy, document, dialect)
    original = store.get("meta/root/a.array.json")
    for model in (
        pickle.loads(pickle.dumps(array.metadata_model)),
        copy.deepcopy(array.metadata_model),
        array.metadata_model.replace(shape=(4,)),
    ):
        assert array.format.render(model) == original


@pytest.mark.filterwarnings("ignore::zarrforge_draft2022.FallbackDataTypeWarning")
def test_a_codec_put_in_by_replace_is_spelled_afresh(hierarchy):
    _, array = read(hierarchy, EDITOR, "editor")
    model = array.metadata_model
    gzip = c.codec_from_json({"name": "gzip", "configuration": {"level": 9}}, field="codecs")
    assert gzip == model.codecs[-1]  # equal, but not the codec that was read
    rewritten = array.format.document(model.replace(codecs=(*model.codecs[:-1], gzip)))
    assert rewritten["codecs"][-1]["type"] == "https://purl.org/zarr/spec/codec/gzip/1.0"
    assert rewritten["codecs"][0]["type"] == ENDIAN_CODECS_URI  # still the codec read
    assert rewritten["data_type"] == "<i2"


@pytest.mark.parametrize("dialect", ["editor", "zarr-python"])
def test_a_codec_given_by_uri_at_creation_is_written_under_that_uri(dialect):
    store = MemoryStore()
    array = zf.create_array(
        store,
        "a",
        shape=(4,),
        chunks=(2,),
        dtype="uint8",
        compressors=[{"type": GZIP_CODECS_URI, "configuration": {"level": 3}}],
        fmt=Draft2022Format(dialect=dialect),
    )
    written = doc(store, "meta/root/a.array.json")
    listed = written["compressor"]["codec"] if dialect == "zarr-python" else written["codecs"][-1]["type"]
    assert listed == GZIP_CODECS_URI
    assert array.format.render(zf.open_array(store, "a").metadata_model) == store.get(
        "meta/root/a.array.json"
    )
