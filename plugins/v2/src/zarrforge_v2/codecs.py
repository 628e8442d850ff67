"""Zarr v2 codecs (numcodecs configurations) <-> the model's v3 codec chain.

Reading (:func:`build_codecs`): ``order: "F"`` becomes a leading ``transpose``
with reversed axes; ``filters`` become ``numcodecs.<id>`` codecs (array filters
before the serializer, byte filters after it; the object codec of an ``"|O"``
array is the serializer); the serializer is ``bytes`` with the byte order the
last filter leaves; ``compressor`` becomes ``numcodecs.<id>``, except where a
registered v3 codec writes the same bytes (``gzip``, ``zstd``, ``crc32c``, and
``blosc`` with ``typesize`` the item size). numcodecs' ``shuffle: -1`` is
resolved the way numcodecs resolves it, and the configuration as read is
returned beside the codecs (:mod:`.read_configs`) so it is written back as -1.

Writing (:func:`split_codecs`, :func:`v2_config`) inverts this and refuses,
naming the field, what v2 cannot hold (a transpose that is not a full reversal,
a serializer other than ``bytes`` or a vlen codec). A compressor that takes typed
arrays (``array -> bytes``: pcodec, zfpy) is the serializer instead of ``bytes``,
as zarr-python 2 and 3 read it; it then needs array filters only. ``json2`` object
arrays are read (as ``zarrforge_v2.json_object``) and written back, never created.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from zarrforge.abc.codec import ArrayArrayCodec
from zarrforge.errors import MetadataError
from zarrforge.plugin_api import formats as c
from zarrforge.plugin_api.formats import ArrayMetadata, ChunkSpec, Codec, CodecKind, DataType, registry

from ._util import _byteorder, _is_int, layout
from .read_configs import ReadConfigs

# Object codecs (numcodecs ids) -> (zarrforge data type, zarrforge serializer).
OBJECT_CODECS = {
    "vlen-utf8": ("string", "vlen-utf8"),
    "vlen-bytes": ("bytes", "vlen-bytes"),
    # JSON values, read only (zarrforge_v2.object_type)
    "json2": ("zarrforge_v2.json_object", "numcodecs.json2"),
}
JSON_OBJECT_TYPE = OBJECT_CODECS["json2"][0]
# Object codecs zarr-python knows that zarrforge cannot read.
OTHER_OBJECT_CODECS = frozenset({"vlen-array", "pickle", "msgpack2"})
SERIALIZER_TO_OBJECT_ID = {
    "vlen-utf8": "vlen-utf8",
    "vlen-bytes": "vlen-bytes",
    "numcodecs.vlen-utf8": "vlen-utf8",
    "numcodecs.vlen-bytes": "vlen-bytes",
}
# Serializers of object arrays that are read (and their .zarray rewritten) but never created.
READ_ONLY_OBJECT_SERIALIZERS = {"numcodecs.json2": "json2"}

# numcodecs ids whose codec is a registered v3 codec of the same name, and the
# configuration keys that codec shares with numcodecs'.
NATIVE_BYTES_CODECS = {"gzip": {"level"}, "zstd": {"level", "checksum"}, "crc32c": set()}
BLOSC_SHUFFLE = {0: "noshuffle", 1: "shuffle", 2: "bitshuffle"}
BLOSC_SHUFFLE_ID = {v: k for k, v in BLOSC_SHUFFLE.items()}
NUMCODECS_PREFIX = "numcodecs."


def _codec_field(where: str, exc: MetadataError) -> str:
    """The v2 location of a failure inside a codec built for the entry at ``where``."""
    inner = exc.field or ""
    for prefix in (f"{where}.name", f"{where}.configuration"):
        if inner.startswith(prefix):
            rest = inner[len(prefix) :]
            return f"{where}.id" if prefix.endswith(".name") else f"{where}{rest}"
    if inner in ("name",):
        return f"{where}.id"
    if inner.startswith("configuration"):
        return where + inner[len("configuration") :]
    return where


def numcodecs_codec(config: dict[str, Any], *, field: str) -> Codec:
    """The zarrforge codec for a numcodecs configuration ``{"id": ..., ...}``."""
    codec_id = config["id"]
    rest = {k: v for k, v in config.items() if k != "id"}
    value = {"name": NUMCODECS_PREFIX + codec_id}
    if rest:
        value["configuration"] = rest
    try:
        return c.codec_from_json(value, field=field)
    except MetadataError as exc:
        raise exc.relocated(_codec_field(field, exc)) from None


def _blosc_codec(config: dict[str, Any], typesize: int, *, field: str) -> tuple[Codec, dict[str, Any] | None]:
    """numcodecs' blosc configuration as zarrforge's ``blosc`` codec, and the
    configuration to write back when the codec cannot state it (else None).

    numcodecs shuffles by the item size of the array it is given; the v3
    codec sees bytes, so the item size becomes its ``typesize``.
    """
    allowed = {"id", "cname", "clevel", "shuffle", "blocksize", "typesize"}
    shuffle = config.get("shuffle", 1)
    if (
        "blosc" not in registry.codecs
        or set(config) - allowed
        or not _is_int(shuffle)
        or shuffle not in (-1, 0, 1, 2)
    ):
        return numcodecs_codec(config, field=field), None  # numcodecs validates and explains
    typesize = config.get("typesize") or typesize
    auto = shuffle == -1
    if auto:  # AUTOSHUFFLE: numcodecs picks by item size
        shuffle = 2 if typesize == 1 else 1
    configuration = {
        "typesize": typesize,
        "cname": config.get("cname", "lz4"),
        "clevel": config.get("clevel", 5),
        "shuffle": BLOSC_SHUFFLE[shuffle],
        "blocksize": config.get("blocksize", 0),
    }
    try:
        codec = c.codec_from_json({"name": "blosc", "configuration": configuration}, field=field)
    except MetadataError as exc:
        raise exc.relocated(_codec_field(field, exc)) from None
    # The v3 codec records the shuffle it resolved; "auto" (-1) is written back
    # only if the document's configuration is kept.
    return codec, (dict(config) if auto else None)


def native_bytes_codec(codec: Codec, *, field: str) -> Codec:
    """The registered Zarr v3 codec equal to a numcodecs bytes codec, when there is one.

    numcodecs' gzip, zstd and crc32c produce the same bytes as zarrforge's
    ``gzip``, ``zstd`` and ``crc32c`` codecs (which wrap them); using those
    names keeps the model format-neutral, so a copy to Zarr v3 writes codecs
    every v3 implementation knows. Configurations with other keys stay
    ``numcodecs.<id>``.
    """
    doc = codec.to_json()
    name = doc.get("name")
    if not isinstance(name, str) or not name.startswith(NUMCODECS_PREFIX):
        return codec
    codec_id = name[len(NUMCODECS_PREFIX) :]
    keys = NATIVE_BYTES_CODECS.get(codec_id)
    configuration = doc.get("configuration") or {}
    if keys is None or set(configuration) - keys or codec_id not in registry.codecs:
        return codec
    value: dict[str, Any] = {"name": codec_id}
    if configuration:
        value["configuration"] = configuration
    try:
        return c.codec_from_json(value, field=field)
    except MetadataError:
        return codec


def compressor_codec(
    config: dict[str, Any], typesize: int, *, field: str = "compressor"
) -> tuple[Codec, dict[str, Any] | None]:
    """The codec of a v2 ``compressor``, and the configuration to write back when the
    codec cannot state it (else None)."""
    if config["id"] == "blosc":
        return _blosc_codec(config, typesize, field=field)
    return native_bytes_codec(numcodecs_codec(config, field=field), field=field), None


def v2_config(codec: Codec, *, field: str, read_configs: ReadConfigs = ReadConfigs()) -> dict[str, Any]:
    """The numcodecs configuration (``{"id": ...}``) of a zarrforge codec: the one it was
    read from when ``read_configs`` has it."""
    remembered = read_configs.config_of(codec)
    if remembered is not None:
        return remembered
    doc = codec.to_json()
    name = doc.get("name")
    conf = dict(doc.get("configuration") or {})
    complete = c.numcodecs_configuration(doc)  # every setting, as zarr-python writes v2
    if complete is not None:
        return complete
    if name == "blosc":
        return {
            "id": "blosc",
            "cname": conf.get("cname", "zstd"),
            "clevel": conf.get("clevel", 5),
            "shuffle": BLOSC_SHUFFLE_ID.get(conf.get("shuffle", "shuffle"), 1),
            "blocksize": conf.get("blocksize", 0),
        }
    if name == "zstd":
        return {"id": "zstd", "level": conf.get("level", 0), "checksum": conf.get("checksum", False)}
    if name == "gzip":
        return {"id": "gzip", "level": conf.get("level", 5)}
    if name == "crc32c":  # the same bytes as numcodecs' CRC32C (little-endian, appended)
        return {"id": "crc32c"}
    raise MetadataError(
        f"codec {name!r} has no Zarr v2 form: v2 filters and compressors are "
        "numcodecs codecs (use 'numcodecs.<id>', 'gzip', 'zstd', 'blosc' or 'crc32c')",
        field=field,
        value=doc,
    )


def _codec_list(value: Any, field: str) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise MetadataError(
            f"must be a list of codec configurations or null, got {value!r}", field=field, value=value
        )
    for i, entry in enumerate(value):
        _check_codec_config(entry, f"{field}[{i}]")
    return value


def _check_codec_config(entry: Any, field: str) -> None:
    if not isinstance(entry, dict):
        raise MetadataError(
            f"must be a codec configuration object with an 'id', got {entry!r}", field=field, value=entry
        )
    codec_id = entry.get("id")
    if not isinstance(codec_id, str) or not codec_id:
        raise MetadataError(
            f"must be a non-empty string naming a numcodecs codec, got {codec_id!r}",
            field=f"{field}.id",
            value=codec_id,
        )


def _output_byteorder(config: dict[str, Any], current: str) -> str:
    """Byte order of what a numcodecs filter produces (its ``astype``), else unchanged."""
    for key in ("astype", "encode_dtype"):
        order = _byteorder(config.get(key))
        if order is not None:
            return order if order != "|" else current
    return current


def build_codecs(
    data_type: DataType,
    chunk_shape: tuple[int, ...],
    fill_value: Any,
    *,
    order: str,
    filters: list[dict[str, Any]],
    object_codec: str | None,
    compressor: dict[str, Any] | None,
    byteorder: str,
) -> tuple[tuple[Codec, ...], ReadConfigs]:
    """The model's codec chain for a ``.zarray``'s codecs, and the configurations read
    that the chain's codecs cannot state."""
    ndim = len(chunk_shape)
    spec = ChunkSpec(chunk_shape, data_type, fill_value, layout())
    array_codecs: list[Codec] = []
    bytes_codecs: list[Codec] = []
    if order == "F":
        transpose = c.codec_from_json(
            {"name": "transpose", "configuration": {"order": list(range(ndim))[::-1]}}, field="order"
        )
        array_codecs.append(transpose)
        spec = cast(ArrayArrayCodec, transpose).resolve(spec)  # a transpose codec
    serializer: Codec | None = None
    current = byteorder
    last_bytes_filter = None
    first_bytes_at: int | None = None
    for i, config in enumerate(filters):
        where = f"filters[{i}]"
        if config["id"] == object_codec:
            if serializer is not None:
                raise MetadataError(
                    "only one object codec may appear in the filters", field=where, value=config
                )
            name = OBJECT_CODECS[config["id"]][1]  # config["id"] == object_codec
            serializer = (
                numcodecs_codec(config, field=where)
                if name.startswith(NUMCODECS_PREFIX)
                else c.codec_from_json({"name": name}, field=where)
            )
            continue
        codec = numcodecs_codec(config, field=where)
        if codec.kind is CodecKind.ARRAY_ARRAY:
            if serializer is not None or last_bytes_filter is not None:
                after = "the object codec" if serializer is not None else repr(last_bytes_filter)
                raise MetadataError(
                    f"filter {config['id']!r} transforms arrays but comes after "
                    f"{after}, which produces bytes",
                    field=where,
                    value=config,
                )
            array_codecs.append(codec)
            spec = cast(ArrayArrayCodec, codec).resolve(spec)  # its kind is ARRAY_ARRAY
            current = _output_byteorder(config, current)
        elif codec.kind is CodecKind.ARRAY_BYTES:
            raise MetadataError(
                f"filter {config['id']!r} serialises whole arrays; zarrforge reads "
                "v2 arrays whose only such filter is the object codec (vlen-utf8, "
                "vlen-bytes, json2) of an '|O' array, and a compressor of typed "
                "arrays (pcodec, zfpy) as the 'compressor'",
                field=where,
                value=config,
            )
        else:
            if object_codec is not None and serializer is None:
                raise MetadataError(
                    f"byte filter {config['id']!r} cannot run before the object codec {object_codec!r}",
                    field=where,
                    value=config,
                )
            bytes_codecs.append(native_bytes_codec(codec, field=where))
            last_bytes_filter = config["id"]
            if first_bytes_at is None:
                first_bytes_at = i
    if serializer is None:
        if spec.data_type.has_endianness:
            endian = "big" if current == ">" else "little"
            serializer = c.codec_from_json(
                {"name": "bytes", "configuration": {"endian": endian}}, field="dtype"
            )
        else:
            serializer = c.codec_from_json({"name": "bytes"}, field="dtype")
    if compressor is not None:
        typesize = spec.data_type.item_size or 1
        compressor_, as_read = compressor_codec(compressor, typesize)
        read_configs = ReadConfigs(((compressor_, as_read),) if as_read is not None else ())
        if compressor_.kind is CodecKind.ARRAY_BYTES:
            # pcodec, zfpy: v2 hands the compressor the filtered array, so in
            # the v3 model it is the serializer, in place of ``bytes``.
            _check_array_compressor(compressor, object_codec, filters, first_bytes_at)
            return (*array_codecs, compressor_), read_configs
        return (*array_codecs, serializer, *bytes_codecs, compressor_), read_configs
    return (*array_codecs, serializer, *bytes_codecs), ReadConfigs()


def _check_array_compressor(
    compressor: dict[str, Any],
    object_codec: str | None,
    filters: list[dict[str, Any]],
    first_bytes_at: int | None,
) -> None:
    """Refuse an array -> bytes compressor that would receive bytes, naming v2 fields."""
    codec_id = compressor["id"]
    if object_codec is not None:
        raise MetadataError(
            f"compressor {codec_id!r} compresses typed arrays itself, but the "
            f"object codec {object_codec!r} in 'filters' already turned the "
            "array into bytes; use a bytes compressor (zstd, blosc, ...) or none",
            field="compressor",
            value=compressor,
        )
    if first_bytes_at is not None:
        raise MetadataError(
            f"compressor {codec_id!r} compresses typed arrays itself, but "
            f"filter {filters[first_bytes_at]['id']!r} turns the array into bytes "
            "before it; with such a compressor every filter must map arrays to "
            "arrays (delta, fixedscaleoffset, ...)",
            field=f"filters[{first_bytes_at}]",
            value=filters[first_bytes_at],
        )


def _name(codec: Codec) -> Any:
    return codec.to_json().get("name")


def _input_byteorder(filters: Sequence[dict[str, Any]]) -> str | None:
    """The array's byte order as the first array filter declares it, if it does."""
    for config in filters:
        for key in ("dtype", "decode_dtype"):
            order = _byteorder(config.get(key))
            if order in ("<", ">"):
                return order
        if any(k in config for k in ("astype", "encode_dtype")) or config["id"] == "packbits":
            return None  # the dtype changes here: later filters say nothing about the array
    return None


def split_codecs(metadata: ArrayMetadata, read_configs: ReadConfigs = ReadConfigs()) -> dict[str, Any]:
    """The v2 pieces of a model's codec chain: order, filters, object codec, endian,
    compressor; a codec ``read_configs`` knows is written as it was read."""
    codecs = list(metadata.codecs)
    ndim = len(metadata.shape)
    order = "C"
    if codecs and _name(codecs[0]) == "transpose":
        permutation = tuple(codecs[0].to_json().get("configuration", {}).get("order", ()))
        if permutation != tuple(range(ndim))[::-1]:
            raise MetadataError(
                f"Zarr v2 stores chunks in C or F order only; transpose {list(permutation)} is neither",
                field="codecs[0]",
                value=list(permutation),
            )
        order = "F"
        codecs = codecs[1:]
    kinds = [codec.kind for codec in codecs]
    if kinds.count(CodecKind.ARRAY_BYTES) != 1:
        raise MetadataError("the codec chain needs exactly one array -> bytes codec", field="codecs")
    at = kinds.index(CodecKind.ARRAY_BYTES)
    array_filters = []
    for i, codec in enumerate(codecs[:at]):
        if codec.kind is not CodecKind.ARRAY_ARRAY:
            raise MetadataError("array -> array codecs must come first", field=f"codecs[{i}]")
        if _name(codec) == "transpose":
            raise MetadataError(
                "Zarr v2 has no transpose filter; only a leading full reversal (order 'F') can be stored",
                field=f"codecs[{i}]",
                value=codec.to_json(),
            )
        array_filters.append(v2_config(codec, field=f"filters[{i}]", read_configs=read_configs))
    serializer = codecs[at]
    ser_doc = serializer.to_json()
    ser_name = ser_doc.get("name")
    object_id = (
        SERIALIZER_TO_OBJECT_ID.get(ser_name) or READ_ONLY_OBJECT_SERIALIZERS.get(ser_name)
        if isinstance(ser_name, str)
        else None
    )
    endian = None
    if object_id == "json2" and metadata.data_type.to_json() != JSON_OBJECT_TYPE:
        raise MetadataError(
            f"serializer 'numcodecs.json2' stores '|O' arrays of JSON values, "
            f"not {metadata.data_type.to_json()!r}; zarrforge reads such arrays "
            "but does not create them",
            field="serializer",
            value=ser_doc,
        )
    if _is_array_compressor(ser_doc, object_id):
        if codecs[at + 1 :]:
            raise MetadataError(
                f"Zarr v2 has one compressor: {ser_doc['name']!r} compresses the "
                "array and nothing can follow it",
                field=f"codecs[{at + 1}]",
                value=codecs[at + 1].to_json(),
            )
        return {
            "order": order,
            "filters": array_filters,
            "array_filters": array_filters,
            "object_id": None,
            "endian": None,
            "compressor": v2_config(serializer, field="compressor", read_configs=read_configs),
        }
    if object_id is None:
        if ser_doc.get("name") != "bytes":
            raise MetadataError(
                f"Zarr v2 arrays have no serializer {ser_doc.get('name')!r}: "
                "v2 stores the array's bytes (the 'bytes' codec), or object "
                "arrays through vlen-utf8 / vlen-bytes",
                field="serializer",
                value=ser_doc,
            )
        endian = (ser_doc.get("configuration") or {}).get("endian")
    tail = codecs[at + 1 :]
    byte_filters = [v2_config(codec, field="filters", read_configs=read_configs) for codec in tail[:-1]]
    compressor = v2_config(tail[-1], field="compressor", read_configs=read_configs) if tail else None
    if compressor is not None and compressor["id"] == "zstd" and not compressor.get("checksum"):
        compressor.pop("checksum", None)  # as zarr-python writes it
    object_filter = []
    if object_id is not None:  # a numcodecs object codec keeps its configuration
        object_filter = [
            v2_config(serializer, field="filters", read_configs=read_configs)
            if object_id == "json2"
            else {"id": object_id}
        ]
    filters = [*array_filters, *object_filter, *byte_filters]
    return {
        "order": order,
        "filters": filters,
        "array_filters": array_filters,
        "object_id": object_id,
        "endian": endian,
        "compressor": compressor,
    }


def _is_array_compressor(ser_doc: dict[str, Any], object_id: str | None) -> bool:
    """Whether the serializer is a numcodecs array compressor (v2's ``compressor``)."""
    name = ser_doc.get("name")
    return (
        object_id is None
        and isinstance(name, str)
        and name.startswith(NUMCODECS_PREFIX)
        and name[len(NUMCODECS_PREFIX) :] not in OTHER_OBJECT_CODECS
    )
