"""Which store a URL resolves to: the scheme registry and the resolve hook."""

from __future__ import annotations

import numpy as np
import pytest

import zarrforge as zf
import zarrforge_fsspec  # noqa: F401
from zarrforge import registry
from zarrforge.storing.storage import resolve_store
from zarrforge_fsspec import FsspecStore, ZipStore
from zarrforge_fsspec.resolve import claims


def test_schemes_are_registered():
    for scheme in ("s3", "gs", "gcs", "http", "https"):
        assert registry.stores.get(scheme) is FsspecStore
    assert registry.stores.get("zip") is ZipStore
    # zarrforge-std keeps its own schemes
    assert registry.stores.get("memory") is not FsspecStore
    assert registry.stores.get("file") is not FsspecStore


@pytest.mark.parametrize(
    "url,kind",
    [
        ("fsspec+memory://x", "fsspec"),
        ("fsspec+file:///tmp/x", "fsspec"),
        ("simplecache::s3://bucket/x", "fsspec"),
        ("blockcache::https://host/x", "fsspec"),
        ("zip::s3://bucket/x.zip", "zip"),
        ("zip::/tmp/x.zip", "zip"),
        ("s3://bucket/x", None),
        ("memory://x", None),
        ("zip://x.zip", None),
        ("data.zarr", None),
        ("no-such-protocol::x", None),
        ("/some/path::odd", None),
        # any other protocol fsspec knows, unless a zarrforge store registers the scheme
        ("ftp://host/x", "fsspec"),
        ("webhdfs://host/x", "fsspec"),
        ("FTP://host/x", "fsspec"),
        ("gs://bucket/x", None),
        ("no-such-protocol://x", None),
        # these zarrforge-fsspec registers by name (so `zarrforge plugins` lists them)
        ("reference://", None),
        ("sftp://host/x", None),
        ("abfs://container/x", None),
        ("az://container/x", None),
        ("HF://datasets/x", None),
    ],
)
def test_what_the_hook_claims(url, kind):
    assert claims(url) == kind


def test_a_store_registered_for_a_scheme_takes_it_over_from_fsspec():
    from zarrforge.abc.store import Store

    class MyFtp(Store):
        scheme = "ftp"

        @classmethod
        def from_url(cls, url, **options):
            return cls(read_only=options.get("read_only", False))

        get = _set = _delete = list_prefix = lambda *a, **k: None

    assert claims("ftp://host/x") == "fsspec"
    registry.stores.register("ftp", MyFtp)
    try:
        assert claims("ftp://host/x") is None
        assert isinstance(resolve_store("ftp://host/x"), MyFtp)
    finally:
        registry.stores.unregister("ftp")


@pytest.mark.parametrize("scheme", ["abfs", "az", "hf", "sftp", "reference"])
def test_the_fsspec_schemes_it_names_are_registered_stores(scheme):
    assert registry.stores.get(scheme) is FsspecStore
    # a pipeline root through the store registry: no URL adapter of its own
    assert scheme not in registry.url_adapters


def test_plain_memory_stays_with_std_and_fsspec_memory_is_explicit():
    assert not isinstance(resolve_store("memory://resolve-test"), FsspecStore)
    store = resolve_store("fsspec+memory://resolve-test")
    assert isinstance(store, FsspecStore) and store.root == "/resolve-test"


def test_fsspec_file_round_trip(tmp_path):
    url = f"fsspec+file://{tmp_path}/d.zarr"
    a = zf.create_array(url, "x", shape=(4, 4), dtype="int32", chunks=(2, 2))
    assert isinstance(a.store, FsspecStore)
    a[:] = np.eye(4, dtype="int32")
    # the same directory opened through zarrforge-std reads the same data
    np.testing.assert_array_equal(zf.open_array(str(tmp_path / "d.zarr"), "x")[:], np.eye(4))
    assert sorted(zf.open_group(url, mode="r").keys()) == ["x"]


def test_open_array_by_s3_url(s3_url, s3_options):
    zf.create_array(f"{s3_url}/p", shape=(2,), dtype="int8", storage_options=s3_options)[:] = 4
    a = zf.open_array(f"{s3_url}/p", mode="r", storage_options=s3_options)
    assert isinstance(a.store, FsspecStore) and repr(a.store) == f"FsspecStore('{s3_url}/p', read-only)"
    np.testing.assert_array_equal(a[:], [4, 4])


def test_missing_backend_names_the_package():
    import importlib.util

    # The test environment deliberately lacks ocifs, the backend of oci:// URLs.
    assert importlib.util.find_spec("ocifs") is None
    with pytest.raises(ImportError, match="ocifs"):
        resolve_store("oci://bucket/x")


def test_a_partly_written_array_reads_whole_through_a_caching_filesystem(tmp_path):
    # fsspec's simplecache raises for a whole batched read when one of its paths is
    # missing: the written chunk must not read as the fill value for its missing neighbour
    url = f"file://{tmp_path}/partly.zarr"
    zf.create_array(url, shape=(6,), chunks=(2,), dtype="i4", fill_value=-1)[2:4] = [5, 6]
    options = {"simplecache": {"cache_storage": str(tmp_path / "cache")}}
    cached = zf.open_array(f"simplecache::{url}", mode="r", storage_options=options)
    assert cached[:].tolist() == [-1, -1, 5, 6, -1, -1]
    assert cached.store.get_many([("c/0", None), ("c/1", None)])[0] is None
