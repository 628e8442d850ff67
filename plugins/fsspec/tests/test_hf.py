"""``hf://`` end to end, against a Hugging Face Hub server on 127.0.0.1.

The server is olah (a Hub mirror from PyPI that serves local git repositories through
the Hub's HTTP API, in its own virtual environment: ``make test`` builds it and names
its command in ``ZARRFORGE_OLAH``), offline, on a free port of 127.0.0.1. The test makes
a dataset repository with git, zarrforge writing the arrays into its work tree, and reads
it back through ``hf://datasets/<org>/<name>@<revision>/...``, which fsspec serves with
huggingface_hub's ``HfFileSystem`` pointed at the server by ``HF_ENDPOINT``.

What is covered is reading, which is how datasets on the Hub are used: pinned revisions
(a branch, a tag, a commit), whole-shard and partial reads, v2 and v3. olah 0.5.4 ignores
``Range`` on files of local repositories (it answers 200 with the whole file), and
``HfFileSystem`` does not check for 206, so a byte-range read through it returns the
wrong bytes; zarrforge reads shards over ``hf://`` whole (it has no versioned ranges),
so a partial read still returns the right values, which one test asserts (the Hub
itself answers ranges with 206). olah also
fails to list a directory holding a binary file of 121 to 149 bytes (it decodes those as
text, looking for a git-LFS pointer), so the unsharded array is written uncompressed. Writing through ``hf://`` goes
through the Hub's commit API, which a mirror does not serve; it is not tested here. olah
answers repository metadata only for a named revision, so every URL here names one
(``@main``); the Hub itself also answers without.

Without ``ZARRFORGE_OLAH`` (a bare ``pytest`` outside ``make test``) the module is skipped
with that reason; with it set to a missing file the tests fail.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request

import numpy as np
import pytest

pytest.importorskip("huggingface_hub", reason="huggingface_hub is in the fsspec plugin's test extra")

import zarrforge as zf

ORG, NAME = "zarrforge", "demo"
REPO = f"datasets/{ORG}/{NAME}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _git(work_tree, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=zarrforge", "-c", "user.email=tests@zarrforge.invalid", *args],
        cwd=work_tree,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """(endpoint, work tree, {revision: values}) with two commits and a tag on the first."""
    olah = os.environ.get("ZARRFORGE_OLAH")
    if not olah:
        pytest.skip("ZARRFORGE_OLAH is not set: `make test` builds olah's venv and sets it")
    assert os.path.exists(olah), f"ZARRFORGE_OLAH={olah!r} does not exist"

    base = tmp_path_factory.mktemp("hub")
    work_tree = base / "mirrors" / "datasets" / ORG / NAME
    work_tree.mkdir(parents=True)
    _git(work_tree, "init", "-q", "-b", "main")
    first = np.arange(20 * 30, dtype="float32").reshape(20, 30)
    array = zf.create_array(
        str(work_tree / "data.zarr"),
        "temperature",
        shape=first.shape,
        chunks=(8, 8),
        shards=(16, 16),
        dtype="float32",
    )
    array[...] = first
    # uncompressed: every chunk is 256 bytes (see the module docstring)
    plain = zf.create_array(
        str(work_tree / "data.zarr"),
        "pressure",
        shape=first.shape,
        chunks=(8, 8),
        dtype="float32",
        compressors=None,
    )
    plain[...] = first + 0.5
    small = zf.create_array(
        str(work_tree / "labels.zarr"), "labels", shape=(5,), chunks=(2,), dtype="int8", zarr_format=2
    )
    small[...] = np.arange(5, dtype="int8")
    _git(work_tree, "add", "-A")
    _git(work_tree, "commit", "-q", "-m", "first values")
    _git(work_tree, "tag", "v1")
    first_commit = _git(work_tree, "rev-parse", "HEAD")
    second = first * 2
    array[...] = second
    plain[...] = second + 0.5
    _git(work_tree, "commit", "-q", "-am", "second values")

    port = _free_port()
    config = base / "olah.toml"
    config.write_text(
        "[basic]\n"
        f'host = "127.0.0.1"\nport = {port}\n'
        f'mirror-netloc = "127.0.0.1:{port}"\nmirror-lfs-netloc = "127.0.0.1:{port}"\n'
        f'mirrors-path = ["{base / "mirrors"}"]\n'
        f'repos-path = "{base / "cache"}"\nlog-path = "{base / "logs"}"\n'
        "[accessibility]\noffline = true\n"
    )
    log = open(base / "olah.log", "wb")
    server = subprocess.Popen([olah, "-c", str(config)], cwd=base, stdout=log, stderr=subprocess.STDOUT)
    endpoint = f"http://127.0.0.1:{port}"
    saved = {
        name: os.environ.get(name)
        for name in ("HF_ENDPOINT", "HF_HUB_OFFLINE", "HF_HUB_DISABLE_TELEMETRY", "HF_TOKEN")
    }
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{endpoint}/api/{REPO}/revision/main", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(
                        "olah did not serve the repository:\n"
                        + (base / "olah.log").read_text(errors="replace")[-2000:]
                    )
                time.sleep(0.2)
        os.environ.update(HF_ENDPOINT=endpoint, HF_HUB_OFFLINE="0", HF_HUB_DISABLE_TELEMETRY="1")
        os.environ.pop("HF_TOKEN", None)
        _clear_hf_filesystems()
        yield endpoint, {"main": second, "v1": first, first_commit: first}
    finally:
        _clear_hf_filesystems()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _clear_hf_filesystems() -> None:
    # HfFileSystem instances are cached and keep the endpoint they were made with
    from huggingface_hub import HfFileSystem

    HfFileSystem.clear_instance_cache()


def test_each_revision_reads_its_own_values(hub):
    _, revisions = hub
    for revision, values in revisions.items():
        array = zf.open_array(f"hf://{REPO}@{revision}/data.zarr", "temperature", mode="r")
        np.testing.assert_array_equal(array[...], values, err_msg=f"at revision {revision}")


def test_partial_reads_of_a_v3_and_a_v2_array(hub):
    _, revisions = hub
    values = revisions["main"] + 0.5
    array = zf.open_array(f"hf://{REPO}@main/data.zarr", "pressure", mode="r")
    np.testing.assert_array_equal(array[3:19, 14:29], values[3:19, 14:29])
    np.testing.assert_array_equal(array.vindex[[0, 9, 19], [29, 15, 1]], values[[0, 9, 19], [29, 15, 1]])
    labels = zf.open_array(f"hf://{REPO}@main/labels.zarr", "labels", mode="r")
    assert labels.format.name == "2"
    np.testing.assert_array_equal(labels[...], np.arange(5, dtype="int8"))


def test_the_group_lists_its_members_over_hf(hub):
    group = zf.open_group(f"hf://{REPO}@main/data.zarr", mode="r")
    assert sorted(name for name, _ in group.members()) == ["pressure", "temperature"]
    assert group["temperature"].shape == (20, 30)


def test_a_url_pipeline_with_an_hf_root(hub):
    _, revisions = hub
    array = zf.open_array(f"hf://{REPO}@v1/data.zarr|zarr3:temperature", mode="r")
    np.testing.assert_array_equal(array[...], revisions["v1"])


def test_a_partial_read_of_a_shard_over_hf_reads_the_right_values(hub):
    # hf:// names no version per range, so a partial read of a shard fetches the whole
    # shard in one request (docs/stores.md): olah, which ignores Range, answers it right
    _, revisions = hub
    array = zf.open_array(f"hf://{REPO}@main/data.zarr", "temperature", mode="r")
    assert not array.store.capabilities.versioned_ranges
    np.testing.assert_array_equal(array[3:5, 14:20], revisions["main"][3:5, 14:20])


def test_a_path_that_is_not_in_the_repository_is_an_error_naming_it(hub):
    # The Hub answers 404 (EntryNotFound), which HfFileSystem turns into FileNotFoundError
    # and zarrforge into NodeNotFoundError; olah answers 401 (RepositoryNotFound), which
    # reaches the user as a StoreError carrying the server's message.
    with pytest.raises((zf.errors.NodeNotFoundError, zf.errors.StoreError), match="data.zarr.*missing"):
        zf.open_array(f"hf://{REPO}@main/data.zarr", "missing", mode="r")
