"""Array.info, info_complete() and Group.info: the facts a user asks for, codecs and data
types in their metadata spelling, what is stored, and HTML for Jupyter."""

from __future__ import annotations

import numpy as np

import zarrforge as zf
from zarrforge.user_api.info import human_bytes


def test_array_info_shows_shapes_and_codecs_in_their_spec_spelling():
    array = zf.create_array(
        None, shape=(100, 100), chunks=(10, 10), shards=(50, 50), dtype="float32", dimension_names=["y", "x"]
    )
    info = array.info
    assert info.value("Shape") == (100, 100)
    assert info.value("Chunk shape") == (10, 10) and info.value("Shard shape") == (50, 50)
    assert info.value("Data type") == "float32"
    assert info.value("Compressors") == [{"name": "zstd", "configuration": {"level": 0, "checksum": False}}]
    lines = str(info).splitlines()
    assert 'Compressors     : [{"name": "zstd", "configuration": {"level": 0, "checksum": false}}]' in lines
    assert 'Serializer      : {"name": "bytes", "configuration": {"endian": "little"}}' in lines
    assert "No. bytes       : 40000 (39.1 KiB)" in lines
    assert "Dimension names : ('y', 'x')" in lines
    assert not any(line.startswith("No. bytes stored") for line in lines)  # reads nothing


def test_info_complete_adds_what_is_stored():
    array = zf.create_array(None, shape=(100, 100), chunks=(10, 10), shards=(50, 50), dtype="float32")
    array[:50] = 1.0
    info = array.info_complete()
    assert info.value("Shards initialized") == "2/4"
    stored = array.nbytes_stored()
    assert info.value("No. bytes stored") == human_bytes(stored)
    assert float(info.value("Storage ratio")) == round(40000 / stored, 1)
    plain = zf.create_array(None, shape=(6,), chunks=(2,), dtype="i2", compressors=None)
    plain[:2] = 1
    assert plain.info_complete().value("Chunks initialized") == "1/3"


def test_an_array_and_a_group_show_themselves_in_jupyter():
    group = zf.group(None)
    group.create_array("a", shape=(2,), dtype="i1")
    group.create_group("s").create_array("b", shape=(3, 3), dtype="f8")
    tree = group._repr_html_()
    assert "<li>a <code>(2,) int8, 2 B</code></li>" in tree
    assert "<li>s/<ul><li>b <code>(3, 3) float64, 72 B</code></li></ul></li>" in tree
    table = group["a"]._repr_html_()
    assert table.startswith("<table><caption>zarrforge.Array &#x27;/a&#x27;</caption>")
    assert "<th style='text-align:left'>Shape</th><td style='text-align:left'>(2,)</td>" in table


def test_group_info_counts_its_members():
    group = zf.group(None)
    group.create_array("a", shape=(2,), dtype="i1")
    group.create_group("s")
    info = group.info
    assert (info.value("No. members"), info.value("No. arrays"), info.value("No. groups")) == (2, 1, 1)
    assert info.value("Zarr format") == "3"


def test_human_bytes():
    assert human_bytes(72) == "72 B"
    assert human_bytes(40000) == "40000 (39.1 KiB)"
    assert human_bytes(3 * 2**30) == "3221225472 (3.0 GiB)"
    assert np.isclose(float(human_bytes(2**20).split("(")[1].split()[0]), 1.0)


DRAFT_SHARDING = {
    "name": "https://purl.org/zarr/spec/storage_transformers/sharding/1.0",
    "configuration": {"type": "indexed", "chunks_per_shard": [2]},
}


def test_array_info_shows_storage_transformers_when_there_are_any():
    array = zf.create_array(
        None, shape=(8,), chunks=(2,), dtype="int8", storage_transformers=[DRAFT_SHARDING]
    )
    info = array.info
    assert info.value("Storage transformers") == [DRAFT_SHARDING]
    assert (
        'Storage transformers : [{"name": "https://purl.org/zarr/spec/storage_transformers/'
        'sharding/1.0", "configuration": {"type": "indexed", "chunks_per_shard": [2]}}]'
        in str(info).splitlines()
    )
    assert "Storage transformers" in info._repr_html_()
    plain = zf.create_array(None, shape=(8,), chunks=(2,), dtype="int8")
    assert not any(line.startswith("Storage transformers") for line in str(plain.info).splitlines())
