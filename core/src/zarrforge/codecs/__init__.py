"""zarr-python's ``zarr.codecs``, under the same names: code written for zarr-python 3
(``zarr.codecs.BloscCodec(cname="zstd", clevel=3, shuffle="bitshuffle")``) runs with
``import zarrforge as zarr``.

Contract:

* Each codec class name of zarr-python 3.4's ``zarr.codecs`` (:data:`CODEC_CLASSES`:
  ``BloscCodec`` -> ``"blosc"``, ``ShardingCodec`` -> ``"sharding_indexed"``, ...) is the
  class the codec registry answers for that codec's name: ``zarrforge.codecs.BloscCodec
  is zarrforge.registry.codecs.get("blosc")``, the installed plugin's own class, so
  ``isinstance`` holds of the codecs an array reports (``Array.compressors``,
  ``Array.serializer``, ``Array.filters``). It is looked up on every access, never kept
  here: the plugin is imported on first use, and ``registry.codecs.hidden(...)`` or an
  in-process registration of the name is seen at once. The plugins' constructors take
  zarr-python's keywords and defaults, and ``to_dict()`` (zarr-python's name) gives the
  codec's JSON, as ``to_json()`` does.
* A name whose plugin is not installed raises the registry's
  :class:`~zarrforge.errors.UnknownExtensionError`, naming the package that provides it
  (``pip install zarrforge-numcodecs``) and the class asked for; so does a name only a
  codec family answers for (the catch-all adapter of zarr-python's codecs), whose class
  is no class of that codec. A name that is not one
  of zarr-python's is an ``AttributeError`` listing the names there are (with the reason
  for the one zarr-python name not provided, ``SubchunkWriteOrder``).
* zarr-python's enums (``BloscCname``, ``BloscShuffle``, ``Endian``,
  ``ShardingCodecIndexLocation``) are small string enums defined here, whose values are
  the strings the codecs' JSON holds; the constructors accept a member wherever they
  accept its string (as they accept zarr-python's own enums).
* :mod:`zarrforge.codecs.numcodecs` holds zarr-python's ``zarr.codecs.numcodecs``
  classes (``LZMA``, ``Delta``, ...), made by the ``numcodecs.*`` codec family.
* ``__all__`` is zarr-python's list less ``SubchunkWriteOrder``; ``dir()`` lists the same
  names and the ``numcodecs`` module. ``from zarrforge.codecs import *`` needs every
  plugin providing them installed.

One of the faces on top of the core (tests/test_layers.py): it may import the registries
and the layers below them (never a plugin: every class comes through the registry); this
``__init__`` imports nothing else.
"""

from __future__ import annotations

import importlib
from enum import StrEnum
from typing import Any

from ..errors import UnknownExtensionError
from ..registries import registry

# zarr-python's codec class name -> the codec's registered name
CODEC_CLASSES: dict[str, str] = {
    "BloscCodec": "blosc",
    "BytesCodec": "bytes",
    "CastValue": "cast_value",
    "Crc32cCodec": "crc32c",
    "GzipCodec": "gzip",
    "ScaleOffset": "scale_offset",
    "ShardingCodec": "sharding_indexed",
    "TransposeCodec": "transpose",
    "VLenBytesCodec": "vlen-bytes",
    "VLenUTF8Codec": "vlen-utf8",
    "ZstdCodec": "zstd",
}

# zarr-python names not provided, and why
NOT_PROVIDED: dict[str, str] = {
    "SubchunkWriteOrder": "zarrforge's sharding codec writes the inner chunks of a shard in "
    "C order and takes no subchunk_write_order",
}


class BloscCname(StrEnum):
    """The ``cname`` values of the ``blosc`` codec (zarr-python's ``BloscCname``)."""

    lz4 = "lz4"
    lz4hc = "lz4hc"
    blosclz = "blosclz"
    snappy = "snappy"
    zstd = "zstd"
    zlib = "zlib"


class BloscShuffle(StrEnum):
    """The ``shuffle`` values of the ``blosc`` codec (zarr-python's ``BloscShuffle``)."""

    noshuffle = "noshuffle"
    shuffle = "shuffle"
    bitshuffle = "bitshuffle"

    @classmethod
    def from_int(cls, num: int) -> BloscShuffle:
        """The member of blosc's integer code (0, 1, 2), as zarr-python's ``from_int``."""
        members = list(cls)
        if isinstance(num, bool) or not isinstance(num, int) or not 0 <= num < len(members):
            raise ValueError(
                f"a blosc shuffle code must be 0 (noshuffle), 1 (shuffle) or 2 (bitshuffle), got {num!r}"
            )
        return members[num]


class Endian(StrEnum):
    """The ``endian`` values of the ``bytes`` codec (zarr-python's ``Endian``)."""

    little = "little"
    big = "big"


class ShardingCodecIndexLocation(StrEnum):
    """The ``index_location`` values of the ``sharding_indexed`` codec."""

    start = "start"
    end = "end"


_ENUMS = ("BloscCname", "BloscShuffle", "Endian", "ShardingCodecIndexLocation")

__all__ = sorted([*CODEC_CLASSES, *_ENUMS])  # noqa: PLE0605  # computed from the table above


def __getattr__(name: str) -> Any:
    """The registered class of the codec zarr-python calls ``name``, or the ``numcodecs``
    submodule (see the module docstring)."""
    codec = CODEC_CLASSES.get(name)
    if codec is not None:
        note = f"zarrforge.codecs.{name} is the class of the codec {codec!r}"
        try:
            found = registry.codecs.get(codec)
        except UnknownExtensionError as exc:
            raise UnknownExtensionError(exc.point, exc.name, exc.installed, exc.provider, note=note) from None
        if getattr(found, "name", None) != codec:  # a family answers: no class of this codec
            raise UnknownExtensionError(
                "codec",
                codec,
                registry.codecs.names(),
                registry.codecs.provider_hint(codec),
                note=f"{note}; only {registry.codecs.origin(codec)} answers for it, a codec "
                "family whose class is not that codec's",
            )
        return found
    if name == "numcodecs":
        return importlib.import_module(f"{__name__}.numcodecs")
    if name in NOT_PROVIDED:
        raise AttributeError(f"zarrforge.codecs has no {name!r}: {NOT_PROVIDED[name]}")
    raise AttributeError(
        f"module {__name__!r} has no attribute {name!r}; zarr-python's codec "
        f"names here: {', '.join(__all__)} (and the module numcodecs)"
    )


def __dir__() -> list[str]:
    return sorted({*__all__, "CODEC_CLASSES", "NOT_PROVIDED", "numcodecs"})
