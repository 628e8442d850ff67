"""The grid's metadata against the specification's JSON schema.

``data/rectilinear.schema.json`` is the ``schema.json`` of
zarr-extensions/chunk-grids/rectilinear (CC BY 3.0), vendored unchanged.

* every document zarrforge writes (as read, and after any resize) is valid;
* fuzzed ``chunk_shapes``: whatever the schema rejects, zarrforge rejects
  with a ``MetadataError``; whatever it accepts, zarrforge accepts and writes
  back unchanged. Two deliberate differences: zarrforge rejects floats such
  as ``2.0`` (JSON Schema counts them as integers; the regular grid of this
  project refuses them too), and it rejects configuration keys other than
  ``kind`` and ``chunk_shapes`` (the schema does not forbid them). The
  schema cannot check that the edges cover the array (it does not know the
  shape); the fuzzed arrays have length 0, which any edges cover.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrforge.errors import MetadataError
from zarrforge_rectilinear import RectilinearChunkGrid

SCHEMA = json.loads((Path(__file__).parent / "data" / "rectilinear.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def grid_json(chunk_shapes):
    return {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": chunk_shapes}}


def has_float(value):
    if isinstance(value, list):
        return any(has_float(v) for v in value)
    return isinstance(value, float)


scalars = st.one_of(st.integers(-2, 6), st.booleans(), st.sampled_from([2.0, 0.5, None, "3"]))
items = st.one_of(scalars, st.lists(scalars, max_size=3), st.lists(st.lists(scalars, max_size=2), max_size=2))
entries = st.one_of(scalars, st.lists(items, max_size=4))


@settings(max_examples=400, deadline=None)
@given(st.lists(entries, max_size=3))
def test_zarrforge_agrees_with_the_schema(chunk_shapes):
    doc = grid_json(chunk_shapes)
    shape = (0,) * len(chunk_shapes)
    schema_ok = VALIDATOR.is_valid(doc)
    try:
        grid = RectilinearChunkGrid.from_json("rectilinear", doc["configuration"], shape)
    except MetadataError:
        assert not schema_ok or has_float(chunk_shapes)
        return
    assert schema_ok
    assert grid.to_json() == doc


@st.composite
def valid_documents(draw):
    ndim = draw(st.integers(0, 3))
    shape, chunk_shapes = [], []
    for _ in range(ndim):
        if draw(st.booleans()):
            chunk_shapes.append(draw(st.integers(1, 9)))
            shape.append(draw(st.integers(0, 40)))
            continue
        entry = draw(
            st.lists(
                st.one_of(st.integers(1, 9), st.lists(st.integers(1, 9), min_size=2, max_size=2)), max_size=5
            )
        )
        total = sum(i[0] * i[1] if isinstance(i, list) else i for i in entry)
        chunk_shapes.append(entry)
        shape.append(draw(st.integers(0, total)))
    return tuple(shape), chunk_shapes


@settings(max_examples=200, deadline=None)
@given(valid_documents(), st.data())
def test_written_documents_are_valid_after_any_resize(document, data):
    shape, chunk_shapes = document
    grid = RectilinearChunkGrid.from_json("rectilinear", grid_json(chunk_shapes)["configuration"], shape)
    assert grid.to_json() == grid_json(chunk_shapes)
    for _ in range(3):
        assert VALIDATOR.is_valid(grid.to_json()), grid.to_json()
        new_shape = tuple(data.draw(st.integers(0, 60)) for _ in shape)
        grid = grid.with_shape(new_shape)
        assert grid.shape == new_shape
