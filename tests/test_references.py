"""The reference service of storage transformers (issue #50,
:mod:`zarrforge.storing.references`): which targets a document may make the engine read,
and how they are read by byte range."""

from __future__ import annotations

import os

import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError, StoreError
from zarrforge.plugin_api import ReferenceReader, check_reference


def allowed(target, prefixes):
    try:
        check_reference(target, field="configuration.path", allowed=prefixes)
    except MetadataError as exc:
        assert exc.field == "configuration.path"
        return False
    return True


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "ok.bin").write_bytes(b"0123456789")
    (tmp_path / "secret").write_bytes(b"not for documents")
    os.symlink(tmp_path / "secret", tmp_path / "raw" / "link")
    return tmp_path


@pytest.mark.parametrize("key", ["raw/a.bin", "a", "deep/er/x.bin"])
def test_store_keys_are_always_allowed(key):
    assert allowed(key, ())


@pytest.mark.parametrize("key", ["../x", "raw/../../x", "./x", "a//b", "", 7, None])
def test_keys_that_climb_or_are_not_keys_are_refused(key):
    assert not allowed(key, "any")


def test_absolute_paths_and_urls_are_refused_by_default(tree):
    for target in (
        f"{tree}/raw/ok.bin",
        f"file://{tree}/raw/ok.bin",
        "s3://bucket/x",
        "https://example.org/x",
    ):
        assert not allowed(target, None)  # the setting's default: nothing outside the store


def test_prefixes_match_whole_path_components(tree):
    assert allowed(f"{tree}/raw/ok.bin", [f"{tree}/raw"])
    assert allowed(f"{tree}/raw/ok.bin", [f"file://{tree}/raw/"])
    assert not allowed(f"{tree}/rawer/x", [f"{tree}/raw"])
    assert allowed("s3://bucket/raw/x", ["s3://bucket/raw"]) and not allowed(
        "s3://bucket/rawer", ["s3://bucket/raw"]
    )
    assert allowed("s3://anything/x", ["s3://"]) and not allowed("gs://anything/x", ["s3://"])
    # one prefix given alone, not as a list
    assert allowed(f"{tree}/raw/ok.bin", f"{tree}/raw") and not allowed(f"{tree}/secret", f"{tree}/raw")


def test_a_link_below_an_allowed_prefix_is_checked_where_it_leads(tree):
    assert not allowed(f"{tree}/raw/link", [f"{tree}/raw/"])
    assert allowed(f"{tree}/raw/link", [f"{tree}/"])


@pytest.mark.parametrize(
    "target", ["s3://bucket/raw/../x", "s3://bucket/raw/%2e%2e/x", "file:///data/./x", "/data/../etc"]
)
def test_dot_segments_are_refused_even_when_any_target_is_trusted(target):
    assert not allowed(target, "any")


def test_any_trusts_every_target(tree):
    assert allowed(f"{tree}/secret", "any") and allowed("https://example.org/a.bin", "any")


def test_the_setting_in_force_is_used_and_checked():
    with zf.config.set(reference_targets=["/data/raw/"]):
        assert allowed("/data/raw/x.bin", None)
    assert not allowed("/data/raw/x.bin", None)
    for bad in (["relative/"], ["/data/../etc/"], [3], {"a": 1}):
        with pytest.raises(ValueError, match="reference_targets"):
            zf.config.set(reference_targets=bad)


def test_reads_by_byte_range_from_the_store_and_from_allowed_files(tree):
    store = zf.storage.MemoryStore()
    store.set("raw/a.bin", b"abcdefgh")
    reader = ReferenceReader(store, allowed=[f"{tree}/raw/"])
    assert reader.read_many(
        [("raw/a.bin", 2, 3), (f"{tree}/raw/ok.bin", 5, 5), (f"file://{tree}/raw/ok.bin", 0, 1)]
    ) == [
        b"cde",
        b"56789",
        b"0",
    ]
    reader.close()


def test_a_missing_or_short_target_is_a_store_error(tree):
    reader = ReferenceReader(zf.storage.MemoryStore(), allowed=[f"{tree}/"])
    with pytest.raises(StoreError, match="missing"):
        reader.read(f"{tree}/raw/absent.bin", 0, 1)
    with pytest.raises(StoreError, match="holds 5 bytes from offset 5, not the 6"):
        reader.read(f"{tree}/raw/ok.bin", 5, 6)


def test_a_read_checks_the_target_again_and_refuses_negative_ranges(tree):
    reader = ReferenceReader(zf.storage.MemoryStore())
    with pytest.raises(MetadataError, match="allows no prefix"):
        reader.read(f"{tree}/raw/ok.bin", 0, 1)
    with pytest.raises(MetadataError, match="non-negative"):
        reader.read("raw/a.bin", -1, 1)
