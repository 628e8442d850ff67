"""Codecs named by URI, mapped to registered codecs -- and back.

The draft names codecs by URI: an editor's-draft ``codecs`` entry
``{"type": URI, "configuration": {...}}``, zarr-python 2's single
``compressor`` ``{"codec": URI, "configuration": {...}}``. This module maps
each URI to a codec registered under its spec name and translates the
configuration; nothing is registered under the URIs themselves (the table
is the format's business, and the registries stay one name per codec).

URIs are recognised as ``https://purl.org/zarr/spec/codec/<id>/<major>.<minor>``
and ``.../spec/codecs/<id>/...`` (zarr-python and the seed write the former,
the codec documents of the time the latter):

==========  ======================  =================================================
``<id>``    registered codec        configuration
==========  ======================  =================================================
gzip        ``gzip``                ``level``
zstd        ``zstd``                ``level``, ``checksum``
blosc       ``blosc``               ``cname``, ``clevel``, ``blocksize`` as is;
                                    ``shuffle`` 0/1/2/-1 (numcodecs' codes) <->
                                    noshuffle/shuffle/bitshuffle/automatic;
                                    ``typesize`` (not in the draft) is the item size
                                    numcodecs takes from the array it compresses
zlib, bz2,  ``numcodecs.<id>``      numcodecs' configuration as is
lz4, lzma
endian      ``bytes``               ``endian``
transpose   ``transpose``           ``order``: a permutation, ``"C"`` or ``"F"``
==========  ======================  =================================================

A URI outside the table resolves if a plugin registered a codec under that
very URI; a registered spec name (``"gzip"``) is accepted as well. Anything
else is an :class:`~zarrforge.errors.UnknownExtensionError` naming the field
(``codecs[1].type``, ``compressor.codec``): codecs can never be skipped here.
"""

from __future__ import annotations

import re
from typing import Any

from zarrforge.abc.codec import Codec
from zarrforge.errors import MetadataError, UnknownExtensionError
from zarrforge.plugin_api import formats as c
from zarrforge.plugin_api.formats import registry

URI_BASE = "https://purl.org/zarr/spec/codec/"
_URI_RE = re.compile(r"https?://purl\.org/zarr/spec/codecs?/([A-Za-z0-9_.-]+)/(\d+)\.(\d+)/?")

NUMCODECS_IDS = ("zlib", "bz2", "lz4", "lzma")
COMPRESSOR_IDS = ("gzip", "zstd", "blosc", *NUMCODECS_IDS)  # what zarr-python 2 can read
SHUFFLE_CODES = {0: "noshuffle", 1: "shuffle", 2: "bitshuffle"}
SHUFFLE_NAMES = {v: k for k, v in SHUFFLE_CODES.items()}


def uri_of(codec_id: str) -> str:
    return f"{URI_BASE}{codec_id}/1.0"


def codec_id_of(uri: Any) -> str | None:
    """The ``<id>`` of a codec URI of the draft, or None."""
    if not isinstance(uri, str):
        return None
    match = _URI_RE.fullmatch(uri)
    return match.group(1) if match else None


def _require(name: str, uri: str, *, field: str) -> None:
    if name not in registry.codecs:
        provider = registry.codecs.provider_hint(name)
        raise UnknownExtensionError(
            "codec",
            uri if name == uri else f"{uri} (codec {name!r})",
            registry.codecs.names(),
            provider,
            field=field,
        )


def _config(configuration: Any, *, field: str) -> dict[str, Any]:
    if configuration is None:
        return {}
    if not isinstance(configuration, dict):
        raise MetadataError(
            f"must be an object, got {configuration!r}", field=f"{field}.configuration", value=configuration
        )
    return dict(configuration)


def _transpose_order(order: Any, ndim: int, *, field: str) -> Any:
    if order == "C":
        return list(range(ndim))
    if order == "F":
        return list(range(ndim))[::-1]
    return order


def translate(
    uri: Any, configuration: Any, *, field: str, type_field: str, ndim: int, item_size: int | None
) -> dict[str, Any]:
    """The registered codec's JSON object for a draft codec reference."""
    if not isinstance(uri, str) or not uri:
        raise MetadataError(f"must be a codec URI, got {uri!r}", field=type_field, value=uri)
    config = _config(configuration, field=field)
    codec_id = codec_id_of(uri)
    if codec_id in ("gzip", "zstd"):
        name = codec_id
    elif codec_id == "blosc":
        name = "blosc"
        if "shuffle" in config:
            code = config["shuffle"]
            if code == -1:
                del config["shuffle"]  # automatic: bit shuffle for 1-byte items, else byte shuffle
            elif isinstance(code, int) and not isinstance(code, bool) and code in SHUFFLE_CODES:
                config["shuffle"] = SHUFFLE_CODES[code]
            elif not isinstance(code, str) or code not in SHUFFLE_NAMES:
                raise MetadataError(
                    f"blosc shuffle must be -1, 0, 1 or 2, got {code!r}",
                    field=f"{field}.configuration.shuffle",
                    value=code,
                )
        if "typesize" not in config and item_size:
            config["typesize"] = item_size
    elif codec_id in NUMCODECS_IDS:
        name = f"numcodecs.{codec_id}"
    elif codec_id == "endian":
        name = "bytes"
    elif codec_id == "transpose":
        name = "transpose"
        if "order" in config:
            config["order"] = _transpose_order(config["order"], ndim, field=field)
    else:
        name = uri  # a plugin registered the URI itself (or this is a registered spec name)
    _require(name, uri, field=type_field)
    document: dict[str, Any] = {"name": name}
    if config:
        document["configuration"] = config
    return document


def codec_from_draft(
    uri: Any, configuration: Any, *, field: str, type_field: str, ndim: int, item_size: int | None
) -> Codec:
    document = translate(
        uri, configuration, field=field, type_field=type_field, ndim=ndim, item_size=item_size
    )
    return c.codec_from_json(document, field=field)


# --- writing -------------------------------------------------------------------------------


def draft_reference(
    codec: Codec, *, field: str, registry_names: bool, remembered: str | None = None
) -> tuple[str, dict[str, Any]]:
    """``(URI, configuration)`` of a codec for a draft document.

    ``registry_names``: codecs outside the URI table are written under their
    registered name (the editor dialect, read back by zarrforge); otherwise
    (zarr-python) they are an error. ``remembered``: the URI the codec was read
    with (:mod:`.spellings`), reused when it names the same codec.
    """
    document = codec.to_json()
    name = document.get("name")
    config = dict(document.get("configuration") or {})
    if name in ("gzip", "zstd", "blosc", "transpose") or (
        isinstance(name, str) and name.startswith("numcodecs.") and name[10:] in NUMCODECS_IDS
    ):
        codec_id = name[10:] if name.startswith("numcodecs.") else name
        if name.startswith("numcodecs."):  # every setting, as zarr-python 2 writes
            full = c.numcodecs_configuration(document)
            if full is not None:  # None only for a name that is not numcodecs.<id>
                config = full
                config.pop("id")
        if codec_id == "blosc":
            config.pop("typesize", None)  # not part of the draft's blosc (numcodecs infers it)
            if "shuffle" in config:
                config["shuffle"] = SHUFFLE_NAMES.get(config["shuffle"], config["shuffle"])
        uri = (
            remembered if remembered is not None and codec_id_of(remembered) == codec_id else uri_of(codec_id)
        )
        return uri, config
    if name == "bytes":
        uri = (
            remembered if remembered is not None and codec_id_of(remembered) == "endian" else uri_of("endian")
        )
        return uri, config
    if registry_names and isinstance(name, str):
        return name, config
    raise MetadataError(
        f"codec {name!r} has no URI in the 2022 draft that zarr-python 2 reads "
        f"(it reads the compressors {', '.join(COMPRESSOR_IDS)} and numcodecs "
        "filters); write this hierarchy in the 'editor' dialect",
        field=field,
        value=document,
    )
