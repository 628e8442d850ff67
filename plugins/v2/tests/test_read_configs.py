"""Rewriting a v2 array's ``.zarray`` reproduces the codec configurations read.

numcodecs' blosc ``shuffle: -1`` (auto) is resolved into the v3 ``blosc`` codec, which
cannot state "auto"; the format keeps the configuration read in the model's
``format_data`` (``zarrforge_v2.read_configs``), never as an attribute on the codec, which
belongs to another plugin.
"""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest

import zarrforge as zf
from zarrforge import plugin_api as c
from zarrforge_std.stores.memory import MemoryStore

BLOSC_CONFIGS = [
    pytest.param(
        {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": -1, "blocksize": 0}, id="auto-shuffle"
    ),
    pytest.param(
        {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": -1}, id="auto-shuffle-defaults-left-out"
    ),
    pytest.param(
        {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": -1, "blocksize": 0, "typesize": 2},
        id="auto-shuffle-typesize-given",
    ),
]


def zarray(compressor):
    """A ``.zarray`` as zarr-python 3 writes it (its key order, two-space indentation)."""
    document = {
        "shape": [5],
        "chunks": [2],
        "dtype": "<u2",
        "fill_value": 0,
        "order": "C",
        "filters": None,
        "dimension_separator": ".",
        "compressor": compressor,
        "zarr_format": 2,
    }
    return json.dumps(document, indent=2).encode("ascii")


def read(compressor):
    store = MemoryStore()
    store.set("a/.zarray", zarray(compressor))
    return store, zf.open_array(store, "a", mode="r+")


@pytest.mark.parametrize("compressor", BLOSC_CONFIGS)
def test_rewriting_the_zarray_reproduces_the_compressor_read(compressor):
    store, array = read(compressor)
    array[...] = np.arange(5, dtype="<u2")
    array.resize((7,))  # two real rewrites of .zarray
    array.resize((5,))
    assert store.get("a/.zarray") == zarray(compressor)
    assert zf.open_array(store, "a")[...].tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("compressor", BLOSC_CONFIGS)
def test_reading_sets_no_attribute_on_the_codec(compressor):
    _, array = read(compressor)
    for codec in array.metadata_model.codecs:
        fresh = c.codec_from_json(codec.to_json(), field="codecs")
        assert vars(codec).keys() == vars(fresh).keys(), codec


@pytest.mark.parametrize("compressor", BLOSC_CONFIGS)
def test_the_configuration_survives_pickling_and_copying_the_model(compressor):
    _, array = read(compressor)
    model = array.metadata_model
    for kept in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model), model.replace()):
        assert array.format.document(kept)[".zarray"]["compressor"] == compressor


def test_a_codec_put_in_by_replace_states_its_own_configuration():
    _, array = read(BLOSC_CONFIGS[0].values[0])
    model = array.metadata_model
    blosc = c.codec_from_json(model.codecs[-1].to_json(), field="codecs")
    assert blosc == model.codecs[-1]  # equal, but not the codec that was read
    written = array.format.document(model.replace(codecs=(*model.codecs[:-1], blosc)))
    assert written[".zarray"]["compressor"]["shuffle"] == 1  # the shuffle it resolved
