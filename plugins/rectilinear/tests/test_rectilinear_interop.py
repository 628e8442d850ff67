"""Other implementations and the rectilinear grid.

Neither peer installed here reads rectilinear arrays: zarr-python 3.1 knows
only the ``regular`` grid (rectilinear support arrived in later releases,
behind a feature flag) and tensorstore's ``zarr3`` driver (0.1.86) accepts
only ``regular``. The first two tests pin that down; when a peer learns the
grid they fail, and should become read-back tests.

What the peers can check today is the chunk layout: the specification says a
regular grid converts losslessly to a rectilinear one by copying
``chunk_shape`` into ``chunk_shapes``. So an array zarrforge writes with
integer ``chunk_shapes`` must be readable by the peers once its grid is
rewritten as ``regular`` (same keys, same chunk bytes), and the reverse.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorstore as ts
import zarr

import zarrforge as zf


def grid_json(*chunk_shapes):
    return {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": list(chunk_shapes)}}


def write(path, shape, *chunk_shapes):
    a = zf.create_array(str(path), shape=shape, dtype="int32", chunks=grid_json(*chunk_shapes), fill_value=-1)
    x = np.arange(np.prod(shape), dtype="int32").reshape(shape)
    a[...] = x
    return x


def rewrite_grid(path, grid):
    meta = path / "zarr.json"
    doc = json.loads(meta.read_text())
    doc["chunk_grid"] = grid
    meta.write_text(json.dumps(doc))


def tensorstore_read(path):
    spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}
    return ts.open(spec, read=True).result().read().result()


def test_zarr_python_3_1_does_not_read_rectilinear_arrays(tmp_path):
    write(tmp_path / "a.zarr", (10, 7), [3, 5, 2], [[2, 3], 1])
    # zarr-python 3.1 parses chunk grids by name and knows only "regular".
    with pytest.raises(ValueError, match="Unknown chunk grid. Got rectilinear"):
        zarr.open_array(str(tmp_path / "a.zarr"), mode="r")


def test_tensorstore_does_not_read_rectilinear_arrays(tmp_path):
    write(tmp_path / "a.zarr", (10, 7), [3, 5, 2], [[2, 3], 1])
    # tensorstore's zarr3 driver requires chunk_grid.name == "regular".
    with pytest.raises(ValueError, match='Expected "regular", but received: "rectilinear"'):
        tensorstore_read(tmp_path / "a.zarr")


def test_integer_chunk_shapes_lay_chunks_out_like_a_regular_grid(tmp_path):
    path = tmp_path / "a.zarr"
    x = write(path, (10, 7), 4, 3)
    rewrite_grid(path, {"name": "regular", "configuration": {"chunk_shape": [4, 3]}})
    np.testing.assert_array_equal(zarr.open_array(str(path), mode="r")[...], x)
    np.testing.assert_array_equal(tensorstore_read(path), x)


def test_a_regular_array_of_a_peer_converts_to_rectilinear(tmp_path):
    path = tmp_path / "a.zarr"
    z = zarr.create_array(str(path), shape=(11, 6), chunks=(4, 4), dtype="uint16", fill_value=3)
    x = np.arange(66, dtype="uint16").reshape(11, 6)
    z[...] = x
    z[8:, 4:] = 3  # the fill value: that chunk is not stored
    x[8:, 4:] = 3
    rewrite_grid(path, grid_json(4, 4))
    a = zf.open_array(str(path))
    assert a.cdata_shape == (3, 2) and a.chunks == (4, 4)
    np.testing.assert_array_equal(a[...], x)
    assert sorted(a.stored_chunks()) == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]
