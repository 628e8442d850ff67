"""A store string that looks like a remote or store URL without its ``//`` is refused,
naming the URL that was probably meant, and creates nothing on disk (issue #41).

Before: ``memory:x``, ``s3:x``, ``s3:/x`` and ``gs:bucket/x`` were read as local paths,
so ``create_group("s3:x")`` made a directory named ``s3:x`` in the working directory
and reported success. Local names with a colon whose head is no store or remote
scheme (``data:2024.zarr``, ``a:b``) keep working, and a directory of a refused name
stays reachable as ``./s3:x`` or a :class:`pathlib.Path`.
"""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import InvalidPathError


@pytest.mark.parametrize(
    "root, meant",
    [
        ("memory:x", "memory://x"),
        ("s3:x", "s3://x"),
        ("s3:/x", "s3://x"),
        ("S3:bucket/x", "s3://bucket/x"),
        ("gs:bucket/x", "gs://bucket/x"),
        ("gcs:bucket/x.zarr", "gcs://bucket/x.zarr"),
        ("https:host/x", "https://host/x"),
        ("az:container/x", "az://container/x"),
        ("ftp:host/x", "ftp://host/x"),  # a remote protocol no installed store registers
    ],
)
def test_a_store_scheme_without_slashes_is_refused_naming_the_url_meant(
    tmp_path, monkeypatch, root, meant
) -> None:
    monkeypatch.chdir(tmp_path)
    for call in (
        lambda: zf.create_group(root),
        lambda: zf.create_array(root, "a", shape=(2,), dtype="int8"),
        lambda: zf.open_group(root, mode="a"),
        lambda: zf.open_group(root, mode="r"),
    ):
        with pytest.raises(InvalidPathError, match=repr(meant)) as info:
            call()
        assert repr(root) in str(info.value)
    assert os.listdir(tmp_path) == []  # nothing created by any of the refused calls


def test_a_file_scheme_without_slashes_names_the_local_path_meant(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidPathError, match="'data.zarr'.*'file:///") as info:
        zf.create_group("file:data.zarr")
    assert "'file:data.zarr'" in str(info.value)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("name", ["data:2024.zarr", "a:b", "my-run:3.zarr"])
def test_local_names_with_a_colon_that_is_no_scheme_keep_working(tmp_path, monkeypatch, name) -> None:
    monkeypatch.chdir(tmp_path)
    zf.create_array(name, "x", shape=(2,), dtype="int8")[...] = [1, 2]
    np.testing.assert_array_equal(zf.open_array(name, "x")[...], [1, 2])
    assert os.listdir(tmp_path) == [name]


def test_a_local_directory_named_like_a_url_is_reachable_as_a_path(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    zf.create_array("./s3:x", "a", shape=(2,), dtype="int8")[...] = [3, 4]
    np.testing.assert_array_equal(zf.open_array(pathlib.Path("s3:x"), "a")[...], [3, 4])
    assert os.listdir(tmp_path) == ["s3:x"]


def test_a_pipeline_root_without_slashes_names_the_url_meant(tmp_path, monkeypatch) -> None:
    from zarrforge.errors import URLPipelineError

    monkeypatch.chdir(tmp_path)
    for root, meant in (("gs:bucket/x", "gs://bucket/x"), ("ftp:host/x", "ftp://host/x")):
        with pytest.raises(URLPipelineError, match=repr(meant)):
            zf.create_group(f"{root}|zarr3:g")
    assert os.listdir(tmp_path) == []


# --- the environment failing inside a URL pipeline is no plugin bug -------------------------


class BotoCoreError(Exception):
    """Stands for botocore's base class, which the adapter below declares environmental as
    zarrforge-fsspec's stores and adapter do (the core names no library)."""


class NoCredentialsError(BotoCoreError):
    pass


class _Failing:
    """A URL adapter ``failing:`` raising what its ``error`` is (a root or a later segment)."""

    name = "failing"
    environmental_errors = (BotoCoreError,)
    error: Exception = ValueError()

    @classmethod
    def resolve(cls, base, segment, *, read_only, storage_options):
        raise cls.error


@pytest.fixture
def failing():
    from zarrforge import registry
    from zarrforge.abc.url_adapter import URLAdapter

    adapter = type("FailingAdapter", (_Failing, URLAdapter), {})
    zf.register("url_adapters", "failing", adapter)
    try:
        yield adapter
    finally:
        registry.url_adapters.unregister("failing")


@pytest.mark.parametrize(
    "error",
    [
        NoCredentialsError("Unable to locate credentials"),
        ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 9)"),
        TimeoutError("no answer"),
    ],
)
def test_a_network_or_credential_failure_in_a_pipeline_is_a_store_error_naming_the_url(
    failing, error
) -> None:
    from zarrforge.errors import PluginFailureError, StoreError

    failing.error = error
    url = "memory:env-fail|failing:|zarr3:g"
    with pytest.raises(StoreError) as info:
        zf.open_group(url, mode="r")
    assert not isinstance(info.value, PluginFailureError)
    assert repr(url) in str(info.value) and type(error).__name__ in str(info.value)
    assert info.value.url == url and info.value.__cause__ is error
    assert "bug" not in str(info.value)


def test_a_plugin_bug_in_a_pipeline_is_still_named_a_bug(failing) -> None:
    from zarrforge.errors import PluginFailureError

    failing.error = TypeError("resolve() got an unexpected keyword argument")
    with pytest.raises(PluginFailureError, match="bug in that plugin"):
        zf.open_group("memory:env-bug|failing:|zarr3:g", mode="r")
