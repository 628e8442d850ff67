"""Errors of the fsspec stores name the real cause (issue #41, "Reliability, round four").

* A connection the endpoint refuses (nothing listens there) is one StoreError at once,
  naming the URL, the endpoint and the refusal; it was retried by botocore and by the
  store until the 25 s deadline and then reported as a missed deadline.
* A zip archive on S3 that cannot be reached, or read without credentials, is a
  StoreError naming the URL; it was a PluginFailureError calling it a bug of the zip
  adapter.
* An unknown storage option is refused when the store is opened, naming the option, the
  protocol, the closest valid name and the valid ones; it was a ``TypeError`` from
  aiobotocore's or aiohttp's internals at the first request.
* A bucket that does not exist is named as such (StoreError), where opening a node there
  said "no group at path '/'"; a missing key in an existing bucket still reads as missing.

Every endpoint is on 127.0.0.1; ``closed_port`` is a port nothing listens on.
"""

from __future__ import annotations

import time

import pytest

import zarrforge as zf
from zarrforge.errors import StoreError
from zarrforge_fsspec import FsspecStore

# --- a refused connection ---------------------------------------------------------------


def test_a_refused_s3_connection_is_named_at_once(aws_env, closed_port) -> None:
    store = FsspecStore.from_url(
        "s3://bucket/data", endpoint_url=closed_port, skip_instance_cache=True
    )  # default retries and deadline
    started = time.monotonic()
    with pytest.raises(StoreError, match="connection was refused") as info:
        store.get("zarr.json")
    error = info.value
    assert time.monotonic() - started < 10  # before: the whole deadline of 25 s
    assert "deadline" not in str(error) and error.attempts == 1
    assert error.url == "s3://bucket/data/zarr.json" and error.url in str(error)
    assert closed_port.removeprefix("http://") in str(error)  # the endpoint


def test_a_refused_http_connection_is_named_at_once(closed_port) -> None:
    store = FsspecStore.from_url(f"{closed_port}/data")
    with pytest.raises(StoreError, match="connection was refused") as info:
        store.get("zarr.json")
    error = info.value
    assert error.attempts == 1 and error.url == f"{closed_port}/data/zarr.json"
    assert closed_port.removeprefix("http://") in str(error)


def test_opening_a_group_on_a_refused_endpoint_says_so(aws_env, closed_port) -> None:
    started = time.monotonic()
    with pytest.raises(StoreError, match="connection was refused") as info:
        zf.open_group(
            "s3://bucket/x.zarr",
            mode="r",
            storage_options={"endpoint_url": closed_port, "skip_instance_cache": True},
        )
    assert time.monotonic() - started < 10
    assert "s3://bucket/x.zarr" in str(info.value)


# --- a zip archive on S3 that cannot be reached ------------------------------------------

NO_CREDENTIALS = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_ROLE_ARN",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
)


def test_a_zip_on_an_unreachable_s3_is_a_store_error_naming_the_url(aws_env, closed_port) -> None:
    with pytest.raises(StoreError, match="connection was refused") as info:
        zf.open_group(
            "s3://bucket/x.zip|zip:",
            mode="r",
            storage_options={"endpoint_url": closed_port, "skip_instance_cache": True},
        )
    assert "s3://bucket/x.zip" in str(info.value)
    assert "bug" not in str(info.value)  # before: a PluginFailureError blaming the zip adapter


def test_a_zip_on_s3_without_credentials_is_a_store_error_naming_the_url(
    aws_env, closed_port, monkeypatch
) -> None:
    for name in NO_CREDENTIALS:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(StoreError, match="NoCredentialsError") as info:
        zf.open_group(
            "s3://bucket/x.zip|zip:|zarr3:g",
            mode="r",
            storage_options={"endpoint_url": closed_port, "skip_instance_cache": True},
        )
    assert "s3://bucket/x.zip" in str(info.value) and "bug" not in str(info.value)


# --- unknown storage options ---------------------------------------------------------------


@pytest.mark.parametrize(
    "option, closest", [("bogus_opt", None), ("endpoint_ur", "endpoint_url"), ("secrett", "secret")]
)
def test_an_unknown_s3_option_is_refused_naming_it_and_the_valid_ones(
    aws_env, closed_port, option, closest
) -> None:
    url = "s3://bucket/x.zarr"
    with pytest.raises(StoreError) as info:
        zf.open_group(url, mode="r", storage_options={"endpoint_url": closed_port, option: 1})
    message = str(info.value)
    assert f"storage option {option!r}" in message and "'s3'" in message and url in message
    assert "AioSession" not in message  # before: TypeError: AioSession.__init__() got an ...
    assert "'endpoint_url'" in message and "'client_kwargs'" in message  # the valid ones
    if closest is not None:
        assert f"did you mean {closest!r}" in message


def test_an_unknown_http_option_is_refused_naming_it(closed_port) -> None:
    with pytest.raises(StoreError, match=r"storage option 'bogus_opt'.*'http'") as info:
        zf.open_group(f"{closed_port}/x.zarr", mode="r", storage_options={"bogus_opt": 1})
    assert "ClientSession._request()" not in str(info.value)  # before: ClientSession._request() got an ...


def test_valid_options_and_store_settings_keep_working(aws_env, moto_endpoint) -> None:
    import s3fs

    bucket = "zf-valid-options"
    s3fs.S3FileSystem(
        key="testing", secret="testing", endpoint_url=moto_endpoint, skip_instance_cache=True
    ).mkdir(bucket)
    options = {
        "key": "testing",
        "secret": "testing",
        "endpoint_url": moto_endpoint,
        "client_kwargs": {"region_name": "us-east-1"},
        "config_kwargs": {},
        "skip_instance_cache": True,
        "use_listings_cache": False,
        "deadline": 20,
        "max_retries": 1,
        "concurrency": 4,
    }
    zf.create_array(f"s3://{bucket}/a", shape=(2,), dtype="int8", storage_options=options)[...] = [5, 6]
    assert list(zf.open_array(f"s3://{bucket}/a", mode="r", storage_options=options)[...]) == [5, 6]
    store = FsspecStore.from_url("fsspec+memory://valid-options", skip_instance_cache=True)
    store.set("k", b"v")
    assert store.get("k") == b"v"


# --- a missing bucket -------------------------------------------------------------------------


def test_opening_a_node_in_a_missing_bucket_names_the_bucket(s3_options) -> None:
    options = {**s3_options, "skip_instance_cache": True}
    url = "s3://zf-no-such-bucket/data.zarr"
    for call in (
        lambda: zf.open_group(url, mode="r", storage_options=options),
        lambda: zf.open_array(url, "a", mode="r", storage_options=options),
        lambda: list(FsspecStore.from_url(url, **options).list_prefix("")),
    ):
        with pytest.raises(
            StoreError, match="the bucket 'zf-no-such-bucket' does not exist"
        ) as info:  # before: NodeNotFoundError "no group at path '/'"
            call()
        assert url in str(info.value) and (info.value.url or "").startswith(url)


def test_a_missing_key_in_an_existing_bucket_still_reads_as_missing(s3_url, s3_options) -> None:
    from zarrforge.errors import NodeNotFoundError

    store = FsspecStore.from_url(f"{s3_url}/data.zarr", **s3_options)
    assert store.get("zarr.json") is None and not store.exists("zarr.json")
    with pytest.raises(NodeNotFoundError):
        zf.open_group(f"{s3_url}/data.zarr", mode="r", storage_options=s3_options)
