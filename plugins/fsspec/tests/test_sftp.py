"""``sftp://`` end to end, and a caching wrapper in front of it, against a real SFTP server.

The server is asyncssh's, listening on 127.0.0.1 on a free port in a thread of this
process, with a fresh host key, one user with a password, and its root confined to a
temporary directory. zarrforge reaches it the way a user does: a ``sftp://`` URL that
fsspec serves with paramiko, with ``storage_options`` carrying the credentials. What is
written is checked on the server's disk by reading the same directory as a local store.
"""

from __future__ import annotations

import asyncio
import threading
import warnings

import numpy as np
import pytest

pytest.importorskip("asyncssh", reason="asyncssh is in the fsspec plugin's test extra")
pytest.importorskip("paramiko", reason="paramiko is in the fsspec plugin's test extra")

import asyncssh

import zarrforge as zf

USER, PASSWORD = "zarr", "not-a-secret"


class _Server(asyncssh.SSHServer):
    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return True

    def validate_password(self, username: str, password: str) -> bool:
        return (username, password) == (USER, PASSWORD)


@pytest.fixture(scope="module")
def sftp_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("sftp-root")
    loop = asyncio.new_event_loop()
    started: dict = {}
    ready = threading.Event()

    async def start() -> None:
        key = asyncssh.generate_private_key("ssh-ed25519")
        server = await asyncssh.listen(
            "127.0.0.1",
            0,
            server_host_keys=[key],
            server_factory=_Server,
            sftp_factory=lambda channel: asyncssh.SFTPServer(channel, chroot=str(root).encode()),
            allow_scp=False,
        )
        started["server"] = server
        started["port"] = server.sockets[0].getsockname()[1]
        ready.set()

    thread = threading.Thread(
        target=lambda: (loop.run_until_complete(start()), loop.run_forever()), daemon=True
    )
    thread.start()
    assert ready.wait(30), "the SFTP server did not start"
    try:
        yield root, started["port"]
    finally:
        loop.call_soon_threadsafe(started["server"].close)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def _options(port: int) -> dict:
    return {
        "port": port,
        "username": USER,
        "password": PASSWORD,
        "look_for_keys": False,
        "allow_agent": False,
    }


def test_an_array_written_over_sftp_lands_on_the_servers_disk(sftp_server):
    root, port = sftp_server
    values = np.arange(12 * 7, dtype="int32").reshape(12, 7)
    array = zf.create_array(
        "sftp://127.0.0.1/data.zarr",
        "g/a",
        shape=values.shape,
        chunks=(5, 4),
        dtype="int32",
        storage_options=_options(port),
        compressors=[{"name": "zstd", "configuration": {"level": 1}}],
    )
    array[...] = values
    array.attrs["where"] = "sftp"
    # the server's own directory, read as a local store: the same hierarchy
    local = zf.open_array(str(root / "data.zarr"), "g/a", mode="r")
    np.testing.assert_array_equal(local[...], values)
    assert local.attrs["where"] == "sftp"
    # and read back through SFTP: values, a region, the listing
    remote = zf.open_group("sftp://127.0.0.1/data.zarr", mode="r", storage_options=_options(port))
    np.testing.assert_array_equal(remote["g/a"][3:9, 2:6], values[3:9, 2:6])
    assert [name for name, _ in remote["g"].members()] == ["a"]
    with pytest.raises(zf.errors.ReadOnlyError):
        remote["g/a"][0, 0] = 1


def test_a_caching_wrapper_in_front_of_sftp_serves_the_second_read_locally(sftp_server, tmp_path):
    root, port = sftp_server
    values = np.linspace(0, 1, 40, dtype="float64")
    zf.create_array(
        "sftp://127.0.0.1/cached.zarr",
        shape=(40,),
        chunks=(8,),
        dtype="float64",
        storage_options=_options(port),
    )[...] = values
    cache = tmp_path / "cache"
    options = {"sftp": _options(port), "simplecache": {"cache_storage": str(cache)}}
    first = zf.open_array("simplecache::sftp://127.0.0.1/cached.zarr", mode="r", storage_options=options)
    np.testing.assert_array_equal(first[...], values)
    assert len(list(cache.iterdir())) >= 5 + 1  # the five chunks and zarr.json
    # the server's copy changes; the cache still answers with what it fetched
    zf.open_array(str(root / "cached.zarr"), mode="r+")[:8] = -1.0
    with warnings.catch_warnings():
        # the cache answers a missing path with no bytes; the store reads that as missing,
        # so the open's probe finds no marker (docs/reliability.md, B29)
        warnings.simplefilter("error", zf.errors.UnfinishedWriteWarning)
        again = zf.open_array("simplecache::sftp://127.0.0.1/cached.zarr", mode="r", storage_options=options)
    np.testing.assert_array_equal(again[:8], values[:8])
    direct = zf.open_array("sftp://127.0.0.1/cached.zarr", mode="r", storage_options=_options(port))
    np.testing.assert_array_equal(direct[:8], np.full(8, -1.0))


def test_a_missing_chunk_through_a_cache_over_sftp_reads_as_the_fill_value(sftp_server, tmp_path):
    # simplecache over sftp answers a missing path with no bytes: the store checks that
    # an empty value is there, so a missing chunk is missing (the fill value), not corrupt
    _, port = sftp_server
    zf.create_array(
        "sftp://127.0.0.1/partly.zarr",
        shape=(6,),
        chunks=(2,),
        dtype="i4",
        fill_value=-1,
        storage_options=_options(port),
    )[2:4] = [5, 6]
    options = {"sftp": _options(port), "simplecache": {"cache_storage": str(tmp_path / "c")}}
    cached = zf.open_array("simplecache::sftp://127.0.0.1/partly.zarr", mode="r", storage_options=options)
    assert cached.store.get("c/0") is None
    assert cached[:].tolist() == [-1, -1, 5, 6, -1, -1]


def test_wrong_credentials_fail_with_the_servers_refusal_named(sftp_server):
    _, port = sftp_server
    with pytest.raises(
        zf.errors.StoreError, match=r"cannot open 'sftp://127.0.0.1/data.zarr' .*AuthenticationException"
    ):
        zf.open_group(
            "sftp://127.0.0.1/data.zarr", mode="r", storage_options={**_options(port), "password": "wrong"}
        )
