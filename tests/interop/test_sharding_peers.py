"""Sharded arrays between zarrforge, zarr-python 3 and tensorstore, both directions.

Cases: index at the start and at the end, partial shards (inner chunks never
written), edge shards (array shape not a multiple of the shard shape) and
nested sharding (a sharding codec inside the inner codecs).
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorstore as ts
import zarr

import zarrforge as zf

BYTES = {"name": "bytes", "configuration": {"endian": "little"}}
INDEX = [BYTES, {"name": "crc32c"}]
ZSTD = {"name": "zstd", "configuration": {"level": 1, "checksum": False}}


def sharding(chunk_shape, codecs, location="end"):
    return {
        "name": "sharding_indexed",
        "configuration": {
            "chunk_shape": list(chunk_shape),
            "codecs": codecs,
            "index_codecs": INDEX,
            "index_location": location,
        },
    }


CASES = {
    "end": {"shape": (20, 18), "shard": (8, 6), "codecs": [sharding((4, 3), [BYTES, ZSTD])]},
    "start": {"shape": (20, 18), "shard": (8, 6), "codecs": [sharding((4, 3), [BYTES, ZSTD], "start")]},
    "nested": {"shape": (16, 16), "shard": (8, 8), "codecs": [sharding((4, 4), [sharding((2, 2), [BYTES])])]},
    "3d-edge": {"shape": (9, 7, 5), "shard": (4, 4, 4), "codecs": [sharding((2, 2, 2), [BYTES, ZSTD])]},
}
# Partial shards: only this region is written, so some inner chunks stay empty.
REGION = (slice(1, 7), slice(2, 5))


def values(shape):
    return np.arange(int(np.prod(shape)), dtype="int32").reshape(shape) * 7 - 100


def expected(case, partial):
    data = values(case["shape"])
    if not partial:
        return data
    out = np.full(case["shape"], -1, dtype="int32")
    out[REGION] = data[REGION]
    return out


def write_zarrforge(path, case, partial):
    a = zf.create_array(
        str(path),
        shape=case["shape"],
        dtype="int32",
        chunks=case["shard"],
        codecs=case["codecs"],
        fill_value=-1,
    )
    data = values(case["shape"])
    if partial:
        a[REGION] = data[REGION]
    else:
        a[...] = data


def read_zarrforge(path):
    return zf.open_array(str(path))[...]


def write_zarr_python(path, case, partial):
    z = zarr.create_array(
        str(path),
        shape=case["shape"],
        dtype="int32",
        chunks=case["shard"],
        fill_value=-1,
        serializer=_zarr_codec(case["codecs"][0]),
        compressors=None,
        filters=None,
    )
    data = values(case["shape"])
    if partial:
        z[REGION] = data[REGION]
    else:
        z[...] = data


def _zarr_codec(document):
    # zarr-python builds codec objects from their JSON form.
    from zarr.registry import get_codec_class

    cls = get_codec_class(document["name"])
    return cls.from_dict(document)


def read_zarr_python(path):
    return zarr.open_array(str(path), mode="r")[...]


def _ts_spec(path, case=None):
    spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}
    if case is not None:
        spec.update(
            create=True,
            delete_existing=True,
            metadata={
                "shape": list(case["shape"]),
                "data_type": "int32",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(case["shard"])}},
                "chunk_key_encoding": {"name": "default"},
                "fill_value": -1,
                "codecs": case["codecs"],
            },
        )
    return spec


def write_tensorstore(path, case, partial):
    t = ts.open(_ts_spec(path, case)).result()
    data = values(case["shape"])
    if partial:
        t[REGION].write(data[REGION]).result()
    else:
        t.write(data).result()


def read_tensorstore(path):
    return ts.open(_ts_spec(path)).result().read().result()


WRITERS = {"zarrforge": write_zarrforge, "zarr-python": write_zarr_python, "tensorstore": write_tensorstore}
READERS = {"zarrforge": read_zarrforge, "zarr-python": read_zarr_python, "tensorstore": read_tensorstore}
PAIRS = [("zarrforge", peer) for peer in ("zarr-python", "tensorstore")] + [
    (peer, "zarrforge") for peer in ("zarr-python", "tensorstore")
]


@pytest.mark.parametrize("partial", [False, True], ids=["full", "partial"])
@pytest.mark.parametrize("case_id", sorted(CASES))
@pytest.mark.parametrize("writer,reader", PAIRS, ids=[f"{w}->{r}" for w, r in PAIRS])
def test_sharded_arrays_interoperate(tmp_path, writer, reader, case_id, partial):
    case = CASES[case_id]
    WRITERS[writer](tmp_path / "a.zarr", case, partial)
    got = np.asarray(READERS[reader](tmp_path / "a.zarr"))
    assert np.array_equal(got, expected(case, partial))


@pytest.mark.parametrize("writer", ["zarr-python", "tensorstore"])
def test_zarrforge_reads_peer_shards_partially_and_updates_them_in_place(tmp_path, writer):
    case = CASES["end"]
    WRITERS[writer](tmp_path / "a.zarr", case, False)
    a = zf.open_array(str(tmp_path / "a.zarr"), mode="r+")
    data = values(case["shape"])
    assert np.array_equal(a[3:5, 4:10], data[3:5, 4:10])
    a[3:5, 4:10] = 0
    data[3:5, 4:10] = 0
    for reader in ("zarr-python", "tensorstore"):
        assert np.array_equal(np.asarray(READERS[reader](tmp_path / "a.zarr")), data), reader
