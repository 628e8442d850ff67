"""The node model's ``format_data``: a format's side data, carried along but never compared.

The contract is in :mod:`zarrforge.abc.metadata`; the draft-2022 and v2 formats' own tests
check that what they keep there makes a rewrite reproduce the document read.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import zarrforge as zf


def model():
    return zf.create_array(None, "a", shape=(4,), chunks=(2,), dtype="int8", compressors=None).metadata_model


def test_a_model_built_afresh_has_none():
    assert model().format_data == {}
    assert zf.create_group(None).metadata_model.format_data == {}


def test_it_takes_no_part_in_equality_or_repr():
    plain = model()
    marked = dataclasses.replace(plain, format_data={"example": "side data"})
    assert marked == plain
    assert "side data" not in repr(marked) and "format_data" not in repr(marked)


def test_replace_carries_it_along():
    marked = dataclasses.replace(model(), format_data={"example": "side data"})
    assert marked.replace(shape=(8,)).format_data == {"example": "side data"}
    assert dataclasses.replace(marked, attributes={"a": 1}).format_data == {"example": "side data"}


def test_pickling_and_copying_keep_a_codec_it_names_the_codec_of_the_model():
    plain = model()
    marked = dataclasses.replace(plain, format_data={"example": (plain.codecs[-1], "side data")})
    for again in (pickle.loads(pickle.dumps(marked)), copy.deepcopy(marked)):
        assert again.format_data["example"][0] is again.codecs[-1]
