"""The xarray backend takes the decoded-chunk cache through ``backend_kwargs``
(``chunk_cache=``, ``recheck=``): every variable of the dataset reads through one pool,
each chunk decoded once by a scan in slabs (issue #48)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import zarrforge as zf

pytestmark = pytest.mark.filterwarnings(
    "ignore::UserWarning", "ignore::FutureWarning", "ignore::DeprecationWarning"
)


def _written(path: str) -> np.ndarray:
    values = np.arange(64 * 64, dtype="f4").reshape(64, 64)
    xr.Dataset({"t": (("y", "x"), values), "u": (("y", "x"), -values)}).to_zarr(
        path,
        encoding={"t": {"chunks": (16, 16)}, "u": {"chunks": (16, 16)}},
        zarr_format=3,
        consolidated=False,
    )
    return values


@pytest.mark.parametrize("datatree", [False, True])
def test_a_slab_scan_of_every_variable_decodes_each_chunk_once(tmp_path, datatree):
    path = str(tmp_path / "d.zarr")
    values = _written(path)
    pool = zf.ChunkCache(max_bytes=2**20)
    kwargs = {"chunk_cache": pool, "recheck": "never"}
    if datatree:
        dataset = xr.open_datatree(path, engine="zarrforge", backend_kwargs=kwargs)["/"].to_dataset()
    else:
        dataset = xr.open_dataset(path, engine="zarrforge", backend_kwargs=kwargs)
    for row in range(0, 64, 4):
        np.testing.assert_array_equal(dataset.t[row : row + 4].values, values[row : row + 4])
        np.testing.assert_array_equal(dataset.u[row : row + 4].values, -values[row : row + 4])
    stats = pool.stats()
    assert (stats.misses, stats.hits) == (32, 32 * 3)


def test_a_bad_cache_option_is_refused(tmp_path):
    path = str(tmp_path / "d.zarr")
    _written(path)
    with pytest.raises(TypeError, match="chunk_cache=-1"):
        xr.open_dataset(path, engine="zarrforge", backend_kwargs={"chunk_cache": -1})
