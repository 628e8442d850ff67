"""First interoperability checks with a real zarr-python 3 (both directions).

The full matrix (tensorstore, every data type and codec) is its own issue;
these cases cover the foundation: data types, codecs, edge chunks, 0-d arrays,
fill values, attributes, dimension names and nested groups.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import zarr

import zarrforge as zf

CASES = [
    dict(dtype="float64", shape=(7, 5), chunks=(3, 2), fill_value=float("nan"), compressors="auto"),
    dict(dtype="int16", shape=(9,), chunks=(4,), fill_value=-3, compressors=[{"name": "gzip", "configuration": {"level": 5}}]),
    dict(dtype="uint8", shape=(4, 4, 3), chunks=(2, 3, 3), fill_value=7,
         compressors=[{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 3, "shuffle": "shuffle", "typesize": 1, "blocksize": 0}}]),
    dict(dtype="complex64", shape=(5,), chunks=(2,), fill_value=None, compressors=[{"name": "crc32c"}]),
    dict(dtype="bool", shape=(), chunks=None, fill_value=True, compressors=None),
    dict(dtype="float32", shape=(6, 4), chunks=(4, 4), fill_value=float("-inf"),
         filters=[{"name": "transpose", "configuration": {"order": [1, 0]}}],
         serializer={"name": "bytes", "configuration": {"endian": "big"}}, compressors=None),
]


def _data(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.normal(size=shape) * 50
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.normal(size=shape)
    return np.asarray(values).astype(dtype)


def _zarr_python_metadata(path):
    with open(path / "arr" / "zarr.json") as f:
        return json.load(f)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["dtype"])
def test_written_by_zarrforge_reads_in_zarr_python(tmp_path, case):
    case = dict(case)
    data = _data(case["dtype"], case["shape"])
    a = zf.create_array(str(tmp_path), "arr", attributes={"units": "m", "nested": {"ü": [1, None]}},
                        dimension_names=[f"d{i}" if i % 2 == 0 else None for i in range(len(case["shape"]))],
                        **case)
    a[...] = data
    z = zarr.open_array(str(tmp_path), path="arr", mode="r")
    assert z.shape == a.shape and z.dtype == a.dtype
    assert np.array_equal(z[...], data, equal_nan=True)
    assert dict(z.attrs) == a.attrs.asdict()
    assert list(z.metadata.dimension_names or []) == list(a.dimension_names or [])
    assert json.loads(json.dumps(list(z.metadata.to_dict()["codecs"]))) == a.metadata["codecs"]
    expected_fill = a.fill_value
    assert np.array_equal(np.asarray(z.fill_value), np.asarray(expected_fill), equal_nan=True)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["dtype"])
def test_written_by_zarr_python_reads_in_zarrforge(tmp_path, case):
    case = dict(case)
    data = _data(case["dtype"], case["shape"], seed=1)
    kwargs = {k: v for k, v in case.items() if k not in ("chunks", "compressors")}
    kwargs["chunks"] = case["chunks"] or case["shape"]
    compressors = case["compressors"]
    kwargs["compressors"] = compressors
    z = zarr.create_array(str(tmp_path), name="arr", attributes={"a": [1, 2]},
                          dimension_names=["x"] * len(case["shape"]) or None, **kwargs)
    z[...] = data
    a = zf.open_array(str(tmp_path), "arr")
    assert a.shape == z.shape and a.dtype == z.dtype
    assert np.array_equal(np.asarray(a[...]), data, equal_nan=True)
    assert a.attrs.asdict() == {"a": [1, 2]}
    stored = _zarr_python_metadata(tmp_path)
    ours = a.metadata
    for field in ("shape", "data_type", "chunk_grid", "chunk_key_encoding", "fill_value", "codecs",
                  "attributes"):
        assert ours[field] == stored[field], field


def test_hierarchies_interoperate_both_ways(tmp_path):
    root = zf.create_group(str(tmp_path / "ours"), attributes={"origin": "zarrforge"})
    root.create_group("g").create_array("x", shape=(3,), dtype="int32", compressors=None)[:] = [1, 2, 3]
    z = zarr.open_group(str(tmp_path / "ours"), mode="r")
    assert z.attrs["origin"] == "zarrforge" and z["g/x"][:].tolist() == [1, 2, 3]
    assert sorted(name for name, _ in z.members()) == ["g"]

    theirs = zarr.create_group(str(tmp_path / "theirs"), attributes={"origin": "zarr-python"})
    theirs.create_group("h").create_array("y", shape=(2, 2), dtype="uint16", chunks=(1, 2))[:] = 5
    g = zf.open_group(str(tmp_path / "theirs"), mode="r")
    assert g.attrs["origin"] == "zarr-python"
    assert g["h/y"][...].tolist() == [[5, 5], [5, 5]]
    assert g.tree().splitlines() == ["/", "└── h", "    └── y (2, 2) uint16"]
