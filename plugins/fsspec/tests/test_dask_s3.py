"""A real dask cluster (worker processes) writing a multi-chunk array to S3 (moto on 127.0.0.1)."""

from __future__ import annotations

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster

import zarrforge as zf


def test_distributed_cluster_writes_to_s3(s3_url, s3_options):
    values = np.random.default_rng(1).integers(0, 1000, size=(40, 30)).astype("int32")
    url = f"{s3_url}/dask.zarr"
    # Workers start after the fixtures set the dummy credentials, so they inherit them.
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            silence_logs=40,
        ) as cluster,
        Client(cluster),
    ):
        target = zf.create_array(
            url,
            shape=values.shape,
            dtype="int32",
            chunks=(8, 10),
            shards=(16, 30),
            storage_options=s3_options,
        )
        zf.from_dask(da.from_array(values, chunks=(7, 9)), target)
    again = zf.open_array(url, storage_options=s3_options)
    np.testing.assert_array_equal(again[...], values)
    assert again.nchunks_initialized == 3  # (40 / 16 -> 3 shards) x 1
