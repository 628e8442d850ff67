"""A service that cannot be reached fails once, within the store's ``deadline``: setting
the filesystem up (gcsfs looks for credentials on a metadata server an offline machine
never reaches) and the first request share one deadline, and the failure is one
StoreError naming the URL, with no library output.

Shown by outcomes, not by timing: a setup that never ends is refused naming the URL; a
first request left no time by the setup is not even attempted; the shared deadline is
lifted at the first answer. Everything stays on the loopback address.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from zarrforge.errors import StoreError
from zarrforge_fsspec import FsspecStore
from zarrforge_fsspec import store as store_module

PROGRAM = """
import zarrforge as zf
from zarrforge.errors import StoreError
try:
    zf.open_group("gs://offline-bucket/data.zarr", mode="r", storage_options={"deadline": 3})
except StoreError as exc:
    print("StoreError", exc)
"""


def test_an_offline_gcs_service_is_one_store_error_and_nothing_else(black_hole, tmp_path):
    pytest.importorskip("gcsfs")
    address = black_hole.removeprefix("http://")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "GCE_"))}
    env.update(
        GCE_METADATA_HOST=address,
        GCE_METADATA_IP=address,
        STORAGE_EMULATOR_HOST=black_hole,
        CLOUDSDK_CONFIG=str(tmp_path),
        GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT="false",
        NO_PROXY="*",
    )
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=300
    )  # a guard against a hang, nothing more
    assert result.stdout.startswith("StoreError"), (result.stdout, result.stderr)
    assert "gs://offline-bucket/data.zarr" in result.stdout
    # before: gcsfs's logger printed "... falling back to GCSFileSystem" beside the error
    assert result.stderr == "", result.stderr


def test_a_filesystem_setup_that_never_ends_is_refused_naming_the_url() -> None:
    never = threading.Event()
    with pytest.raises(StoreError, match="setting up its filesystem.*store setting deadline") as info:
        store_module._made_within(0.2, "gs://bucket/data", never.wait)
    assert info.value.url == "gs://bucket/data"
    never.set()  # lets the abandoned setup thread end


def test_a_setup_failure_is_raised_as_it_was() -> None:
    def refuse() -> None:
        raise ValueError("no such option")

    with pytest.raises(ValueError, match="no such option"):
        store_module._made_within(5, "gs://bucket/data", refuse)


def _counted(monkeypatch, store) -> list:
    calls: list = []
    original = store.fs._cat_file

    async def counted(*args, **kwargs):
        calls.append(args)
        return await original(*args, **kwargs)

    monkeypatch.setattr(store.fs, "_cat_file", counted)
    return calls


def test_a_first_request_the_setup_left_no_time_is_not_attempted(black_hole, aws_env, monkeypatch) -> None:
    store = FsspecStore.from_url("s3://bucket/data", endpoint_url=black_hole, deadline=2.0)
    assert store._first_contact_ends is not None  # set up from a URL: the deadline is shared
    store._first_contact_ends = time.monotonic() - 1  # as if the setup had used all of it
    calls = _counted(monkeypatch, store)
    with pytest.raises(StoreError, match="deadline") as info:
        store.get("zarr.json")
    assert calls == [] and info.value.url == "s3://bucket/data/zarr.json"


def test_the_shared_deadline_is_lifted_at_the_first_answer(http_server) -> None:
    _, url = http_server.new_site({"a": b"x"})
    store = FsspecStore.from_url(url, deadline=30)
    assert store._first_contact_ends is not None
    assert store.get("a") == b"x"
    assert store._first_contact_ends is None  # each request has its own deadline now
