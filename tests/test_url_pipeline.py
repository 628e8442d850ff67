"""URL pipelines (``|``-chained URLs, the url-pipeline standard / ZEP 8): the parser
against the standard's grammar and examples, escaping, errors naming the segment, and
resolution through the ``url_adapters`` registry (built-ins from entry points, a
third-party adapter registered in-process). Zip and S3 pipelines: plugins/fsspec/tests."""

from __future__ import annotations

import dataclasses
import os
import re

import numpy as np
import pytest

import zarrforge as zf
from zarrforge import registry
from zarrforge.abc.store import WrapperStore
from zarrforge.abc.url_adapter import PipelineState, URLAdapter
from zarrforge.errors import InvalidPathError, UnknownExtensionError, URLPipelineError
from zarrforge.storing import url_pipeline
from zarrforge.storing.storage import resolve_location, resolve_store
from zarrforge.testing.kit_store import KitMemoryStore

# Example URLs of the url-pipeline standard (its README and per-scheme pages) and of
# ZEP 8, with the scheme of each segment. Parsing does not need an adapter for them.
STANDARD_EXAMPLES = [
    ("s3://bucket/path/to/archive.zip|zip:path/within/zip.zarr/|zarr3:", ("s3", "zip", "zarr3")),
    ("file:///tmp/dataset.ocdbt/|ocdbt://2025-01-01T01:23:45.678Z/path/within/database", ("file", "ocdbt")),
    (
        "s3+https://example.com/path/to/database.icechunk/|icechunk://tag.v5/path/to/node/|zarr3:",
        ("s3+https", "icechunk", "zarr3"),
    ),
    ("vendor1-2.custom-1+proto.ext://[authority]/path?query/part?x", ("vendor1-2.custom-1+proto.ext",)),
    (
        "http://example.com/file|vendor1-2.custom+adapter:/path/within/adapter",
        ("http", "vendor1-2.custom+adapter"),
    ),
    ("a.b:?", ("a.b",)),
    ("http://somehost/downloads/somefile.zip|zip:", ("http", "zip")),
    ("https://host/archive.zip|zip:path/in/outer.zip|zip:path/in/inner", ("https", "zip", "zip")),
    ("file:/path/to/image.avif|avif", ("file", "avif")),
    ("file:/path/to/data|byte-range:1000-2000", ("file", "byte-range")),
    ("file://localhost/path/to/file.txt", ("file",)),
    ("file://somehost/sharename/path/to/file.txt", ("file",)),
    ("gs://bucket", ("gs",)),
    ("s3://bucket/path/to/file.h5|hdf5:/path/to/dataset", ("s3", "hdf5")),
    ("https://example.com/path/to/resource%20name", ("https",)),
    ("https://example.com/path/to/resource?query=value", ("https",)),
    ("https://example.com/path/with:colon", ("https",)),
    ("http://[::ffff:127.0.0.1]", ("http",)),
    ("http://local%68ost", ("http",)),
    ("file:///path/to/repo.zarr.icechunk/|icechunk:|zarr3:path/to/array/", ("file", "icechunk", "zarr3")),
    (
        "file:///path/to/repo.zarr.icechunk/|icechunk://FWWFQGAW742XMX0F5MF0/path/to/node/",
        ("file", "icechunk"),
    ),
    ("file:/path/to/data.json|json:/abc~1def", ("file", "json")),
    ("memory:", ("memory",)),
    ("memory://path/to/resource", ("memory",)),
    ("memory:another@path+with,lots&of(special;characters)*_!-$'", ("memory",)),
    ("file:///tmp/data.n5/|n5:path/to/array", ("file", "n5")),
    ("file:///tmp/dataset.precomputed/|neuroglancer-precomputed", ("file", "neuroglancer-precomputed")),
    ("file:///path/to/repo.ocdbt/|ocdbt://v123/path/within/repo", ("file", "ocdbt")),
    ("s3+http://example.com/", ("s3+http",)),
    ("file:///path/to/node.zarr/|zarr2", ("file", "zarr2")),
    ("file:///path/to/node.zarr/|zarr:", ("file", "zarr")),
    ("file:/path/to/outer.zip|zip:path/to/inner.zip|zip:path/to/file.txt", ("file", "zip", "zip")),
    ("file:/path/to/data.zstd|zstd", ("file", "zstd")),
    # ZEP 8
    ("https://server.example.com:1234/path/to/array", ("https",)),
    (
        "gs://bucket/path/to/outer.zip|zip:path/to/inner.zip|zip:path/to/zarr/hierarchy|zarr3:path/to/array",
        ("gs", "zip", "zip", "zarr3"),
    ),
    ("https://example.com/path/to/archive.zip|zip|zarr3", ("https", "zip", "zarr3")),
    ("file:///tmp/dataset.ocdbt/|ocdbt:@v1/path/within/database", ("file", "ocdbt")),
]
ZEP8_RELATIVE = (
    "gs://bucket/path/to/outer.zip|zip:path/to/inner.zip|..:other/zarr/hierarchy|zarr3:path/to/array"
)


def _upper_schemes(url: str) -> str:
    return re.sub(r"(^|\|)([A-Za-z][A-Za-z0-9+.\-]*)", lambda m: m.group(1) + m.group(2).upper(), url)


@pytest.mark.parametrize("url,schemes", STANDARD_EXAMPLES)
def test_the_standards_examples_parse_into_their_segments_losslessly(url, schemes):
    segments = url_pipeline.parse(url)
    assert tuple(s.scheme for s in segments) == schemes
    assert url_pipeline.unparse(segments) == url
    assert [s.position for s in segments] == list(range(len(schemes)))
    upper = url_pipeline.parse(_upper_schemes(url))
    assert tuple(s.scheme for s in upper) == schemes  # schemes are case-insensitive


def test_zep8_dotdot_segment_is_not_a_scheme():
    # ZEP 8's "..:" traversal is a relative-pipeline feature this engine does not support:
    # the parser refuses it plainly, naming the segment, instead of guessing.
    with pytest.raises(URLPipelineError, match=r"segment 3 '\.\.:other/zarr/hierarchy'.*not a URL scheme"):
        url_pipeline.parse(ZEP8_RELATIVE)


def test_segment_parts_and_an_omitted_colon():
    root, zip_, fmt = url_pipeline.parse("s3://b/x.zip|ZIP|zarr3:grp/arr")
    assert (root.scheme, root.body, root.raw) == ("s3", "//b/x.zip", "s3://b/x.zip")
    assert (zip_.scheme, zip_.body, zip_.raw) == ("zip", "", "ZIP")
    assert (fmt.scheme, fmt.body, fmt.path()) == ("zarr3", "grp/arr", "grp/arr")


@pytest.mark.parametrize(
    "url",
    [
        "/abs/path/data.zarr|zarr3:",
        "data.zip|zip:",
        "C:\\data\\x.zip|zip:",
        "zip::s3://bucket/x.zip|zarr3:a",
        "~/d 100%.zarr|zarr3:",
    ],
)
def test_a_bare_path_or_fsspec_chain_root_has_no_scheme_and_stays_as_written(url):
    root = url_pipeline.parse(url)[0]
    assert root.scheme == "" and root.body == root.raw == url.split("|")[0]


def test_percent_escapes_decode_in_paths_and_keep_the_separator_out():
    segment = url_pipeline.parse("memory:|zarr3:a%7Cb/c%20d/%25")[1]
    assert segment.body == "a%7Cb/c%20d/%25"
    assert segment.path() == "a|b/c d/%"


def test_strings_without_a_separator_are_not_pipelines():
    assert not url_pipeline.is_pipeline("file:/tmp/x")
    assert not url_pipeline.is_pipeline("zip::s3://b/x.zip")
    assert not url_pipeline.is_pipeline(os.path.join("a", "b"))
    assert url_pipeline.is_pipeline("memory:|zarr3:")


@pytest.mark.parametrize(
    "url,fragment",
    [
        ("|zarr3:a", r"segment 1 of the URL pipeline '\|zarr3:a' is empty \(at the start\)"),
        ("memory:|", r"segment 2 of the URL pipeline 'memory:\|' is empty \(at the end\)"),
        ("memory:||zarr3:a", r"segment 2 .* is empty \(between '\|\|'\).*'scheme:body'.*%7C"),
        ("memory:|1zip:", r"segment 2 '1zip:' .*'1zip' is not a URL scheme"),
        ("memory:|zip :", r"segment 2 'zip :' .*'zip ' is not a URL scheme"),
        ("memory:| zarr3:a", r"segment 2 ' zarr3:a' .*white space.*%20"),
        ("memory:|zarr3:a#b", r"segment 2 'zarr3:a#b' .*fragment.*%23"),
        ("memory:|zarr3:a%zz", r"segment 2 'zarr3:a%zz' .*percent-escape"),
        ("memory:x%|zarr3:a", r"segment 1 'memory:x%' .*percent-escape"),
    ],
)
def test_malformed_pipelines_name_the_segment_and_what_is_valid(url, fragment):
    with pytest.raises(URLPipelineError, match=fragment) as info:
        url_pipeline.parse(url)
    assert isinstance(info.value, InvalidPathError) and isinstance(info.value, ValueError)
    assert info.value.url == url


@pytest.mark.parametrize(
    "body,fragment",
    [
        ("a?x=1", r"takes a path and no query.*%3F"),
        ("a/../b", r"'\.\.' component"),
        ("a//b", r"empty, '\.' or '\.\.' component"),
        ("a%FF", r"UTF-8"),
    ],
)
def test_bad_paths_in_a_segment_name_it(body, fragment):
    with pytest.raises(URLPipelineError, match=rf"segment 2 'zarr3:{re.escape(body)}'.*{fragment}"):
        zf.open_group(f"memory:|zarr3:{body}", mode="w")


# --- resolution --------------------------------------------------------------------------


def test_memory_zarr2_creates_and_reads_a_v2_array():
    array = zf.create_array("memory:pipe-v2|zarr2:a", shape=(6,), dtype="int32", chunks=(4,))
    array[:] = np.arange(6)
    assert array.metadata_model.format_name == "2" and array.path == "a"
    assert "a/.zarray" in set(array.store.list())
    again = zf.open_array("memory:pipe-v2|zarr2:a")
    assert again.metadata_model.format_name == "2"
    np.testing.assert_array_equal(again[:], np.arange(6))
    # zarr3: asks only the v3 format, which finds no array there
    with pytest.raises(zf.errors.NodeNotFoundError):
        zf.open_array("memory:pipe-v2|zarr3:a")


def test_an_empty_memory_root_is_a_new_store_each_time():
    first = zf.create_group("memory:|zarr3:")
    assert first.metadata_model.format_name == "3"
    with pytest.raises(zf.errors.NodeNotFoundError):
        zf.open_group("memory:|zarr3:", mode="r")


def test_the_pipeline_path_comes_first_then_path():
    array = zf.create_array("memory:pipe-join|zarr3:grp", "sub/arr", shape=(2,), dtype="uint8")
    assert array.path == "grp/sub/arr"
    group = zf.open_group("memory:pipe-join|zarr3:grp/sub", mode="r")
    assert list(group.keys()) == ["arr"]
    location = resolve_location("memory:pipe-join|zarr3:grp/", "/sub/arr/")
    assert location.path == "grp/sub/arr" and location.zarr_format == "3"
    with pytest.raises(URLPipelineError, match=r"'memory:pipe-join\|zarr3:grp' with path='__zarr'"):
        resolve_location("memory:pipe-join|zarr3:grp", "__zarr")


def test_a_format_segment_contradicting_zarr_format_names_both():
    with pytest.raises(URLPipelineError, match=r"chooses zarr_format '2'.*zarr_format=3 was passed"):
        zf.create_array("memory:|zarr2:a", shape=(1,), dtype="i1", zarr_format=3)
    with pytest.raises(URLPipelineError, match=r"chooses zarr_format '3'.*zarr_format='2'"):
        zf.open_group("memory:|zarr3:", zarr_format="2")
    # agreeing is fine, as an int or a str
    assert zf.create_group("memory:|zarr2:g", zarr_format=2).metadata_model.format_name == "2"


def test_two_format_segments_that_disagree_are_refused():
    with pytest.raises(
        URLPipelineError,
        match=r"segment 3 'zarr2:b'.*chooses zarr_format '2'.*"
        r"'zarr3:a' before it chose '3'",
    ):
        zf.create_group("memory:|zarr3:a|zarr2:b")


def test_zarr_segment_detects_the_format_and_draft_segment_selects_the_draft():
    zf.create_group("memory:pipe-any|zarr2:old")
    assert zf.open_group("memory:pipe-any|zarr:old", mode="r").metadata_model.format_name == "2"
    draft = zf.create_group("memory:pipe-draft|zarr-draft-2022:g")
    assert draft.metadata_model.format_name == "draft-2022"


def test_file_roots_in_the_standards_forms(tmp_path, monkeypatch):
    target = tmp_path / "d d.zarr"
    zf.create_array(f"file:{tmp_path}/d%20d.zarr|zarr3:", shape=(3,), dtype="f4")[:] = 2
    assert (target / "zarr.json").is_file()
    for url in (
        f"file://{tmp_path}/d%20d.zarr|zarr3:",
        f"file://localhost{tmp_path}/d%20d.zarr|zarr3",
        f"{target}|zarr3:",
    ):
        np.testing.assert_array_equal(zf.open_array(url)[:], [2, 2, 2])
    monkeypatch.chdir(tmp_path)
    np.testing.assert_array_equal(zf.open_array("file:d%20d.zarr|zarr3:")[:], [2, 2, 2])
    with pytest.raises(URLPipelineError, match=r"names the host 'server'"):
        zf.open_array("file://server/share/x|zarr3:")
    with pytest.raises(URLPipelineError, match=r"segment 1 'file:' .*: names no path; valid: file:/abs/path"):
        zf.open_array("file:|zarr3:")


def test_root_only_and_follower_only_adapters_say_where_they_belong():
    with pytest.raises(
        URLPipelineError,
        match=r"segment 1 'zarr3:a'.*cannot start a pipeline.*"
        r"'memory:\|zarr3:group/array'",
    ):
        zf.open_group("zarr3:a|zarr3:b")
    with pytest.raises(URLPipelineError, match=r"segment 2 'memory:'.*only be the first segment"):
        zf.open_group("memory:|memory:")


def test_reading_gives_a_read_only_store():
    zf.create_group("memory:pipe-ro|zarr3:g")
    group = zf.open_group("memory:pipe-ro|zarr3:g", mode="r")
    assert group.store.read_only and group.read_only


def test_an_unknown_scheme_suggests_close_names_and_the_segment():
    with pytest.raises(UnknownExtensionError) as info:
        zf.open_array("memory:|zarp3:a")
    message = str(info.value)
    assert "unknown URL adapter 'zarp3'; did you mean 'zarr3'?" in message
    assert "segment 2 'zarp3:a' of the URL pipeline 'memory:|zarp3:a'" in message
    assert isinstance(info.value, ValueError)
    # an unknown root scheme too, and nothing is opened before the check
    with pytest.raises(UnknownExtensionError, match=r"unknown URL adapter 'fiel'; did you mean 'file'"):
        zf.open_array("fiel:/tmp/x|zarr3:")
    with pytest.raises(UnknownExtensionError, match=r"'zipp'; did you mean 'zip'"):
        zf.create_group("memory:pipe-unknown|zipp:|zarr3:")
    assert "zarr.json" not in set(resolve_store("memory://pipe-unknown").list())


def test_resolve_store_refuses_a_pipeline_that_names_a_node():
    store = resolve_store("memory:pipe-store|zarr:")  # format-free, path-free: a store
    assert store is resolve_store("memory://pipe-store")
    with pytest.raises(URLPipelineError, match=r"names a node \(path 'a', format '3'\).*only a store"):
        resolve_store("memory:pipe-store|zarr3:a")


def test_strings_without_a_separator_resolve_as_before(tmp_path, monkeypatch):
    # "file:x" without "|" is refused (issue #41: a store's scheme without "//" made a local
    # directory named "file:x"); the directory of that name is "./file:x"
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidPathError, match="write the local path 'x'"):
        resolve_store("file:x")
    assert resolve_store("./file:x").root == os.path.join(str(tmp_path), "file:x")
    assert resolve_store("memory://pipe-plain") is resolve_store("memory://pipe-plain")


# --- a third-party adapter, registered in-process ----------------------------------------


class Counting(WrapperStore):
    """Counts reads; stands for any store a third party would wrap (a cache, a repo)."""

    def __init__(self, inner):
        super().__init__(inner)
        self.reads = 0

    def get(self, key, byte_range=None):
        self.reads += 1
        return super().get(key, byte_range)


class CountingAdapter(URLAdapter):
    """``...|counting:`` wraps what is before it; as a root, ``counting:NAME`` is a
    new named memory store wrapped."""

    name = "counting"
    seen: list = []

    @classmethod
    def resolve(cls, base, segment, *, read_only, storage_options):
        cls.seen.append((base.url if base else None, segment.raw, read_only, dict(storage_options)))
        if base is None:
            inner = resolve_store(f"memory://{segment.path()}", read_only=read_only)
            return PipelineState(Counting(inner))
        return dataclasses.replace(base, store=Counting(base.store), path=segment.path() or base.path)


class Broken(URLAdapter):
    name = "broken"

    @classmethod
    def resolve(cls, base, segment, *, read_only, storage_options):
        return base.store


@pytest.fixture
def counting():
    CountingAdapter.seen = []
    zf.register("url_adapters", "counting", CountingAdapter)
    zf.register("url_adapters", "broken", Broken)
    try:
        yield CountingAdapter
    finally:
        registry.url_adapters.unregister("counting")
        registry.url_adapters.unregister("broken")


def test_a_third_party_adapter_is_used_for_its_scheme(counting):
    array = zf.create_array("memory:pipe-tp|counting:|zarr3:x", shape=(3,), dtype="i2")
    array[:] = 7
    assert isinstance(array.store, Counting)
    reopened = zf.open_array("memory:pipe-tp|COUNTING|zarr3:x", mode="r")
    np.testing.assert_array_equal(reopened[:], [7, 7, 7])
    assert reopened.store.reads > 0
    assert counting.seen[-1] == ("memory:pipe-tp", "COUNTING", True, {})
    # as a root, with the caller's storage_options handed over
    zf.create_group("counting:tp-root|zarr3:g", storage_options={"token": "t"})
    assert counting.seen[-1] == (None, "counting:tp-root", False, {"token": "t"})
    assert "g/zarr.json" in set(resolve_store("memory://tp-root").list())


def test_an_adapter_returning_something_else_is_named(counting):
    with pytest.raises(
        URLPipelineError,
        match=r"URL adapter 'broken' .*Broken\) returned "
        r".* not a PipelineState holding a Store",
    ):
        zf.open_group("memory:|broken:")


def test_every_store_scheme_is_a_root_without_an_adapter_of_its_own():
    """A store registered under a scheme (here in-process; installed ones through
    ``zarrforge.stores``) roots pipelines with the caller's storage options, and no second
    registration as a URL adapter."""
    seen = []

    class TokenStore(KitMemoryStore):
        @classmethod
        def from_url(cls, url, *, read_only=False, **options):
            seen.append((url, read_only, options))
            store = cls()
            return store.read_only_view() if read_only else store

    assert "tokenstore" not in registry.url_adapters
    zf.register("stores", "tokenstore", TokenStore)
    try:
        group = zf.create_group("tokenstore://bucket/d|zarr3:g", storage_options={"token": "t"})
        assert isinstance(group.store, TokenStore) and group.path == "g"
        assert seen == [("tokenstore://bucket/d", False, {"token": "t"})]
        with pytest.raises(
            URLPipelineError,
            match=r"segment 1 'tokenstore:bucket/d'.*a 'tokenstore' "
            r"root names its location after '//'",
        ):
            zf.open_group("tokenstore:bucket/d|zarr3:g")
    finally:
        registry.stores.unregister("tokenstore")
    with pytest.raises(UnknownExtensionError, match="unknown URL adapter 'tokenstore'"):
        zf.open_group("tokenstore:bucket/d|zarr3:g")


def test_an_adapter_must_be_a_url_adapter():
    with pytest.raises(
        zf.errors.PluginLoadError, match="not a subclass of zarrforge.abc.url_adapter.URLAdapter"
    ):
        zf.register("url_adapters", "nope", object)


class _FileFinder(URLAdapter):
    """Finds the file the segments before it name, as the plugin guide says an adapter
    after ``file:`` does, and records it."""

    name = "test.find-file"
    found: list = []

    @classmethod
    def resolve(cls, base, segment, *, read_only, storage_options):
        segment.not_first("file:/d/data.bin|test.find-file:")
        directory = base.store.local_directory()
        if directory is None:
            raise segment.error("needs a local file before it")
        cls.found.append(os.path.join(directory, *base.path.split("/")) if base.path else directory)
        return base


def test_an_adapter_after_file_finds_its_file_through_local_directory(tmp_path):
    target = tmp_path / "sub dir" / "data.zarr"
    zf.create_array(str(target), shape=(2,), dtype="int8")[:] = 3
    registry.url_adapters.register(_FileFinder.name, _FileFinder)
    try:
        _FileFinder.found.clear()
        url = f"file:{str(target).replace(' ', '%20')}|test.find-file:|zarr3:"
        assert zf.open_array(url, mode="r")[:].tolist() == [3, 3]
        with pytest.raises(URLPipelineError, match="needs a local file before it"):
            zf.open_array("memory:|test.find-file:|zarr3:", mode="r")
    finally:
        registry.url_adapters.unregister(_FileFinder.name)
    assert _FileFinder.found == [str(target)]
