"""Bad input to the fsspec stores gives a zarrforge error naming the URL, and a server
that never answers usefully ends a call within the deadline (issue #32, "Bare errors")."""

from __future__ import annotations

import pytest

import zarrforge as zf
from zarrforge.errors import StoreError


@pytest.mark.parametrize(
    "options, message",
    [
        ({}, "reference set"),
        ({"fo": "{not json"}, "reference set"),
        ({"fo": {"version": 2, "refs": {}}}, "reference set"),
    ],
)
def test_a_bad_reference_set_is_a_store_error_naming_it(tmp_path, options, message) -> None:
    if isinstance(options.get("fo"), str):
        path = tmp_path / "refs.json"
        path.write_text(options["fo"])
        options = {**options, "fo": str(path)}
    with pytest.raises(StoreError, match=message) as info:
        zf.open_group("reference://", mode="r", storage_options=options)
    assert info.value.url == "reference://"


def test_a_zip_root_naming_a_device_is_refused_at_once(tmp_path) -> None:
    with pytest.raises(StoreError, match="not a regular file"):
        zf.create_array("file:/dev/null|zip:|zarr3:a", shape=(1,), dtype="int8")
    with pytest.raises(StoreError, match="not a regular file"):
        zf.create_array(f"file:{tmp_path}|zip:|zarr3:a", shape=(1,), dtype="int8")


def test_a_server_answering_503_to_everything_fails_within_the_deadline(http_server) -> None:
    from zarrforge_fsspec import FsspecStore
    from zarrforge_fsspec.options import StoreSettings

    assert StoreSettings().deadline == 25.0  # a call on a dead endpoint ends within 30 s
    directory, url = http_server.new_site({"a": b"x"})
    http_server.fail(f"{directory.name}/a", *([503] * 10_000))
    store = FsspecStore.from_url(url, deadline=1.5, max_retries=1000, retry_backoff=0.05)
    with pytest.raises(StoreError, match="deadline") as info:
        store.get("a")
    # the deadline ended it, not the retries: far fewer than 1,000 were made
    assert info.value.url is not None and info.value.url.endswith("/a")
    assert info.value.attempts is not None and info.value.attempts < 1001


def test_an_s3_endpoint_that_never_answers_fails_within_the_deadline(black_hole, aws_env):
    from zarrforge_fsspec import FsspecStore

    store = FsspecStore.from_url(
        "s3://bucket/data",
        endpoint_url=black_hole,
        deadline=2.0,
        config_kwargs={"connect_timeout": 60, "read_timeout": 60},
    )
    with pytest.raises(StoreError, match="deadline") as info:  # not the 60 s timeouts
        store.get("zarr.json")
    assert info.value.url == "s3://bucket/data/zarr.json"
