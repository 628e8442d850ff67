"""URL pipelines through zarrforge-fsspec's adapters: zip archives written by zarrforge in a
local directory and read back, in S3 (the moto server of conftest.py), inside another
archive; s3:// roots; and the fsspec "::" chains, which are not pipelines, unchanged."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import URLPipelineError
from zarrforge_fsspec import FsspecStore, ZipStore


def write_zip(url: str) -> None:
    array = zf.create_array(url, shape=(10,), dtype="int16", chunks=(4,), attributes={"made": "pipeline"})
    array[:] = np.arange(10)
    array.store.close()  # a zip's central directory is written on close


def test_a_zip_in_a_local_directory_written_and_read_through_pipelines(tmp_path):
    archive = tmp_path / "sub" / "d.zip"
    write_zip(f"file:{archive}|zip:|zarr3:grp/arr")
    with zipfile.ZipFile(archive) as z:
        assert {"zarr.json", "grp/zarr.json", "grp/arr/zarr.json", "grp/arr/c/2"} <= set(z.namelist())
    for url, path in (
        (f"file://{archive}|zip:|zarr3:grp/arr", ""),
        (f"{archive}|zip|zarr3:grp", "arr"),
        (f"file:{archive}|zip:grp|zarr3:arr", ""),
    ):
        array = zf.open_array(url, path, mode="r")
        assert isinstance(array.store, ZipStore) and array.store.read_only
        assert array.path == "grp/arr" and array.attrs["made"] == "pipeline"
        np.testing.assert_array_equal(array[:], np.arange(10))
    # the same archive through the fsspec chain, which is not a pipeline
    np.testing.assert_array_equal(zf.open_array(f"zip::file://{archive}", "grp/arr")[:], np.arange(10))


def test_a_zip_in_s3_is_read_through_a_pipeline(tmp_path, s3_url, s3_options):
    import s3fs

    local = tmp_path / "d.zip"
    write_zip(f"{local}|zip:|zarr3:grp/arr")
    s3fs.S3FileSystem(**s3_options).put(str(local), f"{s3_url[5:]}/data/d.zip")
    url = f"{s3_url}/data/d.zip|zip:|zarr3:grp/arr"
    array = zf.open_array(url, storage_options=s3_options)
    assert isinstance(array.store, ZipStore) and array.store.read_only
    np.testing.assert_array_equal(array[:], np.arange(10))
    group = zf.open_group(f"{s3_url}/data/d.zip|zip:|zarr3:", mode="r", storage_options=s3_options)
    assert list(group.keys()) == ["grp"]
    # a remote archive cannot be written: the error names the segment and says what to do
    with pytest.raises(URLPipelineError, match=r"segment 2 'zip:'.*can only be read.*mode='r'"):
        zf.create_group(f"{s3_url}/data/d.zip|zip:|zarr3:new", storage_options=s3_options)
    with pytest.raises(URLPipelineError, match=r"no zip archive at .*missing\.zip"):
        zf.open_array(f"{s3_url}/missing.zip|zip:|zarr3:a", storage_options=s3_options)


def test_an_s3_root_with_a_format_segment(s3_url, s3_options):
    array = zf.create_array(f"{s3_url}/tree.zarr|zarr2:a", shape=(3,), dtype="f8", storage_options=s3_options)
    array[:] = [1, 2, 3]
    assert isinstance(array.store, FsspecStore) and array.metadata_model.format_name == "2"
    again = zf.open_array(f"{s3_url}/tree.zarr|zarr2:a", storage_options=s3_options)
    np.testing.assert_array_equal(again[:], [1, 2, 3])


def test_an_s3_root_without_slashes_is_refused_before_anything_is_created(tmp_path, monkeypatch):
    # fsspec would read "s3:b/x" as the local path "s3:b/x" and create it in the working directory
    monkeypatch.chdir(tmp_path)
    with pytest.raises(URLPipelineError, match=r"a 's3' root names its location after '//'"):
        zf.create_group("s3:bucket/tree.zarr|zarr3:g")
    assert list(tmp_path.iterdir()) == []


def test_an_archive_inside_an_archive(tmp_path):
    inner = tmp_path / "inner.zip"
    write_zip(f"{inner}|zip:|zarr3:arr")
    outer = tmp_path / "outer.zip"
    with zipfile.ZipFile(outer, "w") as z:
        z.write(inner, "nested/inner.zip")
    array = zf.open_array(f"file:{outer}|zip:nested/inner.zip|zip:|zarr3:arr")
    np.testing.assert_array_equal(array[:], np.arange(10))
    with pytest.raises(URLPipelineError, match=r"segment 3 'zip:'.*can only be read"):
        zf.open_group(f"file:{outer}|zip:nested/inner.zip|zip:|zarr3:", mode="a")
    with pytest.raises(URLPipelineError, match=r"no zip archive at .*key 'nested/absent.zip'"):
        zf.open_array(f"file:{outer}|zip:nested/absent.zip|zip:|zarr3:arr")


def test_a_key_that_is_not_a_zip_and_a_zip_with_nothing_before_it(tmp_path):
    outer = tmp_path / "outer.zip"
    with zipfile.ZipFile(outer, "w") as z:
        z.writestr("notes.txt", b"not an archive")
    with pytest.raises(
        URLPipelineError,
        match=r"segment 3 'zip:'.*key 'notes.txt'.* is not a "
        r"zip archive",
    ):
        zf.open_group(f"file:{outer}|zip:notes.txt|zip:", mode="r")
    zf.create_group("memory:zip-none|zarr3:")
    with pytest.raises(
        URLPipelineError,
        match=r"needs a file before it, but 'memory:zip-none' "
        r"names the root of MemoryStore",
    ):
        zf.open_group("memory:zip-none|zip:|zarr3:", mode="r")


def test_zip_after_a_format_segment_is_refused():
    with pytest.raises(URLPipelineError, match=r"segment 3 'zip:' .*follows a format segment"):
        zf.open_group("memory:|zarr3:|zip:", mode="r")


def test_fsspec_chains_are_unchanged(tmp_path):
    archive = tmp_path / "c.zip"
    store = ZipStore(archive)
    zf.create_group(store, attributes={"via": "chain"})
    store.close()
    assert isinstance(zf.open_group(f"zip::file://{archive}", mode="r").store, ZipStore)
    assert zf.open_group(f"zip://{archive}", mode="r").attrs["via"] == "chain"
    # a chain as the root of a pipeline goes through the same hook
    assert zf.open_group(f"zip::file://{archive}|zarr3:", mode="r").attrs["via"] == "chain"
    cached = zf.open_group(f"simplecache::file://{tmp_path}/plain.zarr", mode="w")
    assert isinstance(cached.store, FsspecStore)
