"""Interoperability with zarr-python 3's Zarr v2 support, in both directions.

* zarr-python writes (``zarr.create_array(..., zarr_format=2)``), zarrforge
  reads: values, dtype, fill value, attributes, ``_ARRAY_DIMENSIONS``;
* zarrforge writes, zarr-python reads the same;
* with the same arguments both write byte-identical chunks and documents;
* consolidated ``.zmetadata`` written by either is read by the other.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import numcodecs
import numpy as np
import pytest
import zarr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from zarr.dtype import VariableLengthBytes

import zarrforge as zf
from zarrforge import registry
from zarrforge.testing.clocks import gzip_clock_pinned

pytestmark = [
    pytest.mark.filterwarnings("ignore::UserWarning"),
    # fixedscaleoffset casting the NaNs of the sample data to integers
    pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning"),
]

HAVE_DTYPES = "string" in registry.data_types
needs_dtypes = pytest.mark.skipif(not HAVE_DTYPES, reason="zarrforge-dtypes is not installed")


@dataclasses.dataclass(frozen=True)
class Case:
    id: str
    dtype: Any
    shape: tuple[int, ...] = (7, 5)
    chunks: tuple[int, ...] = (3, 2)
    order: str = "C"
    compressor: Any = "default"
    filters: tuple[Any, ...] | None = None
    separator: str = "."
    fill: Any = 0
    attributes: dict[str, Any] = dataclasses.field(default_factory=dict)
    region: Any = (slice(0, 5), slice(1, 5))
    lossy: bool = False  # a filter that rounds: compare with what zarrforge reads back

    def zarr_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "shape": self.shape,
            "chunks": self.chunks,
            "dtype": self.dtype,
            "zarr_format": 2,
            "order": self.order,
            "fill_value": self.fill,
            "attributes": dict(self.attributes),
            "chunk_key_encoding": {"name": "v2", "separator": self.separator},
        }
        if self.compressor != "default":
            kwargs["compressors"] = self.compressor
        if self.filters is not None:
            kwargs["filters"] = list(self.filters)
        return kwargs

    def zarrforge_kwargs(self) -> dict[str, Any]:
        filters = list(self.filters or [])
        if self.order == "F":
            ndim = len(self.shape)
            filters.insert(0, {"name": "transpose", "configuration": {"order": list(range(ndim))[::-1]}})
        kwargs: dict[str, Any] = {
            "shape": self.shape,
            "chunks": self.chunks,
            "dtype": self.dtype,
            "zarr_format": 2,
            "fill_value": self.fill,
            "attributes": dict(self.attributes),
            "filters": filters or None,
            "chunk_key_encoding": {"name": "v2", "separator": self.separator},
        }
        if self.compressor != "default":
            kwargs["compressors"] = self.compressor
        return kwargs


def data_for(dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(42)
    n = int(np.prod(shape))
    if dtype.kind == "T" or dtype.kind == "O":
        if dtype.kind == "T":
            words = ["", "a", "ß日本", "😀" * 3, "x" * 20]
            return np.array([words[i % 5] + str(i) for i in range(n)], dtype=dtype).reshape(shape)
        return np.array([bytes([i % 256]) * (i % 4) for i in range(n)], dtype=object).reshape(shape)
    if dtype.kind == "b":
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, dtype=dtype.newbyteorder("="), endpoint=True).reshape(
            shape
        )
    if dtype.kind in "mM":
        return np.arange(n).astype(dtype).reshape(shape)
    if dtype.kind == "U":
        return np.array([chr(0x61 + i % 26) * (i % 4) for i in range(n)], dtype=dtype).reshape(shape)
    if dtype.kind == "V":
        return np.frombuffer(rng.bytes(n * dtype.itemsize), dtype=dtype).reshape(shape)
    values = rng.normal(0, 100, n)
    if dtype.kind == "c":
        values = values + 1j * rng.normal(0, 100, n)
    values[::7] = np.nan
    return values.astype(dtype.newbyteorder("=")).reshape(shape)


def as_comparable(values: object) -> Any:
    """What zarr-python's reads give (typed as array-or-scalar) or zarrforge's, as plain data."""
    a = np.asarray(values)
    if a.dtype.kind in "TO":
        return a.astype(object).tolist()
    return np.ascontiguousarray(a.astype(a.dtype.newbyteorder("="))).tobytes()


def zp_values(group: zarr.Group, path: str) -> Any:
    """The values of the zarr-python array at ``path`` below ``group``, as a list."""
    node = group[path]
    assert isinstance(node, zarr.Array)
    return np.asarray(node[...]).tolist()


BLOSC = numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)
CASES = [
    Case("f8-nan", "<f8", fill=float("nan")),
    Case("f8-F", "<f8", order="F", fill=-1.5),
    Case("f4-big", ">f4", fill=float("inf")),
    Case("i4-big-F", ">i4", order="F", fill=-3),
    Case("i8-neg", "<i8", fill=-(2**40)),
    Case("u1", "|u1", fill=255),
    Case("u8", "<u8", fill=2**64 - 1, compressor=None),
    Case("i2-zlib", "<i2", compressor=numcodecs.Zlib(level=1)),
    Case("u2-gzip", "<u2", compressor=numcodecs.GZip(level=5)),
    Case("f8-blosc", "<f8", compressor=BLOSC),
    Case("i4-blosc-F", "<i4", order="F", compressor=numcodecs.Blosc(cname="zstd", shuffle=2)),
    Case("u2-blosc-auto", "<u2", compressor=numcodecs.Blosc(shuffle=-1)),
    Case("f4-zstd", "<f4", compressor=numcodecs.Zstd(level=3)),
    Case("i8-lz4", "<i8", compressor=numcodecs.LZ4()),
    Case("i4-delta", "<i4", filters=(numcodecs.Delta(dtype="<i4"),), compressor=numcodecs.Zlib(level=1)),
    Case("i8-delta-astype-F", "<i8", order="F", filters=(numcodecs.Delta(dtype="<i8", astype="<i8"),)),
    Case(
        "f8-fso",
        "<f8",
        filters=(numcodecs.FixedScaleOffset(offset=0, scale=10, dtype="<f8", astype="<i4"),),
        fill=0.0,
        lossy=True,
    ),
    Case("b1", "|b1", fill=True),
    Case("c8", "<c8", fill=complex(1, -2)),
    Case("c16-F", "<c16", order="F", fill=complex(float("nan"), 0)),
    Case("f2", "<f2", fill=0.5),
    Case("nested", "<i2", separator="/"),
    Case("nested-F", "<f4", separator="/", order="F"),
    Case(
        "attrs",
        "<i4",
        attributes={"units": "m", "_ARRAY_DIMENSIONS": ["y", "x"], "nested": {"a": [1, 2.5, None, "s"]}},
    ),
    Case("0d", "<f8", shape=(), chunks=(), region=(), fill=2.5),
    Case("0d-F", "<i4", shape=(), chunks=(), region=(), order="F", fill=-1),
    Case("1d-edge", "<u4", shape=(10,), chunks=(4,), region=(slice(2, 9),)),
    Case(
        "3d",
        "<i2",
        shape=(4, 3, 5),
        chunks=(3, 2, 2),
        order="F",
        region=(slice(1, 4), slice(0, 2), slice(None)),
    ),
    Case("V3", "|V3", fill=b"abc"),
    Case(
        "M8",
        "<M8[s]",
        fill=np.datetime64(0, "s"),
    ),
    Case("m8", "<m8[ms]", fill=np.timedelta64(5, "ms")),
    Case("U3", "<U3", fill="xy"),
    Case("string", "str", fill=""),
    Case("string-F", "str", fill="", order="F", compressor=numcodecs.Zlib(level=1)),
]
CASE_IDS = [case.id for case in CASES]


def _needs(case: Case) -> None:
    if not HAVE_DTYPES and (case.dtype == "str" or np.dtype(case.dtype).kind in "MmU"):
        pytest.skip("needs zarrforge-dtypes")


def _np_dtype(case: Case) -> np.dtype:
    return np.dtypes.StringDType() if case.dtype == "str" else np.dtype(case.dtype)


def _zarr_dtype(case: Case) -> Any:
    return str if case.dtype == "str" else case.dtype


def _write(array: Any, case: Case, data: np.ndarray) -> None:
    if case.region == ():
        array[()] = data[()]
    else:
        array[case.region] = data[case.region]


def _expected(case: Case, data: np.ndarray, fill: Any) -> np.ndarray:
    expected = np.full(data.shape, fill, dtype=data.dtype)
    if case.region == ():
        expected[()] = data[()]
    else:
        expected[case.region] = data[case.region]
    return expected


def _dimension_names(case: Case) -> tuple[str, ...] | None:
    names = case.attributes.get("_ARRAY_DIMENSIONS")
    return tuple(names) if names else None


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_zarr_python_writes_zarrforge_reads(case: Case, tmp_path: Path) -> None:
    _needs(case)
    kwargs = case.zarr_kwargs()
    kwargs["dtype"] = _zarr_dtype(case)
    z = zarr.create_array(str(tmp_path / "arr"), **kwargs)
    data = data_for(_np_dtype(case), case.shape)
    _write(z, case, data)

    a = zf.open_array(str(tmp_path), "arr")
    assert a.metadata_model.format_name == "2"
    assert a.shape == case.shape and a.chunks == case.chunks
    if case.dtype != "str":
        assert a.dtype == np.dtype(case.dtype).newbyteorder("=")
    assert as_comparable(a[()] if case.shape == () else a[:]) == as_comparable(z[...])
    fill = z.fill_value
    assert as_comparable(np.array(a.fill_value, dtype=a.dtype)) == as_comparable(
        np.array(fill, dtype=a.dtype)
    )
    assert a.attrs.asdict() == z.attrs.asdict() == case.attributes
    assert a.dimension_names == _dimension_names(case)
    assert a.metadata[".zarray"] == json.loads((tmp_path / "arr" / ".zarray").read_text())


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_zarrforge_writes_zarr_python_reads(case: Case, tmp_path: Path) -> None:
    _needs(case)
    kwargs = case.zarrforge_kwargs()
    if case.dtype == "str":
        kwargs["dtype"] = "string"
    a = zf.create_array(str(tmp_path), "arr", **kwargs)
    data = data_for(_np_dtype(case), case.shape)
    _write(a, case, data)

    z = zarr.open_array(str(tmp_path / "arr"), mode="r")
    assert z.metadata.zarr_format == 2
    assert z.shape == case.shape and z.chunks == case.chunks
    assert z.metadata.order == case.order
    expected = _expected(case, data, a.fill_value)
    assert as_comparable(z[...]) == as_comparable(a[...])
    if not case.lossy:
        assert as_comparable(z[...]) == as_comparable(expected)
    assert as_comparable(np.array(z.fill_value, dtype=a.dtype)) == as_comparable(
        np.array(a.fill_value, dtype=a.dtype)
    )
    assert z.attrs.asdict() == case.attributes
    group = zarr.open_group(str(tmp_path), mode="r")
    assert group.metadata.zarr_format == 2 and list(group.array_keys()) == ["arr"]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_same_arguments_give_identical_bytes(case: Case, tmp_path: Path) -> None:
    _needs(case)
    kwargs = case.zarr_kwargs()
    kwargs["dtype"] = _zarr_dtype(case)
    z = zarr.create_array(str(tmp_path / "zp"), **kwargs)
    fkwargs = case.zarrforge_kwargs()
    if case.dtype == "str":
        fkwargs["dtype"] = "string"
    a = zf.create_array(str(tmp_path / "zf"), **fkwargs)
    data = data_for(_np_dtype(case), case.shape)
    with gzip_clock_pinned():
        _write(z, case, data)
        _write(a, case, data)

    def files(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    theirs, ours = files(tmp_path / "zp"), files(tmp_path / "zf")
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        assert ours[key] == theirs[key], key


def test_null_fill_value_from_zarr_python(tmp_path: Path) -> None:
    z = zarr.create_array(
        str(tmp_path / "arr"), shape=(4,), chunks=(2,), dtype="<i4", zarr_format=2, fill_value=None
    )
    z[:2] = [5, 6]
    a = zf.open_array(str(tmp_path), "arr", mode="r+")
    assert a[:].tolist() == [5, 6, 0, 0] == np.asarray(z[:]).tolist()
    a.attrs["k"] = "v"
    z2 = zarr.open_array(str(tmp_path / "arr"))
    assert z2.fill_value is None and z2.attrs["k"] == "v"


@needs_dtypes
def test_variable_length_bytes_both_ways(tmp_path: Path) -> None:
    values = np.array([b"", b"a", b"\x00\xff", b"xyz" * 10], dtype=object)
    z = zarr.create_array(
        str(tmp_path / "zp"), shape=(4,), chunks=(3,), zarr_format=2, dtype=VariableLengthBytes()
    )
    z[:] = values
    a = zf.open_array(str(tmp_path), "zp")
    assert a.data_type.to_json() == "bytes"
    assert a[:].tolist() == values.tolist()
    b = zf.create_array(str(tmp_path), "zf", shape=(4,), chunks=(3,), dtype="bytes", zarr_format=2)
    b[:] = values
    doc = json.loads((tmp_path / "zf" / ".zarray").read_text())
    assert (doc["dtype"], doc["filters"], doc["fill_value"]) == ("|O", [{"id": "vlen-bytes"}], "")
    assert np.asarray(zarr.open_array(str(tmp_path / "zf"))[:]).tolist() == values.tolist()


def test_hierarchy_from_zarr_python(tmp_path: Path) -> None:
    root = zarr.create_group(str(tmp_path), zarr_format=2, attributes={"title": "t"})
    sub = root.create_group("sub", attributes={"k": 1})
    sub.create_array("x", shape=(3,), dtype="i2", fill_value=1)
    root.create_array("y", shape=(2, 2), dtype="f4", chunk_key_encoding={"name": "v2", "separator": "/"})
    g = zf.open_group(str(tmp_path), mode="r")
    assert g.metadata_model.format_name == "2"
    assert g.attrs.asdict() == {"title": "t"}
    assert [n for n, _ in g.members(max_depth=None)] == ["sub", "sub/x", "y"]
    assert g["sub"].attrs.asdict() == {"k": 1}
    assert g["sub/x"][:].tolist() == [1, 1, 1]


def test_hierarchy_from_zarrforge(tmp_path: Path) -> None:
    root = zf.create_group(str(tmp_path), zarr_format=2, attributes={"title": "t"})
    root.create_group("sub", attributes={"k": 1}).create_array("x", shape=(3,), dtype="int16", fill_value=1)
    g = zarr.open_group(str(tmp_path), mode="r")
    assert g.metadata.zarr_format == 2
    assert g.attrs.asdict() == {"title": "t"}
    assert sorted(n for n, _ in g.members(max_depth=None)) == ["sub", "sub/x"]
    assert zp_values(g, "sub/x") == [1, 1, 1]


def _build_zarr_python(path: Path) -> None:
    root = zarr.create_group(str(path), zarr_format=2, attributes={"r": 1})
    sub = root.create_group("sub")
    sub.create_array("x", shape=(3,), dtype="i2", attributes={"_ARRAY_DIMENSIONS": ["t"]})[:] = 7
    root.create_array("y", shape=(2, 2), dtype="f4", fill_value=float("nan"))


def _build_zarrforge(path: Path) -> None:
    root = zf.create_group(str(path), zarr_format=2, attributes={"r": 1})
    sub = root.create_group("sub")
    sub.create_array("x", shape=(3,), dtype="int16", dimension_names=["t"])[:] = 7
    root.create_array("y", shape=(2, 2), dtype="float32", fill_value=float("nan"))


@pytest.mark.parametrize("writer", ["zarr-python", "zarrforge"])
@pytest.mark.parametrize("consolidator", ["zarr-python", "zarrforge"])
def test_consolidated_metadata(writer: str, consolidator: str, tmp_path: Path) -> None:
    (_build_zarr_python if writer == "zarr-python" else _build_zarrforge)(tmp_path)
    if consolidator == "zarr-python":
        zarr.consolidate_metadata(str(tmp_path))
    else:
        zf.consolidate_metadata(str(tmp_path))
    doc = json.loads((tmp_path / ".zmetadata").read_text())
    assert doc["zarr_consolidated_format"] == 1
    assert {"sub/x/.zarray", "sub/.zgroup", "y/.zarray", ".zgroup"} <= set(doc["metadata"])

    # Remove the per-node documents: both readers must work from .zmetadata alone.
    for key in ("sub/x/.zarray", "sub/x/.zattrs", "y/.zarray", "sub/.zgroup"):
        os.remove(tmp_path / key)
    g = zf.open_group(str(tmp_path), mode="r")
    assert g.metadata_model.consolidated is not None
    assert [n for n, _ in g.members(max_depth=None)] == ["sub", "sub/x", "y"]
    x = g["sub/x"]
    assert x[:].tolist() == [7, 7, 7] and x.dimension_names == ("t",)
    assert np.isnan(g["y"].fill_value) and g.attrs.asdict() == {"r": 1}

    zg = zarr.open_consolidated(str(tmp_path))
    assert sorted(n for n, _ in zg.members(max_depth=None)) == ["sub", "sub/x", "y"]
    assert zp_values(zg, "sub/x") == [7, 7, 7]
    assert zg["sub/x"].attrs.asdict() == {"_ARRAY_DIMENSIONS": ["t"]}


def test_zarrforge_keeps_consolidated_metadata_current(tmp_path: Path) -> None:
    _build_zarrforge(tmp_path)
    zf.consolidate_metadata(str(tmp_path))
    g = zf.open_group(str(tmp_path), mode="r+")
    g["sub"].create_array("new", shape=(2,), dtype="uint8", fill_value=9)
    g["y"].attrs["units"] = "K"
    del g["sub/x"]
    doc = json.loads((tmp_path / ".zmetadata").read_text())["metadata"]
    assert "sub/new/.zarray" in doc and "sub/x/.zarray" not in doc
    assert doc["y/.zattrs"] == {"units": "K"}
    zg = zarr.open_consolidated(str(tmp_path))
    assert zp_values(zg, "sub/new") == [9, 9]
    assert zg["y"].attrs["units"] == "K"


# --- randomised: documents and values agree with zarr-python -----------------------------

_DTYPES = ["|b1", "|i1", "<i2", ">i4", "<i8", "|u1", ">u2", "<u4", "<u8", "<f2", "<f4", ">f8", "<c8", ">c16"]
_COMPRESSORS = [
    None,
    {"id": "zlib", "level": 1},
    {"id": "gzip", "level": 2},
    {"id": "zstd", "level": 1},
    {"id": "zstd", "level": 2, "checksum": True},
    {"id": "blosc", "cname": "lz4", "clevel": 1, "shuffle": 1, "blocksize": 0},
    {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0},
    {"id": "blosc", "cname": "blosclz", "clevel": 5, "shuffle": -1, "blocksize": 0},
    {"id": "lz4", "acceleration": 1},
]


@st.composite
def arrays(draw):
    ndim = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(0, 6), min_size=ndim, max_size=ndim)))
    chunks = tuple(draw(st.integers(1, 4)) for _ in shape)
    dtype = draw(st.sampled_from(_DTYPES))
    return {
        "shape": shape,
        "chunks": chunks,
        "dtype": dtype,
        "order": draw(st.sampled_from("CF")),
        "separator": draw(st.sampled_from("./")),
        "compressor": draw(st.sampled_from(_COMPRESSORS)),
        "seed": draw(st.integers(0, 2**16)),
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=arrays())
def test_random_arrays_match_zarr_python(spec, tmp_path_factory) -> None:
    root = tmp_path_factory.mktemp("rand")
    ndim = len(spec["shape"])
    z = zarr.create_array(
        str(root / "zp"),
        shape=spec["shape"],
        chunks=spec["chunks"],
        dtype=spec["dtype"],
        zarr_format=2,
        order=spec["order"],
        fill_value=0,
        compressors=spec["compressor"],
        chunk_key_encoding={"name": "v2", "separator": spec["separator"]},
    )
    filters = (
        [{"name": "transpose", "configuration": {"order": list(range(ndim))[::-1]}}]
        if spec["order"] == "F"
        else None
    )
    a = zf.create_array(
        str(root / "zf"),
        shape=spec["shape"],
        chunks=spec["chunks"],
        dtype=spec["dtype"],
        zarr_format=2,
        fill_value=0,
        filters=filters,
        compressors=spec["compressor"],
        chunk_key_encoding=spec["separator"],
    )
    data = data_for(np.dtype(spec["dtype"]), spec["shape"])
    with gzip_clock_pinned():
        z[...] = data
        a[...] = data
    files_zp = {p.relative_to(root / "zp"): p.read_bytes() for p in (root / "zp").rglob("*") if p.is_file()}
    files_zf = {p.relative_to(root / "zf"): p.read_bytes() for p in (root / "zf").rglob("*") if p.is_file()}
    assert files_zf == files_zp
    assert as_comparable(zf.open_array(str(root / "zp"))[...]) == as_comparable(z[...])
