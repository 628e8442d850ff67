"""example.chunk-manifest: the conformance kit (read-only mode), and what the transformer's
docstring promises: paths through the core's reference service, keys outside the grid
refused at creation and on open, chunk writes refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError, ReadOnlyError, StoreError
from zarrforge.testing import StorageTransformerConformance

NAME = "example.chunk-manifest"
CHUNK_BYTES = 2 * 3 * 4  # the kit's int32 chunks of (2, 3)
HELD = ["0.0", "1.2", "4.4"]


def manifest_entry(path="raw/data.bin", held=HELD):
    return {
        "name": NAME,
        "configuration": {
            "manifest": {
                key: {"path": path, "offset": i * CHUNK_BYTES, "length": CHUNK_BYTES}
                for i, key in enumerate(held)
            }
        },
    }


class TestChunkManifest(StorageTransformerConformance):
    transformer_documents = [manifest_entry()]
    invalid_transformer_documents = [
        (
            {
                "name": NAME,
                "configuration": {"manifest": {"0.0": {"path": "../x", "offset": 0, "length": 4}}},
            },
            "configuration.manifest.0.0.path",
        ),
        (
            {
                "name": NAME,
                "configuration": {"manifest": {"0.0": {"path": "/etc/passwd", "offset": 0, "length": 4}}},
            },
            "configuration.manifest.0.0.path",
        ),
        (
            {
                "name": NAME,
                "configuration": {"manifest": {"0.0": {"path": "s3://bucket/x", "offset": 0, "length": 4}}},
            },
            "configuration.manifest.0.0.path",
        ),
        (
            {"name": NAME, "configuration": {"manifest": {"0.0": {"path": "x", "offset": -1, "length": 4}}}},
            "configuration.manifest.0.0.offset",
        ),
        (
            {"name": NAME, "configuration": {"manifest": {"a.b": {"path": "x", "offset": 0, "length": 4}}}},
            "configuration.manifest.a.b",
        ),
        ({"name": NAME, "configuration": {"manifest": []}}, "configuration.manifest"),
    ]
    writable = False

    def fixture(self, document, store):
        values = np.zeros(self.shape, dtype=self.dtype)
        raw = bytearray()
        for i, key in enumerate(HELD):
            ci, cj = (int(c) for c in key.split("."))
            chunk = np.arange(6, dtype="<i4").reshape(2, 3) + 10 * (i + 1)
            raw += chunk.tobytes()
            region = values[2 * ci : 2 * ci + 2, 3 * cj : 3 * cj + 3]
            region[...] = chunk[: region.shape[0], : region.shape[1]]  # edge chunks are stored whole
        store.set("raw/data.bin", bytes(raw))
        return values


def raw_array(store, entry=None, **options):
    return zf.create_array(
        store,
        "v",
        shape=(4, 6),
        chunks=(2, 3),
        dtype="int32",
        compressors=None,
        storage_transformers=[entry or manifest_entry(held=["0.0", "1.1"])],
        **options,
    )


@pytest.fixture
def store():
    s = zf.storage.MemoryStore()
    data = np.arange(12, dtype="<i4")
    s.set("raw/data.bin", data.tobytes())
    return s


def test_chunks_read_from_the_referenced_bytes(store):
    a = raw_array(store)
    expected = np.zeros((4, 6), dtype="int32")
    expected[:2, :3] = np.arange(6).reshape(2, 3)
    expected[2:, 3:] = np.arange(6, 12).reshape(2, 3)
    assert np.array_equal(a[...], expected)
    assert sorted(a.stored_chunks()) == [(0, 0), (1, 1)]


def test_a_manifest_key_outside_the_grid_is_refused_at_creation(store):
    with pytest.raises(MetadataError) as caught:
        raw_array(store, manifest_entry(held=["0.0", "2.0"]))
    assert "storage_transformers[0].configuration.manifest.2.0" in str(caught.value)
    assert "outside the array's chunk grid (2, 2)" in str(caught.value)
    assert not store.exists("v/zarr.json")


def test_a_manifest_key_outside_the_grid_is_refused_on_open(store):
    raw_array(store)
    document = json.loads(store.get("v/zarr.json"))
    document["storage_transformers"][0]["configuration"]["manifest"]["0.9"] = {
        "path": "raw/data.bin",
        "offset": 0,
        "length": 24,
    }
    store.set("v/zarr.json", json.dumps(document).encode())
    with pytest.raises(MetadataError, match=r"storage_transformers\[0\]\.configuration\.manifest\.0\.9"):
        zf.open_array(store, "v")


@pytest.mark.parametrize(
    "path",
    [
        "../outside.bin",
        "raw/../../outside.bin",
        "/tmp/outside.bin",
        "file:///tmp/outside.bin",
        "https://example.org/a.bin",
        "s3://bucket/a.bin",
    ],
)
def test_paths_outside_the_store_are_refused_unless_allowed(store, path):
    with pytest.raises(MetadataError) as caught:
        raw_array(store, manifest_entry(path=path, held=["0.0"]))
    assert "storage_transformers[0].configuration.manifest.0.0.path" in str(caught.value)


def test_an_allowed_absolute_path_or_file_url_is_read(store, tmp_path):
    data = np.arange(6, dtype="<i4") * 7
    (tmp_path / "raw.bin").write_bytes(data.tobytes())
    with zf.config.set(reference_targets=[f"{tmp_path}/"]):
        for path in (f"{tmp_path}/raw.bin", f"file://{tmp_path}/raw.bin"):
            a = raw_array(zf.storage.MemoryStore(), manifest_entry(path=path, held=["1.0"]))
            assert np.array_equal(a[2:, :3], data.reshape(2, 3))
    # the setting is checked again on open: without it, the same document is refused
    with pytest.raises(MetadataError, match="reference_targets"):
        zf.open_array(a.store, "v")


def test_a_prefix_allows_only_what_is_below_it(store, tmp_path):
    with zf.config.set(reference_targets=[f"{tmp_path}/raw/"]):
        with pytest.raises(MetadataError, match="allows no prefix"):
            raw_array(store, manifest_entry(path=f"{tmp_path}/rawer/x.bin", held=["0.0"]))


def test_chunk_writes_are_refused_and_change_nothing(store):
    a = raw_array(store)
    before = {k: store.get(k) for k in store.list()}
    for write in (
        lambda: a.__setitem__((0, 0), 5),
        lambda: a.__setitem__(Ellipsis, 1),
        lambda: a.oindex.__setitem__(([1], [4]), 2),
    ):
        with pytest.raises(ReadOnlyError):
            write()
    # a resize that would leave manifest chunks outside the grid is refused before it is written
    with pytest.raises(MetadataError, match=r"storage_transformers\[0\]\.configuration\.manifest\.1\.1"):
        a.resize((2, 3))
    assert {k: store.get(k) for k in store.list()} == before
    a.attrs["note"] = "metadata still writes"  # only chunks live elsewhere
    assert zf.open_array(store, "v").attrs["note"] == "metadata still writes"


def test_a_missing_or_short_target_is_an_error_not_the_fill_value(store):
    a = raw_array(store, manifest_entry(path="raw/missing.bin", held=["0.0"]))
    with pytest.raises(StoreError, match="missing"):
        a[...]
    store.set("raw/short.bin", b"\x00" * 10)
    b = raw_array(zf.storage.MemoryStore(), manifest_entry(path="raw/short.bin", held=["0.0"]))
    b.store.set("raw/short.bin", b"\x00" * 10)
    with pytest.raises(StoreError, match="holds 10 bytes"):
        b[...]
