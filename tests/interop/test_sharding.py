"""Sharding beyond the matrix (whose ``shard-*`` cases cover index at start/end, edge
shards, empty inner chunks, never-written shards, inner transpose/blosc/gzip,
an index without checksum and v2 keys, in all directions).

Here: a codec list with a bytes -> bytes codec *after* ``sharding_indexed``
(checksumming the whole shard), which the spec allows. zarrforge and
zarr-python exchange it; tensorstore cannot express it and says so.
"""

from __future__ import annotations

import _interop as X
import pytest
import zarr

import zarrforge as zf

# zarr-python warns that a codec after sharding_indexed disables its partial reads
pytestmark = pytest.mark.filterwarnings("ignore:Combining a `sharding_indexed` codec")

CASE = X.Case(
    "shard-then-crc32c",
    "float32",
    (6,),
    (6,),
    (X.sharding((3,), (X.bytes_codec(), X.zstd())), X.CRC32C),
    fill=-1.0,
    region=(slice(0, 4),),
    attributes={"k": 1},
)


def _check_zarr_python_view(view, data, writer):
    # zarr-python 3.1 reports the inner chunk shape only when sharding_indexed is the
    # whole codec list; with a codec after it, Array.chunks is the shard shape.
    assert view.chunks == CASE.chunks and CASE.read_chunks == (3,)
    X.check_view(view, CASE, data, writer=writer, read_chunks=CASE.chunks)


def test_zarrforge_writes_zarr_python_reads(tmp_path):
    data = X.make_data(CASE.dtype, CASE.shape, seed=13)
    X.write_zarrforge(tmp_path, CASE, data)
    _check_zarr_python_view(X.read_zarr_python(tmp_path), data, "zarrforge")


def test_zarr_python_writes_zarrforge_reads(tmp_path):
    data = X.make_data(CASE.dtype, CASE.shape, seed=14)
    X.write_zarr_python(tmp_path, CASE, data)
    X.check_view(X.read_zarrforge(tmp_path), CASE, data, writer="zarr-python")
    X.check_document(tmp_path)
    a = zf.open_array(str(tmp_path), X.ARRAY, mode="r+")
    a[4:] = [7.5, 8.5]  # a partial update re-encodes the shard and its outer checksum
    updated = data.copy()
    updated[4:] = [7.5, 8.5]
    z = zarr.open_array(str(tmp_path), path=X.ARRAY, mode="r")
    X.assert_same_bits(z[...], updated, "zarr-python after zarrforge's update")


def test_tensorstore_cannot_express_codecs_after_sharding(tmp_path):
    data = X.make_data(CASE.dtype, CASE.shape, seed=15)
    X.write_zarrforge(tmp_path, CASE, data)
    # tensorstore's zarr3 driver allows no bytes -> bytes codec after sharding_indexed
    # ("may be specified as inner codecs that apply to each sub-chunk individually")
    with pytest.raises(ValueError, match="not compatible with subsequent bytes -> bytes codecs"):
        X.open_tensorstore(tmp_path)
    with pytest.raises(ValueError, match="not compatible with subsequent bytes -> bytes codecs"):
        X.write_tensorstore(tmp_path / "ts", CASE, data)
