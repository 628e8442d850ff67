"""Translating between ``.zarray`` documents and the zarrforge model.

Reading (:func:`parse_array`) builds an :class:`ArrayMetadata` whose codec
chain produces exactly the bytes a v2 implementation stores:

====================  ===========================================================
``.zarray``           model
====================  ===========================================================
``dtype``             the registered data type for the numpy dtype
                      (``data_type_from_user``); the byte order goes to the
                      ``bytes`` codec's ``endian``. ``"|O"`` with a
                      ``vlen-utf8`` / ``vlen-bytes`` filter is the ``string`` /
                      ``bytes`` data type of zarrforge-dtypes.
``order: "F"``        a leading ``transpose`` codec with reversed axes: a chunk
                      transposed that way and serialised in C order is the
                      Fortran-order byte stream v2 stores (and the one the
                      filters see, as in zarr-python). Present for every
                      ``ndim`` (an identity for 0-d and 1-d arrays), so the
                      order survives a round trip.
``filters``           ``numcodecs.<id>`` codecs; array filters (delta,
                      fixedscaleoffset, ...) before the serializer, byte
                      filters after it; the object codec is the serializer.
serializer            ``bytes`` with the byte order the last filter leaves
                      (the dtype's, or a filter's ``astype``).
``compressor``        ``numcodecs.<id>``, except where a registered v3 codec
                      writes the same bytes: ``gzip``, ``zstd``, ``crc32c``
                      (also as byte filters), and ``blosc`` with ``typesize``
                      the item size (numcodecs shuffles by the item size of
                      the array it is given; the v3 codec sees bytes).
                      numcodecs' ``shuffle: -1`` (auto) is resolved the way
                      numcodecs resolves it and remembered on the codec
                      (``_zarrforge_v2_config``) so it is written back as -1.
``chunks``            the ``regular`` chunk grid.
separator             the ``v2`` chunk key encoding.
``fill_value``        decoded with the v2 encodings; ``null`` keeps the data
                      type's default as the model's fill value and is recorded
                      as ``extra_fields["fill_value"] = None`` so it is written
                      back as ``null``.
other keys            kept in ``extra_fields`` and written back.
====================  ===========================================================

Writing (:func:`zarray_document`) inverts this. Models that v2 cannot hold
(a transpose that is not a full reversal, a serializer other than ``bytes``
or a vlen codec, several bytes -> bytes codecs is fine -- all but the last
become filters --, an irregular grid, a non-``v2`` key encoding) raise
:class:`MetadataError`.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Sequence

import numpy as np

from zarrforge import registry
from zarrforge.abc.codec import ChunkSpec, Codec, CodecKind
from zarrforge.abc.data_type import DataType
from zarrforge.errors import MetadataError, UnknownExtensionError
from zarrforge.metadata import components as c
from zarrforge.metadata.extension_def import message_of
from zarrforge.metadata.model import ArrayMetadata

FORMAT_NAME = "2"
ZARRAY = ".zarray"
ZGROUP = ".zgroup"
ZATTRS = ".zattrs"
ZMETADATA = ".zmetadata"

# zarr-python 3's key order for .zarray.
ARRAY_KEYS = ("shape", "chunks", "dtype", "fill_value", "order", "filters",
              "dimension_separator", "compressor", "zarr_format")
REQUIRED_KEYS = ("shape", "chunks", "dtype")
DIMENSIONS_ATTRIBUTE = "_ARRAY_DIMENSIONS"

# Object codecs (numcodecs ids) -> (zarrforge data type, zarrforge serializer).
OBJECT_CODECS = {"vlen-utf8": ("string", "vlen-utf8"), "vlen-bytes": ("bytes", "vlen-bytes")}
# Object codecs zarr-python knows that zarrforge cannot read.
OTHER_OBJECT_CODECS = frozenset({"vlen-array", "pickle", "json2", "msgpack2"})
SERIALIZER_TO_OBJECT_ID = {"vlen-utf8": "vlen-utf8", "vlen-bytes": "vlen-bytes",
                           "numcodecs.vlen-utf8": "vlen-utf8", "numcodecs.vlen-bytes": "vlen-bytes"}

# numcodecs ids whose codec is a registered v3 codec of the same name, and the
# configuration keys that codec shares with numcodecs'.
NATIVE_BYTES_CODECS = {"gzip": {"level"}, "zstd": {"level", "checksum"}, "crc32c": set()}
BLOSC_SHUFFLE = {0: "noshuffle", 1: "shuffle", 2: "bitshuffle"}
BLOSC_SHUFFLE_ID = {v: k for k, v in BLOSC_SHUFFLE.items()}
NUMCODECS_PREFIX = "numcodecs."
# Set on a codec built from a v2 configuration the codec cannot state itself.
V2_CONFIG_ATTRIBUTE = "_zarrforge_v2_config"


# --- helpers ----------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _layout() -> Any:
    return c.memory_layout("C")


def refield(exc: MetadataError, field: str | None, *, key: str | None = None) -> MetadataError:
    """``exc`` again, located at ``field`` of the document ``key`` (same error class)."""
    key = key if key is not None else exc.key
    if isinstance(exc, UnknownExtensionError):
        new: MetadataError = UnknownExtensionError(exc.point, exc.name, exc.installed,
                                                   exc.provider, field=field, key=key)
    elif type(exc) is MetadataError:
        new = MetadataError(message_of(exc), field=field, value=exc.value, key=key)
    else:  # a subclass with its own constructor: keep it, adjust the location
        exc.field, exc.key = field, key
        return exc
    new.__cause__ = exc
    return new


def _codec_field(where: str, exc: MetadataError) -> str:
    """The v2 location of a failure inside a codec built for the entry at ``where``."""
    inner = exc.field or ""
    for prefix in (f"{where}.name", f"{where}.configuration"):
        if inner.startswith(prefix):
            rest = inner[len(prefix):]
            return f"{where}.id" if prefix.endswith(".name") else f"{where}{rest}"
    if inner in ("name",):
        return f"{where}.id"
    if inner.startswith("configuration"):
        return where + inner[len("configuration"):]
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
        raise refield(exc, _codec_field(field, exc)) from None


def _blosc_codec(config: dict[str, Any], typesize: int, *, field: str) -> Codec:
    """numcodecs' blosc configuration as zarrforge's ``blosc`` codec.

    numcodecs shuffles by the item size of the array it is given; the v3
    codec sees bytes, so the item size becomes its ``typesize``.
    """
    allowed = {"id", "cname", "clevel", "shuffle", "blocksize", "typesize"}
    shuffle = config.get("shuffle", 1)
    if ("blosc" not in registry.codecs or set(config) - allowed
            or not _is_int(shuffle) or shuffle not in (-1, 0, 1, 2)):
        return numcodecs_codec(config, field=field)  # numcodecs validates and explains
    typesize = config.get("typesize") or typesize
    auto = shuffle == -1
    if auto:  # AUTOSHUFFLE: numcodecs picks by item size
        shuffle = 2 if typesize == 1 else 1
    configuration = {"typesize": typesize, "cname": config.get("cname", "lz4"),
                     "clevel": config.get("clevel", 5), "shuffle": BLOSC_SHUFFLE[shuffle],
                     "blocksize": config.get("blocksize", 0)}
    try:
        codec = c.codec_from_json({"name": "blosc", "configuration": configuration}, field=field)
    except MetadataError as exc:
        raise refield(exc, _codec_field(field, exc)) from None
    if auto:
        # The v3 codec records the shuffle it resolved; remember that the
        # document said "auto" (-1), so writing the .zarray back keeps it.
        try:
            setattr(codec, V2_CONFIG_ATTRIBUTE, dict(config))
        except AttributeError:
            pass
    return codec


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
    codec_id = name[len(NUMCODECS_PREFIX):]
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


def compressor_codec(config: dict[str, Any], typesize: int, *, field: str = "compressor") -> Codec:
    if config["id"] == "blosc":
        return _blosc_codec(config, typesize, field=field)
    return native_bytes_codec(numcodecs_codec(config, field=field), field=field)


def v2_config(codec: Codec, *, field: str) -> dict[str, Any]:
    """The numcodecs configuration (``{"id": ...}``) of a zarrforge codec."""
    remembered = getattr(codec, V2_CONFIG_ATTRIBUTE, None)
    if isinstance(remembered, dict):
        return dict(remembered)
    doc = codec.to_json()
    name = doc.get("name")
    conf = dict(doc.get("configuration") or {})
    if isinstance(name, str) and name.startswith(NUMCODECS_PREFIX):
        return {"id": name[len(NUMCODECS_PREFIX):], **conf}
    if name == "blosc":
        return {"id": "blosc", "cname": conf.get("cname", "zstd"), "clevel": conf.get("clevel", 5),
                "shuffle": BLOSC_SHUFFLE_ID.get(conf.get("shuffle", "shuffle"), 1),
                "blocksize": conf.get("blocksize", 0)}
    if name == "zstd":
        return {"id": "zstd", "level": conf.get("level", 0), "checksum": conf.get("checksum", False)}
    if name == "gzip":
        return {"id": "gzip", "level": conf.get("level", 5)}
    if name == "crc32c":  # the same bytes as numcodecs' CRC32C (little-endian, appended)
        return {"id": "crc32c"}
    raise MetadataError(f"codec {name!r} has no Zarr v2 form: v2 filters and compressors are "
                        "numcodecs codecs (use 'numcodecs.<id>', 'gzip', 'zstd', 'blosc' or 'crc32c')",
                        field=field, value=doc)


def _byteorder(dtype_str: Any) -> str | None:
    """The byte order character ('<', '>', '|') of a numpy dtype string, if valid."""
    if not isinstance(dtype_str, str):
        return None
    try:
        return np.dtype(dtype_str).str[0]
    except Exception:
        return None


def _shape_list(value: Any, field: str) -> tuple[int, ...]:
    return c.shape_from_json(value, field=field)


def chunks_from_json(value: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    if (not isinstance(value, list) or not all(_is_int(v) and v >= 1 for v in value)):
        raise MetadataError(f"must be a list of positive integers, got {value!r}",
                            field="chunks", value=value)
    if len(value) != len(shape):
        raise MetadataError(f"has {len(value)} entries but shape {list(shape)} has {len(shape)}; "
                            "there must be one chunk length per dimension",
                            field="chunks", value=value)
    return tuple(value)


# --- data types -------------------------------------------------------------------


def _object_codec(filters: list[dict[str, Any]]) -> tuple[int, str] | None:
    for i, f in enumerate(filters):
        if f["id"] in OBJECT_CODECS or f["id"] in OTHER_OBJECT_CODECS:
            return i, f["id"]
    return None


# What a v2 ``dtype`` may be, for error messages about ones zarrforge cannot read.
V2_DTYPES = ("'|b1'; '|i1', '<i2', '<i4', '<i8' and the unsigned '|u1'..'<u8'; '<f2', '<f4', "
             "'<f8'; '<c8', '<c16'; '<M8[unit]', '<m8[unit]'; '<U<n>'; '|S<n>'; '|V<n>'; '|O' "
             "with a vlen-utf8 or vlen-bytes filter; structured lists such as "
             "[[\"a\", \"<i4\"], [\"b\", \"<f8\"]] (any of these as '>' for big-endian, "
             "ml_dtypes names such as 'bfloat16' where zarrforge-dtypes is installed)")
_MAX_FIELD_DEPTH = 32


def _structured_descr(value: Any, field: str, depth: int = 0) -> list[tuple[str, Any]]:
    """A v2 structured ``dtype`` (``[[name, type], ...]``, types nested lists or strings)
    as a numpy descr, after checking its shape; shaped fields are refused (``struct``
    has no spelling for them)."""
    if depth > _MAX_FIELD_DEPTH:
        raise MetadataError(f"structured dtype nested more than {_MAX_FIELD_DEPTH} deep",
                            field=field, value=None)
    if not isinstance(value, list) or not value:
        raise MetadataError(f"a structured dtype must be a non-empty list of [name, type] "
                            f"fields, got {value!r}", field=field, value=value)
    descr: list[tuple[str, Any]] = []
    for i, entry in enumerate(value):
        where = f"{field}[{i}]"
        if isinstance(entry, list) and len(entry) == 3:
            raise MetadataError(f"field {entry[0]!r} has a shape {entry[2]!r}; zarrforge reads "
                                "structured dtypes whose fields are scalars (the v3 'struct' "
                                "type has no shaped fields)", field=where, value=entry)
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                and entry[0]):
            raise MetadataError(f"a structured dtype field must be [name, type] with a "
                                f"non-empty name, got {entry!r}", field=where, value=entry)
        name, kind = entry
        if isinstance(kind, list):
            descr.append((name, _structured_descr(kind, f"{where}[1]", depth + 1)))
        elif isinstance(kind, str):
            descr.append((name, kind))
        else:
            raise MetadataError(f"field {name!r}: the type must be a numpy type string or a "
                                f"list of fields, got {kind!r}", field=f"{where}[1]", value=kind)
    return descr


def leaf_byteorders(np_dtype: np.dtype) -> set[str]:
    """The byte orders ('<', '>') of the multi-byte scalars in a (structured) numpy dtype."""
    if np_dtype.fields is None:
        order = np_dtype.str[0]
        return set() if order == "|" else {order}
    return set().union(*(leaf_byteorders(np_dtype.fields[n][0]) for n in np_dtype.names))


def dtype_byteorder(value: Any) -> str:
    """The byte order ('<', '>' or '|') of a v2 ``dtype`` (a string or a structured list);
    a structured dtype mixing byte orders is refused (one ``bytes`` codec serialises it)."""
    if isinstance(value, list):
        orders = leaf_byteorders(np.dtype(_structured_descr(value, "dtype")))
        if len(orders) > 1:
            raise MetadataError("a structured dtype mixing little- and big-endian fields is not "
                                "supported; its fields must share one byte order",
                                field="dtype", value=value)
        return orders.pop() if orders else "|"
    return _byteorder(value) or "|"


def data_type_from_v2(value: Any, filters: list[dict[str, Any]]) -> tuple[DataType, str | None]:
    """The data type of a ``dtype`` field, and the object codec id for ``"|O"``."""
    if isinstance(value, list):
        descr = _structured_descr(value, "dtype")
        try:
            np_dtype = np.dtype(descr)
        except Exception as exc:
            raise MetadataError(f"{value!r} is not a valid structured dtype: {exc}",
                                field="dtype", value=value) from None
        return _registered(np_dtype, value), None
    if not isinstance(value, str):
        raise MetadataError(f"must be a numpy type string such as '<f8' or '|u1', got {value!r}",
                            field="dtype", value=value)
    try:
        np_dtype = np.dtype(value)
    except Exception as exc:
        raise MetadataError(f"{value!r} is not a numpy type string; v2 dtypes zarrforge reads: "
                            f"{V2_DTYPES}", field="dtype", value=value) from None
    if np_dtype.fields is not None:
        raise MetadataError("a structured dtype is written as a list of [name, type] fields, "
                            f"not as the string {value!r}", field="dtype", value=value)
    if np_dtype.kind == "O":
        found = _object_codec(filters)
        if found is None:
            raise MetadataError("an object array ('|O') needs an object codec in 'filters' "
                                f"(vlen-utf8 or vlen-bytes); none found in {filters!r}",
                                field="dtype", value=value)
        index, codec_id = found
        if codec_id not in OBJECT_CODECS:
            raise MetadataError(f"object arrays encoded with {codec_id!r} are not supported; "
                                "zarrforge reads '|O' arrays with vlen-utf8 (strings) or "
                                "vlen-bytes (bytes)", field=f"filters[{index}].id", value=codec_id)
        type_name = OBJECT_CODECS[codec_id][0]
        implementation = registry.data_types.get(type_name, field="dtype")
        return implementation.from_json(type_name, None), codec_id
    if np_dtype.kind == "V" and np_dtype.subdtype is not None:
        raise MetadataError(f"sub-array dtype {value!r} is not supported; v2 dtypes zarrforge "
                            f"reads: {V2_DTYPES}", field="dtype", value=value)
    return _registered(np_dtype, value), None


def _registered(np_dtype: np.dtype, value: Any) -> DataType:
    try:
        return c.data_type_from_user(np_dtype)
    except UnknownExtensionError:
        raise MetadataError(f"no installed data type holds the v2 dtype {value!r}; v2 dtypes "
                            f"zarrforge reads: {V2_DTYPES}", field="dtype", value=value) from None
    except MetadataError as exc:
        raise refield(exc, "dtype") from None


def _descr_in(np_dtype: np.dtype, byteorder: str) -> Any:
    """The v2 spelling of a (possibly structured) numpy dtype with multi-byte leaves in
    ``byteorder``: a type string, or a list of [name, type] fields."""
    if np_dtype.fields is None:
        if np_dtype.str[0] in "<>=":
            return np_dtype.newbyteorder(byteorder).str
        return np_dtype.str
    return [[n, _descr_in(np_dtype.fields[n][0], byteorder)] for n in np_dtype.names]


def dtype_string(data_type: DataType, byteorder: str) -> Any:
    """The v2 ``dtype`` of a fixed-size data type with byte order ``'<'`` or ``'>'``: a type
    string, or for a structured type a list of ``[name, type]`` fields."""
    np_dtype = data_type.numpy_dtype
    if np_dtype.fields is not None:
        return _descr_in(np_dtype, byteorder)
    if data_type.has_endianness:
        return np_dtype.newbyteorder(byteorder).str
    return np_dtype.str


# --- fill values --------------------------------------------------------------------


def fill_value_from_v2(data_type: DataType, value: Any, byteorder: str = "<") -> Any:
    """The in-memory fill value for a non-null v2 ``fill_value``; ``byteorder`` is the
    ``dtype``'s (structured fill values are the packed bytes in that order)."""
    dtype = data_type.numpy_dtype
    kind = dtype.kind
    try:
        if kind in "SU" and _is_int(value) and value == 0:
            # zarr-python 2.18 writes 0 for '<U4' / '|S1' arrays created without a fill
            # value; it means the empty string, the dtype's zero (docs/formats.md)
            return data_type.default_fill_value()
        if kind in "VS":
            if not isinstance(value, str):
                raise MetadataError(f"expected a base64 string for dtype {dtype.str!r}, got "
                                    f"{value!r}", field="fill_value", value=value)
            try:
                raw = base64.b64decode(value.encode("ascii"), validate=True)
            except (UnicodeEncodeError, binascii.Error):
                raise MetadataError(f"{value!r} is not valid base64", field="fill_value",
                                    value=value) from None
            if kind == "V":
                if len(raw) != dtype.itemsize:
                    raise MetadataError(f"decodes to {len(raw)} bytes; dtype {dtype.str!r} "
                                        f"needs {dtype.itemsize}", field="fill_value", value=value)
                if dtype.fields is not None:
                    stored = dtype.newbyteorder(byteorder if byteorder in "<>" else "<")
                    return data_type.from_user_value(
                        np.frombuffer(raw, dtype=stored).astype(dtype)[0])
                return data_type.from_user_value(raw)
            return data_type.from_user_value(raw)
        if kind in "iu" and isinstance(value, float) and value.is_integer():
            value = int(value)  # some writers stored integer fill values as floats
        if kind == "b" and _is_int(value) and value in (0, 1):
            value = bool(value)
        if (kind == "T" and isinstance(value, (int, float)) and not isinstance(value, bool)):
            value = str(value)  # zarr-python 2 wrote numbers for string arrays; read as zarr-python 3
        if kind == "c" and isinstance(value, (int, float, str)) and not isinstance(value, bool):
            value = [value, 0.0]
        return data_type.fill_value_from_json(value)
    except MetadataError as exc:
        raise refield(exc, "fill_value") from None
    except (TypeError, ValueError, OverflowError) as exc:
        raise MetadataError(f"{value!r} is not a valid fill value for dtype {dtype.str!r}: {exc}",
                            field="fill_value", value=value) from None


def _nan_strings(value: Any) -> Any:
    """v2 has no NaN bit patterns: any ``"0x..."`` float encoding is a NaN."""
    if isinstance(value, str) and value.startswith("0x"):
        return "NaN"
    if isinstance(value, list):
        return [_nan_strings(v) for v in value]
    return value


def fill_value_to_v2(data_type: DataType, value: Any, byteorder: str = "<") -> Any:
    dtype = data_type.numpy_dtype
    if dtype.kind in "VS":
        stored = dtype.newbyteorder(byteorder) if dtype.fields is not None else dtype
        raw = np.array(value, dtype=dtype).astype(stored).tobytes()
        return base64.b64encode(raw).decode("ascii")
    encoded = data_type.fill_value_to_json(value)
    if dtype.kind in "fc":
        encoded = _nan_strings(encoded)
    return encoded


# --- .zarray -> model -----------------------------------------------------------------


def _codec_list(value: Any, field: str) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise MetadataError(f"must be a list of codec configurations or null, got {value!r}",
                            field=field, value=value)
    for i, entry in enumerate(value):
        _check_codec_config(entry, f"{field}[{i}]")
    return value


def _check_codec_config(entry: Any, field: str) -> None:
    if not isinstance(entry, dict):
        raise MetadataError(f"must be a codec configuration object with an 'id', got {entry!r}",
                            field=field, value=entry)
    codec_id = entry.get("id")
    if not isinstance(codec_id, str) or not codec_id:
        raise MetadataError(f"must be a non-empty string naming a numcodecs codec, got "
                            f"{codec_id!r}", field=f"{field}.id", value=codec_id)


def _output_byteorder(config: dict[str, Any], current: str) -> str:
    """Byte order of what a numcodecs filter produces (its ``astype``), else unchanged."""
    for key in ("astype", "encode_dtype"):
        order = _byteorder(config.get(key))
        if order is not None:
            return order if order != "|" else current
    return current


def build_codecs(data_type: DataType, chunk_shape: tuple[int, ...], fill_value: Any, *,
                 order: str, filters: list[dict[str, Any]], object_codec: str | None,
                 compressor: dict[str, Any] | None, byteorder: str) -> tuple[Codec, ...]:
    ndim = len(chunk_shape)
    spec = ChunkSpec(chunk_shape, data_type, fill_value, _layout())
    array_codecs: list[Codec] = []
    bytes_codecs: list[Codec] = []
    if order == "F":
        transpose = c.codec_from_json(
            {"name": "transpose", "configuration": {"order": list(range(ndim))[::-1]}},
            field="order")
        array_codecs.append(transpose)
        spec = transpose.resolve(spec)
    serializer: Codec | None = None
    current = byteorder
    last_bytes_filter = None
    for i, config in enumerate(filters):
        where = f"filters[{i}]"
        if config["id"] == object_codec:
            if serializer is not None:
                raise MetadataError("only one object codec may appear in the filters",
                                    field=where, value=config)
            serializer = c.codec_from_json({"name": OBJECT_CODECS[object_codec][1]}, field=where)
            continue
        codec = numcodecs_codec(config, field=where)
        if codec.kind is CodecKind.ARRAY_ARRAY:
            if serializer is not None or last_bytes_filter is not None:
                after = "the object codec" if serializer is not None else repr(last_bytes_filter)
                raise MetadataError(f"filter {config['id']!r} transforms arrays but comes after "
                                    f"{after}, which produces bytes", field=where, value=config)
            array_codecs.append(codec)
            spec = codec.resolve(spec)
            current = _output_byteorder(config, current)
        elif codec.kind is CodecKind.ARRAY_BYTES:
            raise MetadataError(f"filter {config['id']!r} serialises whole arrays; zarrforge reads "
                                "v2 arrays whose only such filter is the vlen-utf8 / vlen-bytes "
                                "object codec of an '|O' array", field=where, value=config)
        else:
            if object_codec is not None and serializer is None:
                raise MetadataError(f"byte filter {config['id']!r} cannot run before the object "
                                    f"codec {object_codec!r}", field=where, value=config)
            bytes_codecs.append(native_bytes_codec(codec, field=where))
            last_bytes_filter = config["id"]
    if serializer is None:
        if spec.data_type.has_endianness:
            endian = "big" if current == ">" else "little"
            serializer = c.codec_from_json({"name": "bytes", "configuration": {"endian": endian}},
                                           field="dtype")
        else:
            serializer = c.codec_from_json({"name": "bytes"}, field="dtype")
    codecs = [*array_codecs, serializer, *bytes_codecs]
    if compressor is not None:
        typesize = spec.data_type.item_size or 1
        codecs.append(compressor_codec(compressor, typesize))
    return tuple(codecs)


def dimension_names_from_attributes(attributes: dict[str, Any], ndim: int
                                    ) -> tuple[str, ...] | None:
    names = attributes.get(DIMENSIONS_ATTRIBUTE)
    if (isinstance(names, list) and len(names) == ndim
            and all(isinstance(n, str) for n in names)):
        return tuple(names)
    return None


def parse_array(document: dict[str, Any], attributes: dict[str, Any]) -> ArrayMetadata:
    """The model of a ``.zarray`` document (errors name the field, not the key)."""
    if "zarr_format" not in document:
        raise MetadataError("is missing; a .zarray document must have \"zarr_format\": 2",
                            field="zarr_format")
    if document["zarr_format"] != 2 or isinstance(document["zarr_format"], bool):
        raise MetadataError(f"expected 2, got {document['zarr_format']!r}", field="zarr_format",
                            value=document["zarr_format"])
    missing = [k for k in REQUIRED_KEYS if k not in document]
    if missing:
        raise MetadataError(f"array metadata lacks the required field(s) {missing}",
                            field=missing[0])
    shape = _shape_list(document["shape"], "shape")
    chunks = chunks_from_json(document["chunks"], shape)
    order = document.get("order", "C")
    if order not in ("C", "F"):
        raise MetadataError(f"must be 'C' or 'F', got {order!r}", field="order", value=order)
    separator = document.get("dimension_separator", ".")
    if separator not in (".", "/"):
        raise MetadataError(f"must be '.' or '/', got {separator!r}", field="dimension_separator",
                            value=separator)
    filters = _codec_list(document.get("filters"), "filters")
    compressor = document.get("compressor")
    if compressor is not None:
        _check_codec_config(compressor, "compressor")
    data_type, object_codec = data_type_from_v2(document["dtype"], filters)
    byteorder = dtype_byteorder(document["dtype"])
    raw_fill = document.get("fill_value")
    extra = {k: v for k, v in document.items() if k not in ARRAY_KEYS}
    if raw_fill is None:
        fill_value = data_type.default_fill_value()
        extra = {"fill_value": None, **extra}
    else:
        fill_value = fill_value_from_v2(data_type, raw_fill, byteorder)
    codecs = build_codecs(data_type, chunks, fill_value, order=order, filters=filters,
                          object_codec=object_codec, compressor=compressor, byteorder=byteorder)
    return ArrayMetadata(
        shape=shape,
        data_type=data_type,
        chunk_grid=c.chunk_grid_from_json(
            {"name": "regular", "configuration": {"chunk_shape": list(chunks)}}, shape,
            field="chunks"),
        chunk_key_encoding=c.chunk_key_encoding_from_json(
            {"name": "v2", "configuration": {"separator": separator}},
            field="dimension_separator"),
        fill_value=fill_value,
        codecs=codecs,
        attributes=attributes,
        format_name=FORMAT_NAME,
        dimension_names=dimension_names_from_attributes(attributes, len(shape)),
        extra_fields=extra,
    )


# --- model -> .zarray -----------------------------------------------------------------


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


def split_codecs(metadata: ArrayMetadata) -> dict[str, Any]:
    """The v2 pieces of a model's codec chain: order, filters, object codec, endian, compressor."""
    codecs = list(metadata.codecs)
    ndim = len(metadata.shape)
    order = "C"
    if codecs and _name(codecs[0]) == "transpose":
        permutation = tuple(codecs[0].to_json().get("configuration", {}).get("order", ()))
        if permutation != tuple(range(ndim))[::-1]:
            raise MetadataError(f"Zarr v2 stores chunks in C or F order only; transpose "
                                f"{list(permutation)} is neither", field="codecs[0]",
                                value=list(permutation))
        order = "F"
        codecs = codecs[1:]
    kinds = [codec.kind for codec in codecs]
    if kinds.count(CodecKind.ARRAY_BYTES) != 1:
        raise MetadataError("the codec chain needs exactly one array -> bytes codec",
                            field="codecs")
    at = kinds.index(CodecKind.ARRAY_BYTES)
    array_filters = []
    for i, codec in enumerate(codecs[:at]):
        if codec.kind is not CodecKind.ARRAY_ARRAY:
            raise MetadataError("array -> array codecs must come first", field=f"codecs[{i}]")
        if _name(codec) == "transpose":
            raise MetadataError("Zarr v2 has no transpose filter; only a leading full reversal "
                                "(order 'F') can be stored", field=f"codecs[{i}]",
                                value=codec.to_json())
        array_filters.append(v2_config(codec, field=f"filters[{i}]"))
    serializer = codecs[at]
    ser_doc = serializer.to_json()
    object_id = SERIALIZER_TO_OBJECT_ID.get(ser_doc.get("name"))
    endian = None
    if object_id is None:
        if ser_doc.get("name") != "bytes":
            raise MetadataError(f"Zarr v2 arrays have no serializer {ser_doc.get('name')!r}: "
                                "v2 stores the array's bytes (the 'bytes' codec), or object "
                                "arrays through vlen-utf8 / vlen-bytes",
                                field="serializer", value=ser_doc)
        endian = (ser_doc.get("configuration") or {}).get("endian")
    tail = codecs[at + 1:]
    byte_filters = [v2_config(codec, field="filters") for codec in tail[:-1]]
    compressor = v2_config(tail[-1], field="compressor") if tail else None
    if compressor is not None and compressor["id"] == "zstd" and not compressor.get("checksum"):
        compressor.pop("checksum", None)  # as zarr-python writes it
    filters = [*array_filters, *([{"id": object_id}] if object_id else []), *byte_filters]
    return {"order": order, "filters": filters, "array_filters": array_filters,
            "object_id": object_id, "endian": endian, "compressor": compressor}


def zarray_document(metadata: ArrayMetadata) -> dict[str, Any]:
    parts = split_codecs(metadata)
    data_type = metadata.data_type
    byteorder: str | None = "<"
    if parts["object_id"] is not None:
        dtype = "|O"
    else:
        byteorder = _input_byteorder(parts["array_filters"])
        if byteorder is None:
            byteorder = ">" if parts["endian"] == "big" else "<"
        dtype = dtype_string(data_type, byteorder)
    chunk_shape = metadata.chunk_grid.regular_chunk_shape
    if chunk_shape is None:
        raise MetadataError("Zarr v2 arrays have a regular chunk grid only", field="chunks")
    encoding = metadata.chunk_key_encoding.to_json()
    if not isinstance(encoding, dict) or encoding.get("name") != "v2":
        raise MetadataError(f"Zarr v2 arrays use the v2 chunk key encoding, not {encoding!r}",
                            field="chunk_key_encoding", value=encoding)
    separator = (encoding.get("configuration") or {}).get("separator", ".")
    extra = dict(metadata.extra_fields)
    if "fill_value" in extra and extra["fill_value"] is None:
        extra.pop("fill_value")
        fill = None
    else:
        extra.pop("fill_value", None)
        fill = fill_value_to_v2(data_type, metadata.fill_value, byteorder or "<")
    doc: dict[str, Any] = {
        "shape": list(metadata.shape),
        "chunks": list(chunk_shape),
        "dtype": dtype,
        "fill_value": fill,
        "order": parts["order"],
        "filters": parts["filters"] or None,
        "dimension_separator": separator,
        "compressor": parts["compressor"],
        "zarr_format": 2,
    }
    for k, v in extra.items():
        if k not in doc:
            doc[k] = v
    return doc


def zattrs_document(metadata: Any) -> dict[str, Any]:
    """The ``.zattrs`` of a node: its attributes, with ``_ARRAY_DIMENSIONS`` for arrays.

    The attributes win when they hold ``_ARRAY_DIMENSIONS`` already;
    otherwise string dimension names are added under that key.
    """
    attributes = dict(metadata.attributes)
    names = getattr(metadata, "dimension_names", None)
    if (names is not None and DIMENSIONS_ATTRIBUTE not in attributes
            and all(isinstance(n, str) for n in names)):
        attributes[DIMENSIONS_ATTRIBUTE] = list(names)
    return attributes
