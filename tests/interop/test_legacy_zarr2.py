"""Zarr v2 object arrays zarr-python 2.18 wrote with the ``json2`` codec, read by zarrforge.

The fixture is written by the real zarr-python 2.18 (the environment of
``test_zarr2_draft.py``); zarrforge must return the same Python objects, keep
the ``.zarray`` as it was when it rewrites the documents, refuse chunks whose
declared dtype or shape is not the chunk's (numcodecs would allocate the
declared shape), and refuse to write with an error that says so.
"""

from __future__ import annotations

import json
import zlib

import numpy as np
import pytest
from test_zarr2_draft import run_zarr2, zarr2  # noqa: F401  # fixture

import zarrforge as zf
from zarrforge.errors import CorruptChunkError, ZarrforgeError

WRITE_JSON2 = """
import json, sys
import numcodecs, numpy as np, zarr
values = np.empty((3, 4), dtype=object)
items = ["a", 1, [1, 2], {"k": None}, 2.5, None, True, "\\u00fc", [[1]], {}, -3, "x"]
for i, item in enumerate(items):
    values.flat[i] = item
z = zarr.open_array(sys.argv[1], mode="w", shape=(3, 4), chunks=(2, 3), dtype=object,
                    object_codec=numcodecs.JSON(), compressor=numcodecs.Zlib(1))
z[:2] = values[:2]  # the last row stays missing: the fill value
print(json.dumps(z[:].tolist()))
"""


@pytest.fixture()
def json2_array(zarr2, tmp_path):  # noqa: F811
    path = tmp_path / "objects.zarr"
    expected = json.loads(run_zarr2(zarr2, WRITE_JSON2, str(path), cwd=tmp_path))
    return path, expected


def test_zarrforge_reads_json2_object_arrays(json2_array):
    path, expected = json2_array
    a = zf.open_array(str(path), mode="r")
    assert a.dtype == np.dtype(object)
    assert np.asarray(a[:]).tolist() == expected
    assert np.asarray(a[1, 1:3]).tolist() == expected[1][1:3]


def test_json2_zarray_is_kept_when_documents_are_rewritten(json2_array):
    path, _ = json2_array
    before = json.loads((path / ".zarray").read_text())
    zf.open_array(str(path), mode="r+").attrs["k"] = 1
    # zarr-python 2.18 leaves out the default separator; zarrforge writes it, as zarr-python 3
    assert json.loads((path / ".zarray").read_text()) == {**before, "dimension_separator": "."}


def test_writing_json2_chunks_is_refused(json2_array):
    path, expected = json2_array
    a = zf.open_array(str(path), mode="r+")
    with pytest.raises(ZarrforgeError, match="does not write"):
        a[0, 0] = "b"
    assert np.asarray(zf.open_array(str(path), mode="r")[:]).tolist() == expected


@pytest.mark.parametrize(
    "chunk, reason",
    [
        (["a", "b", "<f8", [10**12]], "declares dtype"),  # numcodecs: np.empty(10**12, '<f8')
        ([["a", "b", "c"], ["d", "e", "f"], "|O", [10**12]], "declares shape"),
        ([["a", "b"], ["d", "e", "f"], "|O", [2, 3]], "length 3"),
        ("not a list", "expected a JSON list"),
    ],
)
def test_json2_chunks_declaring_another_shape_or_dtype_are_corrupt(json2_array, chunk, reason):
    path, _ = json2_array
    (path / "0.0").write_bytes(zlib.compress(json.dumps(chunk).encode()))
    with pytest.raises(CorruptChunkError, match=reason):
        zf.open_array(str(path), mode="r")[:]
