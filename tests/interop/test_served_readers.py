"""``zarrforge serve`` read by the peers over HTTP: every format and store zarrforge reads.

Each source below is written by the implementation that writes it in the wild (zarr-python
3.1 for v3 and v2, tensorstore for v3, zarr-python 2.18 for the 2022 draft, h5py and
kerchunk for references) or, for what only zarrforge writes (a third-party codec, a
value-changing extension, a rectilinear grid), by zarrforge; then served on 127.0.0.1
and read over HTTP by zarr-python 3.1 (this environment), zarr-python 3.4.2 (its own
environment, ``_side_venv.ensure_zarr34_venv``) and tensorstore 0.1.86. Every array
each reader finds must equal, element for element, what zarrforge reads from the
source directly; the tree each reader lists must be the source's. The zip and S3 stores
(a URL pipeline, and moto's S3 server on 127.0.0.1) are served the same way.

Also checked per source: which arrays were passed through and which re-encoded (the
translation table of docs/serve.md), and that a passed-through chunk is the source's
stored bytes.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tensorstore as ts
import zarr
from _side_venv import ensure_zarr2_venv, run_script
from zarr.codecs import GzipCodec

import zarrforge as zf
from zarrforge_serve import ServedHierarchy
from zarrforge_serve.testing import Servers, request

# --------------------------------------------------------------------------------------------
# sources: each builds a tree under ``base`` and returns (source, storage_options, expected
# translation per array path: "passthrough" or "re-encoded")


def zarr_python_v3(base: Path) -> tuple[str, dict[str, Any] | None, dict[str, str]]:
    root = str(base / "zp3.zarr")
    group = zarr.open_group(root, mode="w", zarr_format=3)
    group.attrs["made_by"] = "zarr-python"
    a = group.create_array("ints", shape=(25, 17), chunks=(10, 6), dtype="int32", fill_value=-5)
    a[:20] = np.arange(20 * 17, dtype="int32").reshape(20, 17)
    b = group.create_array(
        "gzip_f8", shape=(30,), chunks=(7,), dtype="float64", compressors=[GzipCodec(level=5)]
    )
    b[:] = np.linspace(-1, 1, 30)
    s = group.create_array("sharded", shape=(32, 32), chunks=(8, 8), shards=(16, 16), dtype="uint16")
    s[:24] = np.arange(24 * 32, dtype="uint16").reshape(24, 32)
    t = group.create_array("text", shape=(6,), chunks=(4,), dtype=str)
    t[:] = ["a", "bé", "", "zarr", "served", "ünï"]
    dotted = group.create_array(
        "dotted_keys",
        shape=(6, 6),
        chunks=(4, 4),
        dtype="int8",
        chunk_key_encoding={"name": "v2", "separator": "."},
    )
    dotted[:] = np.arange(36, dtype="int8").reshape(6, 6)
    sub = group.create_group("sub")
    sub.attrs["level"] = 1
    sub.create_array("flags", shape=(9,), chunks=(4,), dtype="bool")[:] = [True, False, True] * 3
    sub.create_array("scalar", shape=(), dtype="float32", fill_value=0)[...] = 2.5
    # "dotted_keys" is stored under v2-style keys ("0.1") and served under the default ones ("c/0/1")
    names = ("ints", "gzip_f8", "sharded", "text", "dotted_keys", "sub/flags", "sub/scalar")
    expected = dict.fromkeys(names, "passthrough")
    return root, None, expected


def tensorstore_v3(base: Path) -> tuple[str, dict[str, Any] | None, dict[str, str]]:
    root = base / "ts.zarr"
    spec = {
        "driver": "zarr3",
        "kvstore": {"driver": "file", "path": str(root / "shard_blosc")},
        "metadata": {
            "shape": [20, 30],
            "data_type": "int16",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [10, 30]}},
            "codecs": [
                {
                    "name": "sharding_indexed",
                    "configuration": {
                        "chunk_shape": [5, 10],
                        "codecs": [
                            {"name": "bytes", "configuration": {"endian": "little"}},
                            {"name": "blosc"},
                        ],
                    },
                }
            ],
        },
        "create": True,
        "delete_existing": True,
    }
    arr = ts.open(spec).result()
    arr[:15].write(np.arange(15 * 30, dtype="int16").reshape(15, 30)).result()
    zf.open_group(str(root), mode="a")  # the root group tensorstore leaves out
    return str(root), None, {"shard_blosc": "passthrough"}


def zarr_python_v2(base: Path) -> tuple[str, dict[str, Any] | None, dict[str, str]]:
    import numcodecs

    root = str(base / "zp2.zarr")
    group = zarr.open_group(root, mode="w", zarr_format=2)
    group.attrs["made_by"] = "zarr-python, v2"
    z = group.create_array(
        "zlib", shape=(12, 9), chunks=(5, 5), dtype="<i2", compressors=numcodecs.Zlib(level=1)
    )
    z[:10] = np.arange(90, dtype="<i2").reshape(10, 9)
    bl = group.create_array(
        "blosc", shape=(50,), chunks=(16,), dtype="<f4", compressors=numcodecs.Blosc(cname="lz4", shuffle=1)
    )
    bl[:] = np.arange(50, dtype="<f4") / 3
    d = group.create_array(
        "delta_gzip",
        shape=(40,),
        chunks=(15,),
        dtype="<i8",
        filters=[numcodecs.Delta(dtype="<i8")],
        compressors=numcodecs.GZip(level=3),
    )
    d[:] = np.arange(40, dtype="<i8") ** 2
    f = group.create_array("big_f", shape=(6, 7), chunks=(4, 4), dtype=">u4", order="F", compressors=None)
    f[:] = np.arange(42, dtype=">u4").reshape(6, 7)
    s = group.create_array("strings", shape=(5,), chunks=(3,), dtype=str)
    s[:] = ["x", "yy", "", "zzz", "ω"]
    expected = {
        "zlib": "re-encoded",
        "blosc": "passthrough",
        "delta_gzip": "re-encoded",
        "big_f": "passthrough",
        "strings": "passthrough",
    }
    return root, None, expected


DRAFT_WRITER = """
import sys
import numpy as np, numcodecs, zarr
from zarr._storage.v3 import DirectoryStoreV3
from zarr._storage.v3_storage_transformers import ShardingStorageTransformer
store = DirectoryStoreV3(sys.argv[1])
zarr.group(store=store, zarr_version=3).attrs["made_by"] = "zarr-python 2.18"
a = zarr.create(store=store, path="plain", shape=(14, 9), chunks=(5, 4), dtype="<i4",
                compressor=numcodecs.GZip(level=1), fill_value=-1, zarr_version=3)
a[:12] = np.arange(12 * 9, dtype="<i4").reshape(12, 9)
b = zarr.create(store=store, path="grp/sharded", shape=(8, 9), chunks=(2, 3), dtype="<u2",
                compressor=numcodecs.Zstd(level=1), fill_value=7, zarr_version=3,
                storage_transformers=[ShardingStorageTransformer("indexed", [2, 2])])
b[:6] = np.arange(6 * 9, dtype="<u2").reshape(6, 9)
"""


def draft_2022(base: Path) -> tuple[str, dict[str, Any] | None, dict[str, str]]:
    if os.environ.get("ZARRFORGE_SKIP_ZARR2") == "1":
        pytest.skip("ZARRFORGE_SKIP_ZARR2=1: the 2022 draft's writer (zarr-python 2.18) explicitly skipped")
    root = base / "draft.zarr"
    env = {"ZARR_V3_EXPERIMENTAL_API": "1", "ZARR_V3_SHARDING": "1", "PYTHONWARNINGS": "ignore"}
    run_script(ensure_zarr2_venv(), DRAFT_WRITER, [str(root)], label="zarr-python 2.18", cwd=base, env=env)
    # the draft's gzip is v3's gzip (the same stream); its sharding is a storage transformer
    return str(root), None, {"plain": "passthrough", "grp/sharded": "re-encoded"}


def kerchunk_references(base: Path) -> tuple[str, dict[str, Any] | None, dict[str, str]]:
    import h5py
    from kerchunk.hdf import SingleHdf5ToZarr

    h5 = base / "source.h5"
    with h5py.File(h5, "w") as f:
        f.attrs["title"] = "kerchunk"
        f.create_dataset(
            "temperature",
            data=np.linspace(270, 300, 600).reshape(20, 30).astype("float32"),
            chunks=(8, 10),
            compression="gzip",
            shuffle=True,
        )
        f.create_dataset("plain", data=np.arange(24, dtype="int16").reshape(4, 6), chunks=(2, 3))
    refs = SingleHdf5ToZarr(str(h5), inline_threshold=0).translate()
    (base / "refs.json").write_text(json.dumps(refs))
    options = {"fo": str(base / "refs.json"), "remote_protocol": "file"}
    # an HDF5 chunk is a v2 chunk here: shuffle and zlib (v2's "zlib" is not v3's gzip)
    return "reference://", options, {"temperature": "re-encoded", "plain": "passthrough"}


def zarrforge_only(base: Path) -> tuple[str, dict[str, Any] | None, dict[str, str]]:
    root = str(base / "zf.zarr")
    group = zf.open_group(root, mode="w")
    bitround = group.create_array(
        "bitround",
        shape=(64,),
        chunks=(16,),
        dtype="float32",
        filters=[{"name": "zf_example.bitround", "configuration": {"keepbits": 4}}],
    )
    bitround[:] = np.linspace(0, 10, 64, dtype="float32")
    scaled = group.create_array(
        "scaled",
        shape=(20,),
        chunks=(8,),
        dtype="float64",
        extensions=[{"name": "example.scale", "configuration": {"factor": 0.25}}],
    )
    scaled[:] = np.arange(20) * 0.25
    rect = group.create_array(
        "rectilinear",
        shape=(10, 6),
        dtype="int32",
        chunks={
            "name": "rectilinear",
            "configuration": {"kind": "inline", "chunk_shapes": [[3, 7], [2, 2, 2]]},
        },
    )
    rect[:] = np.arange(60, dtype="int32").reshape(10, 6)
    return root, None, {"bitround": "re-encoded", "scaled": "re-encoded", "rectilinear": "re-encoded"}


def zip_pipeline(base: Path) -> tuple[str, dict[str, Any] | None, dict[str, str]]:
    tree = base / "tree.zarr"
    group = zf.open_group(str(tree), mode="w")
    group.create_array("inside", shape=(10, 10), chunks=(5, 5), dtype="uint8")[:] = np.arange(
        100, dtype="uint8"
    ).reshape(10, 10)
    archive = base / "tree.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path in sorted(tree.rglob("*")):
            if path.is_file():
                out.write(path, path.relative_to(tree).as_posix())
    return f"file:{archive}|zip:", None, {"inside": "passthrough"}


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    from zarrforge.testing.s3_server import loopback_s3_server

    with loopback_s3_server() as endpoint:
        yield endpoint


SOURCES: dict[str, Callable[[Path], tuple[str, dict[str, Any] | None, dict[str, str]]]] = {
    "zarr-python-v3": zarr_python_v3,
    "tensorstore-v3": tensorstore_v3,
    "zarr-python-v2": zarr_python_v2,
    "draft-2022": draft_2022,
    "kerchunk": kerchunk_references,
    "zarrforge-plugins": zarrforge_only,
    "zip": zip_pipeline,
}


# --------------------------------------------------------------------------------------------
# the readers


def source_arrays(hierarchy: ServedHierarchy) -> dict[str, np.ndarray]:
    root = hierarchy.root
    if not isinstance(root, zf.Group):
        return {"": root[...]}
    return {path: node[...] for path, node in root.members(max_depth=None) if not isinstance(node, zf.Group)}


def read_with_zarr_python(url: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    group = zarr.open_group(url, mode="r")
    arrays = {
        path: np.asarray(node[...])
        for path, node in group.members(max_depth=None)
        if isinstance(node, zarr.Array)
    }
    attributes = {path: dict(node.attrs) for path, node in group.members(max_depth=None)}
    attributes[""] = dict(group.attrs)
    return arrays, attributes


ZARR34_READER = """
import hashlib, json, sys
import numpy as np, zarr
group = zarr.open_group(sys.argv[1], mode="r")
out = {}
for path, node in group.members(max_depth=None):
    if isinstance(node, zarr.Array):
        values = node[...]
        out[path] = [str(values.dtype), list(values.shape), np.asarray(values).tolist()]
print(json.dumps(out))
"""


def as_lists(values: np.ndarray) -> Any:
    return np.asarray(values).tolist()


def assert_same(got: np.ndarray, want: np.ndarray, label: str) -> None:
    assert got.shape == want.shape, label
    if want.dtype.kind in "OTU":
        assert [str(v) for v in np.ravel(got)] == [str(v) for v in np.ravel(want)], label
    else:
        assert got.dtype == want.dtype.newbyteorder("=") or got.dtype == want.dtype, label
        np.testing.assert_array_equal(got, want, err_msg=label)


@pytest.mark.parametrize("name", list(SOURCES))
def test_every_reader_gets_the_sources_values(name, tmp_path, serve, zarr34):
    source, options, translation = SOURCES[name](tmp_path)
    url = serve.start(source, storage_options=options)
    hierarchy = serve.last
    want = source_arrays(hierarchy)
    assert sorted(want) == sorted(translation)
    for path, mode in translation.items():
        served = hierarchy.node(path)
        assert ("passthrough" if served.passthrough else "re-encoded") == mode, (path, served.reason)

    got, attributes = read_with_zarr_python(url)
    assert sorted(got) == sorted(want)
    for path in want:
        assert_same(got[path], want[path], f"zarr-python 3.1: {name}/{path}")
    assert attributes[""] == dict(hierarchy.root.attrs)

    for path, values in want.items():
        if values.dtype.kind in "OTU":
            continue  # tensorstore 0.1.86 has no variable-length strings
        read = ts.open({"driver": "zarr3", "kvstore": f"{url}{path}/"}).result().read().result()
        assert_same(read, values, f"tensorstore: {name}/{path}")

    out = run_script(zarr34, ZARR34_READER, [url], label="zarr-python 3.4.2", cwd=tmp_path)
    read34 = json.loads(out)
    assert sorted(read34) == sorted(want)
    for path, values in want.items():
        _, shape, data = read34[path]
        assert tuple(shape) == values.shape, path
        if values.dtype.kind in "OTU":
            assert [str(v) for v in np.ravel(np.array(data, dtype=object))] == [
                str(v) for v in np.ravel(values)
            ]
        else:
            np.testing.assert_array_equal(
                np.array(data, dtype=values.dtype.newbyteorder("=")), values, err_msg=path
            )


def test_a_passed_through_chunk_is_the_peers_stored_bytes(tmp_path, serve):
    source, _, _ = zarr_python_v2(tmp_path)
    url = serve.start(source)
    stored = (Path(source) / "blosc" / "1").read_bytes()
    assert request("GET", url + "blosc/c/1")[2] == stored


def test_an_s3_source_is_served(tmp_path, serve, s3_endpoint):
    import s3fs

    options = {"key": "testing", "secret": "testing", "endpoint_url": s3_endpoint}
    bucket = f"zf-{uuid.uuid4().hex[:12]}"
    s3fs.S3FileSystem(**options).mkdir(bucket)
    s3fs.S3FileSystem.clear_instance_cache()
    group = zf.open_group(f"s3://{bucket}/tree.zarr", mode="w", storage_options=options)
    group.create_array("on_s3", shape=(12,), chunks=(5,), dtype="int64")[:] = np.arange(12) - 6
    url = serve.start(f"s3://{bucket}/tree.zarr", storage_options=options)
    got, _ = read_with_zarr_python(url)
    np.testing.assert_array_equal(got["on_s3"], np.arange(12) - 6)
    assert serve.last.node("on_s3").passthrough


def test_the_command_line_serves_until_interrupted(tmp_path):
    import signal
    import sys

    source, _, _ = zarr_python_v2(tmp_path)
    script = Path(sys.executable).with_name("zarrforge")
    process = subprocess.Popen(
        [str(script), "serve", source, "--port", "0", "--quiet", "--threaded-reads"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        assert banner.startswith("zarrforge serve: the Zarr 2 group") and "read-only" in banner
        url = banner.split(" at ", 1)[1].split(";", 1)[0]
        assert url.startswith("http://127.0.0.1:")
        got, _ = read_with_zarr_python(url)
        np.testing.assert_array_equal(got["zlib"][:10], np.arange(90, dtype="<i2").reshape(10, 9))
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "Traceback" not in err


@pytest.fixture
def serve() -> Iterator[Servers]:
    servers = Servers()
    yield servers
    servers.close()


def test_xarray_reads_a_served_dataset_that_xarray_wrote_as_v2(tmp_path, serve):
    import xarray as xr

    times = np.arange(6)
    dataset = xr.Dataset(
        {"temperature": (("time", "lat"), np.linspace(250, 300, 24).reshape(6, 4), {"units": "K"})},
        coords={"time": times, "lat": [-45.0, -15.0, 15.0, 45.0]},
        attrs={"title": "served"},
    )
    source = tmp_path / "xr.zarr"
    dataset.to_zarr(source, zarr_format=2, consolidated=True)
    url = serve.start(str(source))
    with xr.open_zarr(url, consolidated=True) as served:
        xr.testing.assert_identical(served.load(), xr.open_zarr(source, consolidated=True).load())
    assert serve.last.node("temperature").document["dimension_names"] == ["time", "lat"]
