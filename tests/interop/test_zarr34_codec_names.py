"""zarr-python's codec class names (``zarr.codecs``, ``zarr.codecs.numcodecs``) run the same
code on zarrforge (issue #43): each case (:data:`CASES`) is one ``create_array`` call
written with zarr-python's names, run as it is by zarr-python 3.4.2 (``import zarr``, in
its environment: the ``zarr34`` fixture of tests/interop/conftest.py; one
subprocess for all cases) and by zarrforge (``zarr`` bound to ``zarrforge``), and the
``codecs`` of both ``zarr.json`` documents must be equal. ``ZARRFORGE_SKIP_ZARR34=1`` skips
them explicitly.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from _side_venv import ZARR34_LABEL as LABEL
from _side_venv import run_script

import zarrforge

CASES: dict[str, str] = {
    "issue_example": """zarr.create_array(path, shape=(10, 10), chunks=(5, 5), dtype="int32",
        serializer=zarr.codecs.BytesCodec(endian="little"),
        compressors=zarr.codecs.BloscCodec(cname="zstd", clevel=3, shuffle="bitshuffle"),
        filters=[zarr.codecs.numcodecs.Delta(dtype="int32")])""",
    "lzma_filters_transpose": """zarr.create_array(path, shape=(10, 10), chunks=(5, 5),
        dtype="int32", serializer=zarr.codecs.BytesCodec(),
        compressors=[zarr.codecs.numcodecs.LZMA(filters=[dict(id=lzma.FILTER_DELTA, dist=4),
                                                         dict(id=lzma.FILTER_LZMA2, preset=1)])],
        filters=[zarr.codecs.TransposeCodec(order=(1, 0))])""",
    "shards_gzip": """zarr.create_array(path, shape=(10, 10), chunks=(5, 5), shards=(10, 10),
        dtype="float64", compressors=zarr.codecs.GzipCodec(level=1))""",
    "sharding_codec_object": """zarr.create_array(path, shape=(10, 10), chunks=(10, 10),
        dtype="uint16", compressors=None, serializer=zarr.codecs.ShardingCodec(
            chunk_shape=(5, 5), codecs=[zarr.codecs.BytesCodec(), zarr.codecs.ZstdCodec(level=3)],
            index_location="start"))""",
    "blosc_defaults_uint8_crc32c": """zarr.create_array(path, shape=(20,), chunks=(10,),
        dtype="uint8", compressors=[zarr.codecs.BloscCodec(), zarr.codecs.Crc32cCodec()])""",
    "blosc_defaults_float64_big_endian": """zarr.create_array(path, shape=(20,), chunks=(10,),
        dtype="float64", serializer=zarr.codecs.BytesCodec(endian="big"),
        compressors=zarr.codecs.BloscCodec(cname="lz4", clevel=1, blocksize=0))""",
    "numcodecs_shuffle_zlib": """zarr.create_array(path, shape=(20,), chunks=(10,),
        dtype="float64", compressors=[zarr.codecs.numcodecs.Shuffle(),
                                      zarr.codecs.numcodecs.Zlib(level=1)])""",
    "numcodecs_filters": """zarr.create_array(path, shape=(20,), chunks=(10,), dtype="float32",
        filters=[zarr.codecs.numcodecs.BitRound(keepbits=8),
                 zarr.codecs.numcodecs.Quantize(digits=3, dtype="<f4")],
        compressors=[zarr.codecs.numcodecs.Zstd(level=1), zarr.codecs.numcodecs.CRC32()])""",
    "scale_offset_cast_value": """zarr.create_array(path, shape=(20,), chunks=(10,),
        dtype="float32", fill_value=1.5,
        filters=[zarr.codecs.ScaleOffset(offset=1.5, scale=2),
                 zarr.codecs.CastValue(data_type="uint8", out_of_range="clamp")],
        compressors=None)""",
}

# One function for both sides: run each case with ``zarr`` bound to the engine given, and
# collect the codecs of each zarr.json (or the error the case raised).
RUN_CASES = """
def run_cases(zarr, cases, root):
    import json, lzma, warnings
    import numpy as np
    out = {}
    for name, source in cases.items():
        path = f"{root}/{name}"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                eval(source, {"zarr": zarr, "lzma": lzma, "np": np, "path": path})
            with open(f"{path}/zarr.json") as f:
                out[name] = json.load(f)["codecs"]
        except Exception as exc:
            out[name] = f"error: {type(exc).__name__}: {exc}"
    return out
"""

ZARR_PYTHON_SCRIPT = (
    RUN_CASES
    + """
import json, sys
import zarr
print(json.dumps(run_cases(zarr, json.loads(sys.argv[1]), sys.argv[2])))
"""
)


@pytest.fixture(scope="module")
def stored(zarr34: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The codecs each side stores, by case: ``{"zarr-python": {...}, "zarrforge": {...}}``."""
    root = tmp_path_factory.mktemp("codec_names")
    (root / "zarr-python").mkdir()
    out = run_script(
        zarr34, ZARR_PYTHON_SCRIPT, [json.dumps(CASES), str(root / "zarr-python")], label=LABEL, cwd=root
    )  # cwd: never a directory that shadows zarr's modules
    namespace: dict[str, Any] = {}
    exec(RUN_CASES, namespace)  # noqa: S102  # this module's own source
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = namespace["run_cases"](zarrforge, CASES, str(root / "zarrforge"))
    return {"zarr-python": json.loads(out.strip().splitlines()[-1]), "zarrforge": ours}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_same_call_stores_the_same_codecs(stored: dict[str, Any], case: str) -> None:
    theirs, ours = stored["zarr-python"][case], stored["zarrforge"][case]
    assert not isinstance(theirs, str), f"zarr-python 3.4.2: {theirs}"
    assert ours == theirs
