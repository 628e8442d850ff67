"""zarr-python 3's codec class names on zarrforge (issue #43): ``zarrforge.codecs`` and
``zarrforge.codecs.numcodecs``, each name the class the codec registry answers.

The JSON literals marked "zarr-python 3.4.2" were observed from zarr-python 3.4.2 for the
same objects and the same ``create_array`` calls (``to_dict()`` and the ``codecs`` of its
``zarr.json``; tuples shown as JSON lists); tests/interop/test_zarr34_codec_names.py
compares against a live zarr-python 3.4.2.
"""

from __future__ import annotations

import json
import lzma
import pickle
import sys

import numpy as np
import pytest

import zarrforge as zarr
import zarrforge.abc.codec
import zarrforge.codecs
import zarrforge.codecs.numcodecs
from zarrforge import registry
from zarrforge.errors import MetadataError, UnknownExtensionError

# zarr-python 3.4.2's zarr.codecs.__all__, and zarr.codecs.numcodecs.__all__ less its
# private base classes
ZARR_PYTHON_CODECS_ALL = [
    "BloscCname",
    "BloscCodec",
    "BloscShuffle",
    "BytesCodec",
    "CastValue",
    "Crc32cCodec",
    "Endian",
    "GzipCodec",
    "ScaleOffset",
    "ShardingCodec",
    "ShardingCodecIndexLocation",
    "SubchunkWriteOrder",
    "TransposeCodec",
    "VLenBytesCodec",
    "VLenUTF8Codec",
    "ZstdCodec",
]
ZARR_PYTHON_NUMCODECS_ALL = [
    "BZ2",
    "CRC32",
    "CRC32C",
    "LZ4",
    "LZMA",
    "ZFPY",
    "Adler32",
    "AsType",
    "BitRound",
    "Blosc",
    "Delta",
    "FixedScaleOffset",
    "Fletcher32",
    "GZip",
    "JenkinsLookup3",
    "PCodec",
    "PackBits",
    "Quantize",
    "Shuffle",
    "Zlib",
    "Zstd",
]

LZMA_FILTERS = [{"id": lzma.FILTER_DELTA, "dist": 4}, {"id": lzma.FILTER_LZMA2, "preset": 1}]


# --- the names ---------------------------------------------------------------------------


def test_every_zarr_python_name_is_here_but_the_one_said_not_to_be():
    assert sorted(zarrforge.codecs.__all__) == sorted(
        set(ZARR_PYTHON_CODECS_ALL) - set(zarrforge.codecs.NOT_PROVIDED)
    )
    assert sorted(zarrforge.codecs.numcodecs.__all__) == sorted(ZARR_PYTHON_NUMCODECS_ALL)
    assert set(zarrforge.codecs.__all__) | {"numcodecs"} <= set(dir(zarrforge.codecs))
    assert set(ZARR_PYTHON_NUMCODECS_ALL) <= set(dir(zarrforge.codecs.numcodecs))
    assert zarr.codecs is zarrforge.codecs and zarr.codecs.numcodecs is zarrforge.codecs.numcodecs


@pytest.mark.parametrize("class_name,codec", sorted(zarrforge.codecs.CODEC_CLASSES.items()))
def test_a_codec_name_is_the_registered_class(class_name, codec):
    found = getattr(zarrforge.codecs, class_name)
    assert found is registry.codecs.get(codec)
    assert found.name == codec


@pytest.mark.parametrize("class_name", ZARR_PYTHON_NUMCODECS_ALL)
def test_a_numcodecs_name_is_a_class_of_the_numcodecs_family(class_name):
    found = getattr(zarrforge.codecs.numcodecs, class_name)
    codec = f"numcodecs.{zarrforge.codecs.numcodecs.NUMCODECS_CLASSES[class_name]}"
    assert found is getattr(zarrforge.codecs.numcodecs, class_name)  # one class per name
    assert issubclass(found, registry.codecs.get(codec))
    assert found.__name__ == class_name and found.__module__ == "zarrforge.codecs.numcodecs"


def test_unknown_names_are_attribute_errors_listing_the_names():
    with pytest.raises(AttributeError, match="no attribute 'NoSuchCodec'.*BloscCodec"):
        zarrforge.codecs.NoSuchCodec
    with pytest.raises(AttributeError, match="subchunk_write_order"):
        zarrforge.codecs.SubchunkWriteOrder
    with pytest.raises(AttributeError, match="no attribute 'Gzip'.*GZip"):
        zarrforge.codecs.numcodecs.Gzip
    assert not hasattr(zarrforge.codecs, "NoSuchCodec")


def test_a_missing_plugin_is_named_with_its_install_hint():
    with registry.codecs.hidden("blosc"):
        with pytest.raises(
            UnknownExtensionError,
            match=r"(?s)'blosc'.*pip install zarrforge-numcodecs.*"
            r"zarrforge\.codecs\.BloscCodec",
        ):
            zarrforge.codecs.BloscCodec
    with registry.codecs.hidden("sharding_indexed"):
        with pytest.raises(UnknownExtensionError, match="zarrforge-sharding"):
            from zarrforge.codecs import ShardingCodec  # noqa: F401
    with registry.codecs.hidden("numcodecs.*"):
        with pytest.raises(
            UnknownExtensionError, match=r"(?s)zarrforge-numcodecs.*zarrforge\.codecs\.numcodecs\.LZMA"
        ):
            zarrforge.codecs.numcodecs.LZMA
    assert zarrforge.codecs.BloscCodec is registry.codecs.get("blosc")  # back once shown


# --- constructors and JSON -----------------------------------------------------------------


def test_blosc_takes_zarr_python_arguments_and_enums():
    codec = zarr.codecs.BloscCodec(typesize=4, cname="zstd", clevel=3, shuffle="bitshuffle")
    # zarr-python 3.4.2: the same to_dict()
    assert (
        codec.to_dict()
        == codec.to_json()
        == {
            "name": "blosc",
            "configuration": {
                "typesize": 4,
                "cname": "zstd",
                "clevel": 3,
                "shuffle": "bitshuffle",
                "blocksize": 0,
            },
        }
    )
    with_enums = zarr.codecs.BloscCodec(
        typesize=4, cname=zarr.codecs.BloscCname.zstd, clevel=3, shuffle=zarr.codecs.BloscShuffle.bitshuffle
    )
    assert with_enums == codec
    assert type(with_enums.to_json()["configuration"]["shuffle"]) is str
    assert zarr.codecs.BloscShuffle.from_int(2) is zarr.codecs.BloscShuffle.bitshuffle
    with pytest.raises(ValueError, match="0 .noshuffle., 1 .shuffle. or 2"):
        zarr.codecs.BloscShuffle.from_int(3)
    with pytest.raises(MetadataError, match="clevel must be an integer from 0 to 9") as info:
        zarr.codecs.BloscCodec(clevel=10)
    assert info.value.field == "configuration.clevel"
    with pytest.raises(MetadataError, match="shuffle must be one of"):
        zarr.codecs.BloscCodec(shuffle="sideways")
    with pytest.raises(TypeError):
        zarr.codecs.BloscCodec("zstd")  # keywords only, as in zarr-python


def test_bytes_takes_an_endian_or_none_and_defaults_to_this_machine():
    assert zarr.codecs.BytesCodec().to_dict() == {"name": "bytes", "configuration": {"endian": sys.byteorder}}
    assert zarr.codecs.BytesCodec(endian=None).to_dict() == {"name": "bytes"}
    assert zarr.codecs.BytesCodec(endian=zarr.codecs.Endian.big).to_dict() == {
        "name": "bytes",
        "configuration": {"endian": "big"},
    }
    with pytest.raises(MetadataError, match="endian must be 'little', 'big' or None") as info:
        zarr.codecs.BytesCodec(endian="middle")
    assert info.value.field == "configuration.endian"


def test_transpose_takes_a_list_or_a_tuple():
    expected = {"name": "transpose", "configuration": {"order": [1, 0]}}
    assert zarr.codecs.TransposeCodec(order=(1, 0)).to_dict() == expected
    assert zarr.codecs.TransposeCodec(order=[1, 0]).to_dict() == expected
    assert zarr.codecs.TransposeCodec(order=np.array([1, 0])).to_dict() == expected
    for bad in [(0, 0), (1, 2), "10", 3, (True, False)]:
        with pytest.raises(MetadataError, match="order must be a permutation") as info:
            zarr.codecs.TransposeCodec(order=bad)
        assert info.value.field == "configuration.order"


def test_gzip_zstd_crc32c_and_the_extension_codecs():
    assert zarr.codecs.GzipCodec(level=1).to_dict() == {"name": "gzip", "configuration": {"level": 1}}
    assert zarr.codecs.ZstdCodec(level=3, checksum=True).to_dict() == {
        "name": "zstd",
        "configuration": {"level": 3, "checksum": True},
    }
    assert zarr.codecs.Crc32cCodec().to_dict() == {"name": "crc32c"}
    # zarr-python 3.4.2: the same to_dict() for these
    assert zarr.codecs.CastValue(data_type="uint8").to_dict() == {
        "name": "cast_value",
        "configuration": {"data_type": "uint8"},
    }
    assert zarr.codecs.CastValue(
        data_type="uint8", out_of_range="clamp", scalar_map={"encode": [(1.5, 2)]}
    ).to_dict() == {
        "name": "cast_value",
        "configuration": {
            "data_type": "uint8",
            "out_of_range": "clamp",
            "scalar_map": {"encode": [[1.5, 2]]},
        },
    }
    assert zarr.codecs.ScaleOffset(offset=1.5).to_dict() == {
        "name": "scale_offset",
        "configuration": {"offset": 1.5},
    }
    assert zarr.codecs.VLenUTF8Codec().to_dict() == {"name": "vlen-utf8", "configuration": {}}
    assert zarr.codecs.VLenBytesCodec().to_dict() == {"name": "vlen-bytes", "configuration": {}}
    with pytest.raises(MetadataError, match="data_type is required"):
        zarr.codecs.CastValue()


def test_sharding_takes_zarr_python_defaults_and_codecs_as_objects_or_json():
    # zarr-python 3.4.2: ShardingCodec(chunk_shape=(2,)).to_dict()
    assert zarr.codecs.ShardingCodec(chunk_shape=(2,)).to_dict() == {
        "name": "sharding_indexed",
        "configuration": {
            "chunk_shape": [2],
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
            "index_location": "end",
        },
    }
    codec = zarr.codecs.ShardingCodec(
        chunk_shape=[2, 2],
        codecs=[zarr.codecs.BytesCodec(), {"name": "gzip", "configuration": {"level": 1}}],
        index_location=zarr.codecs.ShardingCodecIndexLocation.start,
    )
    configuration = codec.to_dict()["configuration"]
    assert configuration["codecs"][1] == {"name": "gzip", "configuration": {"level": 1}}
    assert configuration["index_location"] == "start" and configuration["chunk_shape"] == [2, 2]
    assert isinstance(codec.inner_codecs[1], zarr.codecs.GzipCodec)
    for arguments, field in [
        ({"chunk_shape": (0,)}, "configuration.chunk_shape"),
        ({"chunk_shape": (2,), "codecs": [1]}, "configuration.codecs[0]"),
        ({"chunk_shape": (2,), "index_location": "middle"}, "configuration.index_location"),
    ]:
        with pytest.raises(MetadataError) as info:
            zarr.codecs.ShardingCodec(**arguments)
        assert info.value.field == field


def test_numcodecs_classes_take_numcodecs_keywords():
    from zarrforge.codecs.numcodecs import LZMA, Delta, Zlib

    codec = LZMA(filters=LZMA_FILTERS)
    # zarr-python 3.4.2: the same to_dict()
    assert codec.to_dict() == {
        "name": "numcodecs.lzma",
        "configuration": {
            "filters": [{"id": lzma.FILTER_DELTA, "dist": 4}, {"id": lzma.FILTER_LZMA2, "preset": 1}]
        },
    }
    assert Delta(dtype="int32").to_dict() == {"name": "numcodecs.delta", "configuration": {"dtype": "int32"}}
    assert isinstance(codec, LZMA) and not isinstance(codec, Zlib)
    assert isinstance(codec, zarrforge.abc.codec.BytesBytesCodec)
    assert isinstance(Delta(dtype="int32"), zarrforge.abc.codec.ArrayArrayCodec)
    assert repr(Zlib(level=1)) == "Zlib(level=1)"
    assert pickle.loads(pickle.dumps(codec)) == codec
    assert type(pickle.loads(pickle.dumps(codec))) is LZMA
    with pytest.raises(MetadataError, match="'zlib' accepts: level") as info:
        Zlib(levle=1)
    assert info.value.field == "configuration"
    with pytest.raises(TypeError):
        Zlib(1)  # keywords only, as in zarr-python


# --- create_array ----------------------------------------------------------------------------


def test_create_array_stores_the_chain_zarr_python_stores():
    from zarrforge.codecs.numcodecs import Delta

    store: dict = {}
    a = zarr.create_array(
        store,
        shape=(10, 10),
        chunks=(5, 5),
        dtype="int32",
        serializer=zarr.codecs.BytesCodec(endian="little"),
        compressors=zarr.codecs.BloscCodec(cname="zstd", clevel=3, shuffle="bitshuffle"),
        filters=[Delta(dtype="int32")],
    )
    # zarr-python 3.4.2's zarr.json for the same call
    assert json.loads(store["zarr.json"])["codecs"] == [
        {"name": "numcodecs.delta", "configuration": {"dtype": "int32"}},
        {"name": "bytes", "configuration": {"endian": "little"}},
        {
            "name": "blosc",
            "configuration": {
                "typesize": 4,
                "cname": "zstd",
                "clevel": 3,
                "shuffle": "bitshuffle",
                "blocksize": 0,
            },
        },
    ]
    values = np.arange(100, dtype="int32").reshape(10, 10)
    a[:] = values
    reopened = zarr.open_array(store, mode="r")
    np.testing.assert_array_equal(reopened[:], values)
    # as zarr-python: tuples of codec objects, the serializer one object
    assert isinstance(reopened.compressors, tuple) and isinstance(reopened.filters, tuple)
    assert isinstance(reopened.compressors[0], zarr.codecs.BloscCodec)
    assert isinstance(reopened.serializer, zarr.codecs.BytesCodec)
    assert isinstance(reopened.filters[0], Delta) and reopened.filters[0] == Delta(dtype="int32")


def test_create_array_with_lzma_transpose_and_sharding():
    from zarrforge.codecs.numcodecs import LZMA

    store: dict = {}
    a = zarr.create_array(
        store,
        shape=(10, 10),
        chunks=(5, 5),
        dtype="int32",
        serializer=zarr.codecs.BytesCodec(),
        compressors=[LZMA(filters=LZMA_FILTERS)],
        filters=[zarr.codecs.TransposeCodec(order=(1, 0))],
    )
    a[:] = 3
    # zarr-python 3.4.2's zarr.json for the same call
    assert json.loads(store["zarr.json"])["codecs"] == [
        {"name": "transpose", "configuration": {"order": [1, 0]}},
        {"name": "bytes", "configuration": {"endian": "little"}},
        {
            "name": "numcodecs.lzma",
            "configuration": {
                "filters": [{"id": lzma.FILTER_DELTA, "dist": 4}, {"id": lzma.FILTER_LZMA2, "preset": 1}]
            },
        },
    ]
    # (zarr-python 3.4.2 cannot read it back: numcodecs refuses its own xz filters)
    assert int(zarr.open_array(store, mode="r")[:].sum()) == 300
    store = {}
    zarr.create_array(
        store,
        shape=(10, 10),
        chunks=(5, 5),
        shards=(10, 10),
        dtype="float64",
        compressors=zarr.codecs.GzipCodec(level=1),
    )
    # zarr-python 3.4.2's zarr.json for the same call
    assert json.loads(store["zarr.json"])["codecs"] == [
        {
            "name": "sharding_indexed",
            "configuration": {
                "chunk_shape": [5, 5],
                "codecs": [
                    {"name": "bytes", "configuration": {"endian": "little"}},
                    {"name": "gzip", "configuration": {"level": 1}},
                ],
                "index_codecs": [
                    {"name": "bytes", "configuration": {"endian": "little"}},
                    {"name": "crc32c"},
                ],
                "index_location": "end",
            },
        }
    ]


def test_an_arrays_codecs_equal_the_foreign_objects_it_was_created_with():
    """Before (issue #44): a zarrforge codec equalled only one of its own class, so the
    codecs xarray reports in ``encoding`` never equalled the zarr-python or numcodecs
    objects written with. Now a foreign codec object compares by its own JSON
    (zarr-python's ``to_dict()``, numcodecs' ``get_config()`` against ``numcodecs.<id>``),
    either way round; anything else is not equal; and equal codecs hash alike."""
    zarr_python = pytest.importorskip("zarr")
    numcodecs = pytest.importorskip("numcodecs")
    theirs = zarr_python.codecs.BloscCodec(cname="zstd", clevel=3, shuffle="shuffle", typesize=8, blocksize=0)
    delta = numcodecs.Delta(dtype="<f8")
    array = zarr.create_array({}, shape=(4,), dtype="float64", compressors=theirs, filters=[delta])
    assert array.compressors == (theirs,) and (theirs,) == array.compressors
    assert array.filters == (delta,) and not array.filters[0] != delta
    assert array.filters[0] != numcodecs.Delta(dtype="<i8")
    # a zarr-python BloscCodec left to the array (typesize, shuffle unset) is another JSON
    assert array.compressors[0] != zarr_python.codecs.BloscCodec(cname="zstd", clevel=3)
    assert array.compressors[0] != "blosc" and array.compressors[0] != {"name": "blosc"}
    one = zarr.codecs.ZstdCodec(level=3, checksum=True)
    assert one == zarr.codecs.ZstdCodec(checksum=True, level=3)
    assert hash(one) == hash(zarr.codecs.ZstdCodec(checksum=True, level=3))
    assert len({array.compressors[0], zarr.codecs.BloscCodec(**theirs.to_dict()["configuration"])}) == 1


def test_codecs_pickle_by_their_settings():
    """Before (issue #44): zstd (and a shard chain holding it) could not be pickled, its
    per-thread compressors being unpicklable, so neither could a dataset whose encoding
    holds it."""
    array = zarr.create_array(
        {},
        shape=(4, 4),
        dtype="int32",
        chunks=(2, 2),
        shards=(4, 4),
        compressors=zarr.codecs.ZstdCodec(level=5, checksum=True),
    )
    for codec in (*array.codecs, *array.compressors):
        copy = pickle.loads(pickle.dumps(codec))
        assert copy == codec and type(copy) is type(codec)
