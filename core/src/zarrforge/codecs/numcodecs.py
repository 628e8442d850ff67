"""zarr-python's ``zarr.codecs.numcodecs``, under the same names: ``LZMA(preset=1)``,
``Delta(dtype="int32")``, ... (:data:`NUMCODECS_CLASSES`).

Contract:

* Each name is a class of the codec ``numcodecs.<id>`` (``LZMA`` -> ``numcodecs.lzma``)
  made by the codec family the registry answers for that name, the ``numcodecs.*``
  family of zarrforge-numcodecs (its ``named_class``; no plugin is imported here): a
  subclass of that family's class for the codec's kind (array -> array, array -> bytes,
  bytes -> bytes), the same class on every access.
* The constructor takes numcodecs' keyword arguments for that codec, as zarr-python's
  does (``LZMA(filters=[dict(id=lzma.FILTER_DELTA, dist=4)])``), and the codec's JSON
  is what zarr-python writes for it: ``{"name": "numcodecs.lzma", "configuration":
  {...the arguments as given...}}``. numcodecs checks them when the codec is made: a
  :class:`~zarrforge.errors.MetadataError` names the field and the accepted parameters.
* ``isinstance(codec, LZMA)`` holds for such codecs however they were made, those an
  array reads from its metadata included, and they compare equal to them.
* Without zarrforge-numcodecs installed, asking for a name raises
  :class:`~zarrforge.errors.UnknownExtensionError` naming the package; a name that is
  not one of zarr-python's is an ``AttributeError`` listing them.

A face (tests/test_layers.py): it imports the registries and the errors, never a plugin.
"""

from __future__ import annotations

from typing import Any

from ..errors import UnknownExtensionError
from ..registries import registry

FAMILY = "numcodecs.*"

# zarr-python's class name -> the numcodecs codec id (the codec is "numcodecs.<id>")
NUMCODECS_CLASSES: dict[str, str] = {
    "BZ2": "bz2",
    "CRC32": "crc32",
    "CRC32C": "crc32c",
    "LZ4": "lz4",
    "LZMA": "lzma",
    "ZFPY": "zfpy",
    "Adler32": "adler32",
    "AsType": "astype",
    "BitRound": "bitround",
    "Blosc": "blosc",
    "Delta": "delta",
    "FixedScaleOffset": "fixedscaleoffset",
    "Fletcher32": "fletcher32",
    "GZip": "gzip",
    "JenkinsLookup3": "jenkins_lookup3",
    "PCodec": "pcodec",
    "PackBits": "packbits",
    "Quantize": "quantize",
    "Shuffle": "shuffle",
    "Zlib": "zlib",
    "Zstd": "zstd",
}

__all__ = sorted(NUMCODECS_CLASSES)  # noqa: PLE0605  # computed from the table above


def _class_of(class_name: str, codec: str) -> type:
    """The class ``class_name`` of the codec ``codec`` ("numcodecs.lzma"), made by the
    family the registry answers for it."""
    try:
        family = registry.codecs.get(codec)
    except UnknownExtensionError as exc:
        raise UnknownExtensionError(
            exc.point,
            exc.name,
            exc.installed,
            exc.provider,
            note=f"{__name__}.{class_name} is a class of the codec {codec!r}",
        ) from None
    named_class = getattr(family, "named_class", None)
    if named_class is None:  # answered by another family (a catch-all adapter, say)
        raise UnknownExtensionError(
            "codec",
            FAMILY,
            registry.codecs.names(),
            registry.codecs.provider_hint(codec),
            note=f"{__name__}.{class_name} is made by that codec family; the codec "
            f"{codec!r} resolves to {registry.codecs.origin(codec)} instead, which "
            "makes no such class",
        )
    return named_class(codec, class_name, __name__)


def __getattr__(name: str) -> Any:
    """The class zarr-python calls ``name`` (see the module docstring)."""
    codec_id = NUMCODECS_CLASSES.get(name)
    if codec_id is None:
        raise AttributeError(
            f"module {__name__!r} has no attribute {name!r}; zarr-python's "
            f"numcodecs codec classes: {', '.join(__all__)}"
        )
    return _class_of(name, f"numcodecs.{codec_id}")


def __dir__() -> list[str]:
    return sorted({*__all__, "FAMILY", "NUMCODECS_CLASSES"})
