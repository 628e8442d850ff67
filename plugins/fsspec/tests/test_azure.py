"""``abfs://`` and ``az://`` end to end, against Azurite on 127.0.0.1.

Azurite is Microsoft's Azure Storage emulator (Node.js, from the npm registry); ``make
test`` installs it under ``.azurite/`` and names its blob server in ``ZARRFORGE_AZURITE``.
The module starts it on a free port of 127.0.0.1 with its data in a temporary directory,
and zarrforge reaches it as a user does: an ``abfs://`` or ``az://`` URL that fsspec serves
with adlfs, the connection string in ``storage_options``. What is written is checked with
Microsoft's own client (azure-storage-blob), not with adlfs.

Without ``ZARRFORGE_AZURITE`` (a bare ``pytest`` outside ``make test``) the module is
skipped with that reason; with it set to a missing file the tests fail.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time

import numpy as np
import pytest

pytest.importorskip("adlfs", reason="adlfs is in the fsspec plugin's test extra")

import zarrforge as zf

CONTAINER = "zarrforge"
# Azurite's documented development account (not a secret: every Azurite has it)
ACCOUNT = "devstoreaccount1"
KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def connection_string(tmp_path_factory):
    azurite = os.environ.get("ZARRFORGE_AZURITE")
    if not azurite:
        pytest.skip("ZARRFORGE_AZURITE is not set: `make test` installs Azurite and sets it")
    assert os.path.exists(azurite), f"ZARRFORGE_AZURITE={azurite!r} does not exist"
    port = _free_port()
    data = tmp_path_factory.mktemp("azurite")
    server = subprocess.Popen(
        [
            azurite,
            "--blobHost",
            "127.0.0.1",
            "--blobPort",
            str(port),
            "--location",
            str(data),
            "--silent",
            "--skipApiVersionCheck",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                break
            except OSError:
                if server.poll() is not None:
                    pytest.fail(f"Azurite exited: {server.stderr.read().decode(errors='replace')}")
                if time.monotonic() > deadline:
                    pytest.fail("Azurite did not listen within 60 s")
                time.sleep(0.1)
        connection = (
            f"DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={KEY};"
            f"BlobEndpoint=http://127.0.0.1:{port}/{ACCOUNT};"
        )
        from azure.storage.blob import BlobServiceClient

        BlobServiceClient.from_connection_string(connection).create_container(CONTAINER)
        yield connection
    finally:
        # Azurite's graceful stop waits for idle keep-alive connections of the clients
        server.send_signal(signal.SIGINT)
        try:
            server.wait(2)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture
def container(connection_string):
    """Microsoft's own client for the emulator's container."""
    from azure.storage.blob import BlobServiceClient

    return BlobServiceClient.from_connection_string(connection_string).get_container_client(CONTAINER)


@pytest.mark.parametrize("scheme", ["abfs", "az"])
def test_an_array_written_over_azure_is_in_the_container_as_the_format_says(
    scheme, connection_string, container
):
    options = {"connection_string": connection_string}
    root = f"{scheme}-written.zarr"
    values = np.arange(9 * 7, dtype="int16").reshape(9, 7)
    array = zf.create_array(
        f"{scheme}://{CONTAINER}/{root}",
        "g/a",
        shape=values.shape,
        chunks=(4, 4),
        dtype="int16",
        storage_options=options,
        compressors=[{"name": "zstd", "configuration": {"level": 1}}],
    )
    array[...] = values
    array.attrs["where"] = scheme

    keys = sorted(blob.name for blob in container.list_blobs(name_starts_with=f"{root}/"))
    chunk_keys = [f"{root}/g/a/c/{i}/{j}" for i in range(3) for j in range(2)]
    assert keys == sorted([f"{root}/zarr.json", f"{root}/g/zarr.json", f"{root}/g/a/zarr.json", *chunk_keys])
    document = json.loads(container.download_blob(f"{root}/g/a/zarr.json").readall())
    assert document["shape"] == [9, 7] and document["attributes"] == {"where": scheme}

    again = zf.open_array(f"{scheme}://{CONTAINER}/{root}", "g/a", mode="r", storage_options=options)
    np.testing.assert_array_equal(again[...], values)
    np.testing.assert_array_equal(again[2:8, 3:], values[2:8, 3:])


def test_partial_writes_and_a_sharded_array(connection_string, container):
    options = {"connection_string": connection_string}
    url = f"az://{CONTAINER}/sharded.zarr"
    array = zf.create_array(
        url,
        "s",
        shape=(40, 40),
        chunks=(5, 5),
        shards=(20, 20),
        dtype="float64",
        fill_value=np.nan,
        storage_options=options,
    )
    array[3:17, 22:38] = 1.5
    expected = np.full((40, 40), np.nan)
    expected[3:17, 22:38] = 1.5
    # only the one shard the write touched exists
    assert [b.name for b in container.list_blobs(name_starts_with="sharded.zarr/s/c/")] == [
        "sharded.zarr/s/c/0/1"
    ]
    again = zf.open_array(url, "s", mode="r", storage_options=options)
    np.testing.assert_array_equal(again[...], expected)


def test_a_url_pipeline_opens_a_node_under_an_azure_root(connection_string):
    options = {"connection_string": connection_string}
    array = zf.create_array(
        f"az://{CONTAINER}/pipeline.zarr",
        "grp/arr",
        shape=(6,),
        chunks=(4,),
        dtype="uint8",
        storage_options=options,
    )
    array[...] = np.arange(6, dtype="uint8")
    again = zf.open_array(f"az://{CONTAINER}/pipeline.zarr|zarr3:grp/arr", mode="r", storage_options=options)
    np.testing.assert_array_equal(again[...], np.arange(6, dtype="uint8"))


def test_a_container_that_does_not_exist_is_a_clear_error(connection_string):
    with pytest.raises(zf.errors.NodeNotFoundError, match="no-such-container"):
        zf.open_group(
            "az://no-such-container/x.zarr",
            mode="r",
            storage_options={"connection_string": connection_string},
        )
