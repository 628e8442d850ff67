"""``gs://`` and ``gcs://`` end to end, against a Google Cloud Storage emulator on 127.0.0.1.

The server is gcp-storage-emulator (a JSON-API implementation of Cloud Storage, from
PyPI), on a free port of 127.0.0.1. zarrforge reaches it as a user does: a ``gs://``
URL that fsspec serves with gcsfs, which sends its requests to ``STORAGE_EMULATOR_HOST``.
What is written is checked with Google's own client (google-cloud-storage), not with
gcsfs: the bucket holds the keys and bytes the format says.

gcsfs 2025.x and newer make every filesystem an ``ExtendedGcsFileSystem`` that first asks
a gRPC control API (which no emulator speaks) for the bucket's type, waiting 60 s per
bucket before falling back; ``GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT=false`` turns that off, and
the fixture registers gcsfs' plain ``GCSFileSystem`` for the duration (docs/stores.md says
the same for users of emulators).
"""

from __future__ import annotations

import io
import json
import os
import socket

import numpy as np
import pytest

pytest.importorskip("gcsfs", reason="gcsfs is in the fsspec plugin's test extra")
emulator = pytest.importorskip(
    "gcp_storage_emulator.server", reason="gcp-storage-emulator is in the fsspec plugin's test extra"
)

import zarrforge as zf  # noqa: E402

BUCKET = "zarrforge-data"
OPTIONS = {"token": "anon", "project": "zarrforge-test"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def gcs_endpoint():
    import importlib

    import fsspec
    import gcsfs.core

    # the module, not the read-only view that fsspec.registry names
    implementations = importlib.import_module("fsspec.registry")._registry

    port = _free_port()
    server = emulator.create_server("127.0.0.1", port, in_memory=True, default_bucket=BUCKET)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    saved_env = {
        name: os.environ.get(name) for name in ("STORAGE_EMULATOR_HOST", "GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT")
    }
    os.environ["STORAGE_EMULATOR_HOST"] = endpoint
    os.environ["GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT"] = "false"
    saved_impl = {name: implementations.get(name) for name in ("gs", "gcs")}
    for name in ("gs", "gcs"):
        fsspec.register_implementation(name, gcsfs.core.GCSFileSystem, clobber=True)
    try:
        yield endpoint
    finally:
        gcsfs.core.GCSFileSystem.clear_instance_cache()
        for name, impl in saved_impl.items():
            if impl is None:
                implementations.pop(name, None)
            else:
                implementations[name] = impl
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        server.stop()


@pytest.fixture
def bucket(gcs_endpoint):
    """Google's own client for the emulator's bucket."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    client = storage.Client(
        project=OPTIONS["project"],
        credentials=AnonymousCredentials(),
        client_options={"api_endpoint": gcs_endpoint},
    )
    return client.bucket(BUCKET)


def test_an_array_written_over_gs_is_in_the_bucket_as_the_format_says(bucket):
    values = np.arange(11 * 6, dtype="float32").reshape(11, 6)
    array = zf.create_array(
        f"gs://{BUCKET}/written.zarr",
        "g/a",
        shape=values.shape,
        chunks=(4, 4),
        dtype="float32",
        fill_value=-1.0,
        storage_options=OPTIONS,
        compressors=[{"name": "zstd", "configuration": {"level": 1}}],
    )
    array[...] = values
    array.attrs["where"] = "gcs"

    keys = sorted(blob.name for blob in bucket.list_blobs(prefix="written.zarr/"))
    chunk_keys = [f"written.zarr/g/a/c/{i}/{j}" for i in range(3) for j in range(2)]
    assert keys == sorted(
        ["written.zarr/zarr.json", "written.zarr/g/zarr.json", "written.zarr/g/a/zarr.json", *chunk_keys]
    )
    document = json.loads(bucket.blob("written.zarr/g/a/zarr.json").download_as_bytes())
    assert document["shape"] == [11, 6] and document["attributes"] == {"where": "gcs"}

    # read back through both spellings of the scheme
    for scheme in ("gs", "gcs"):
        again = zf.open_array(f"{scheme}://{BUCKET}/written.zarr", "g/a", mode="r", storage_options=OPTIONS)
        np.testing.assert_array_equal(again[...], values)
        np.testing.assert_array_equal(again[3:9, 1:5], values[3:9, 1:5])


def test_a_sharded_array_reads_inner_chunks_by_range(bucket):
    values = np.arange(64 * 64, dtype="uint16").reshape(64, 64)
    array = zf.create_array(
        f"gs://{BUCKET}/sharded.zarr",
        "s",
        shape=values.shape,
        chunks=(8, 8),
        shards=(32, 32),
        dtype="uint16",
        storage_options=OPTIONS,
    )
    array[...] = values
    assert sorted(b.name for b in bucket.list_blobs(prefix="sharded.zarr/s/c/")) == [
        f"sharded.zarr/s/c/{i}/{j}" for i in range(2) for j in range(2)
    ]
    again = zf.open_array(f"gs://{BUCKET}/sharded.zarr", "s", mode="r", storage_options=OPTIONS)
    rows = np.array([1, 17, 40, 63])
    np.testing.assert_array_equal(again.vindex[rows, rows], values[rows, rows])
    np.testing.assert_array_equal(again[30:35, 60:], values[30:35, 60:])


def test_a_url_pipeline_reads_a_zip_archive_in_the_bucket(tmp_path, bucket):
    values = np.arange(30, dtype="int64").reshape(5, 6)
    archive = tmp_path / "data.zip"
    local = zf.create_array(f"zip::{archive}", "grp/arr", shape=values.shape, chunks=(2, 3), dtype="int64")
    local[...] = values
    local.store.close()
    bucket.blob("archives/data.zip").upload_from_file(io.BytesIO(archive.read_bytes()))

    array = zf.open_array(
        f"gs://{BUCKET}/archives/data.zip|zip:|zarr3:grp/arr", mode="r", storage_options=OPTIONS
    )
    np.testing.assert_array_equal(array[...], values)


def test_a_bucket_that_does_not_exist_is_a_clear_error(gcs_endpoint):
    with pytest.raises(zf.errors.NodeNotFoundError, match="no-such-bucket"):
        zf.open_group("gs://no-such-bucket/x.zarr", mode="r", storage_options=OPTIONS)
