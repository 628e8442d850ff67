"""The ``numcodecs.<id>`` family: any numcodecs codec as a zarrforge codec.

Contract:

* The entry point ``numcodecs.*`` names :class:`NumcodecsCodec`.
  ``NumcodecsCodec.from_json("numcodecs.zlib", {"level": 1})`` builds
  ``numcodecs.get_codec({"id": "zlib", "level": 1})`` and wraps it in the
  subclass matching what the codec maps (see :mod:`zarrforge_numcodecs._kinds`):
  :class:`NumcodecsArrayArrayCodec`, :class:`NumcodecsArrayBytesCodec` or
  :class:`NumcodecsBytesBytesCodec`.
* ``to_json()`` gives the configuration as it was stated
  (``{"name": "numcodecs.zlib", "configuration": {}}`` stays so, as zarr-python
  writes and reads it), so a document read and written again is unchanged and
  an array made from the same codec object stores what zarr-python stores.
  Without a stated configuration (the name alone) it is numcodecs'
  ``get_config()`` without ``"id"``, omitted when empty; a codec made by
  :meth:`NumcodecsCodec.from_numcodecs` states every setting of the object.
  ``shuffle`` without a stated ``elementsize`` takes the array's item size when
  evolved for an array (as zarr-python does), not numcodecs' default of 4.
* An id numcodecs does not know raises :class:`~zarrforge.errors.MetadataError`
  (field ``name``) listing the ids it does know; a configuration numcodecs
  rejects raises ``MetadataError`` (field ``configuration``) with numcodecs'
  reason and the parameters the codec accepts.
* Codecs that can run code when they decode are refused unless allowed
  (:mod:`zarrforge_numcodecs.safety`), both when built and when decoding.
* ``json2`` chunks are decoded by :mod:`zarrforge_numcodecs._json2` (plain
  JSON, the declared shape and dtype checked before anything is allocated)
  into object arrays; writing them is refused with a ``CodecError``.
* ``pcodec`` chunks are decoded into a buffer of the chunk's size and must
  hold exactly its element count (numcodecs would size the output from the
  stream's header).
* Decoding failures become :class:`~zarrforge.errors.CorruptChunkError`
  (:class:`~zarrforge.errors.ChecksumError` for numcodecs' checksum codecs);
  the sizes declared by blosc, zstd, lz4 and gzip headers are checked first.
* :meth:`NumcodecsCodec.named_class` makes, once per name, a class for one codec built
  from numcodecs' keyword arguments, as zarr-python's ``zarr.codecs.numcodecs`` classes
  are (``zarrforge.codecs.numcodecs.LZMA(preset=1)``): a subclass of the kind class
  ``from_json`` picks, whose ``from_json`` and ``evolve`` keep that class, and for which
  ``isinstance`` also holds of a codec of that name read from metadata. Codecs of this
  family compare equal when their JSON is, whichever of these classes they are.
* Array filters see chunks as C-ordered arrays of the spec's shape. numcodecs
  filters work on flat arrays; the adapter flattens in C order, converts the
  input to the dtype the filter is configured for (byte order included), and
  reshapes and converts the output to the representation ``resolve`` promised.
"""

from __future__ import annotations

import inspect
import math
import pickle
import struct
from abc import ABCMeta
from typing import Any, ClassVar, cast

import numcodecs
import numcodecs.registry
import numpy as np
from numcodecs.compat import ensure_bytes
from numcodecs.pickles import Pickle

from zarrforge.abc.codec import ArrayArrayCodec, ArrayBytesCodec, BytesBytesCodec, ChunkSpec, Codec, CodecKind
from zarrforge.errors import ChecksumError, CodecError, CorruptChunkError, MetadataError, UnsafeCodecError
from zarrforge.plugin_api.codecs import json_ready

from . import _bounds, _inflate, _json2, _kinds, _zfpy_stream, safety
from ._data_types import data_type_for
from ._failures import decoding, encoding

PREFIX = "numcodecs."

# Header checks run before numcodecs decompresses (see _bounds).
_HEADER_CHECKS = {
    "blosc": _bounds.blosc_decoded_size,
    "zstd": _bounds.check_zstd,
    "lz4": _bounds.check_numcodecs_lz4,
    "gzip": _bounds.check_gzip,
}

_NUMERIC_KINDS = "biufc"

# numcodecs' variable-length codecs start with the item count (checked before
# numcodecs allocates an object array of that length).
_VLEN_IDS = frozenset({"vlen-utf8", "vlen-bytes", "vlen-array"})

# Codecs read but not written, and why.
_READ_ONLY_IDS = {
    "json2": "JSON does not round-trip Python objects: tuples come back as lists, "
    "and numpy scalars or other types fail to encode",
}


def available_ids() -> list[str]:
    """Codec ids numcodecs can build: registered classes and ``numcodecs.codecs`` entry points."""
    ids = set(numcodecs.registry.codec_registry)
    ids.update(getattr(numcodecs.registry, "entries", {}))
    return sorted(ids)


def _parameters(codec_id: str) -> str:
    cls = numcodecs.registry.codec_registry.get(codec_id)
    if cls is None:
        return "see the numcodecs documentation"
    try:
        params = [
            p.name
            for p in inspect.signature(cls.__init__).parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
    except (TypeError, ValueError):
        return "see the numcodecs documentation"
    return ", ".join(params) if params else "no parameters"


def _codec_id(name: Any) -> str:
    if not isinstance(name, str) or not name.startswith(PREFIX) or len(name) == len(PREFIX):
        raise MetadataError(
            f"a numcodecs codec name must be 'numcodecs.<id>', got {name!r}", field="name", value=name
        )
    return name[len(PREFIX) :]


def _build(name: str, codec_id: str, configuration: Any) -> Any:
    """The numcodecs codec object for ``name`` and ``configuration``."""
    if configuration is None:
        configuration = {}
    if not isinstance(configuration, dict):
        raise MetadataError(
            f"the configuration of codec {name!r} must be a JSON object, got "
            f"{type(configuration).__name__} {configuration!r}",
            field="configuration",
            value=configuration,
        )
    config = dict(configuration)
    if "id" in config:
        if config["id"] != codec_id:
            raise MetadataError(
                f"codec {name!r} has configuration id {config['id']!r}; it must be absent or {codec_id!r}",
                field="configuration.id",
                value=config["id"],
            )
        del config["id"]
    try:
        return numcodecs.get_codec({"id": codec_id, **config})
    except Exception as exc:
        if codec_id not in available_ids():
            raise MetadataError(
                f"numcodecs has no codec with id {codec_id!r} (from codec name {name!r}); "
                f"available ids: {', '.join(available_ids())}",
                field="name",
                value=name,
            ) from exc
        raise MetadataError(
            f"numcodecs rejected the configuration {configuration!r} of codec {name!r}: "
            f"{type(exc).__name__}: {exc}; {codec_id!r} accepts: {_parameters(codec_id)}",
            field="configuration",
            value=configuration,
        ) from exc


def _decoded_chunk(out: np.ndarray, spec: ChunkSpec, codec: str) -> np.ndarray:
    """A numcodecs codec's decoded output as the chunk ``spec`` describes: exactly its
    element count (else the chunk is corrupt), its shape and its dtype."""
    expected = math.prod(spec.shape)
    if out.size != expected:
        raise CorruptChunkError(
            f"codec {codec!r} decoded {out.size} elements, expected {expected} (shape {spec.shape})"
        )
    out = out.reshape(spec.shape)
    return out if out.dtype == spec.dtype else out.astype(spec.dtype)


def _checked_numcodec(name: str, configuration: Any) -> Any:
    """The numcodecs codec object for ``name`` and ``configuration``, refused unless allowed
    when it can run code (checked before anything is built and after)."""
    codec_id = _codec_id(name)
    safety.require_allowed(name)
    numcodec = _build(name, codec_id, configuration)
    safety.require_allowed(name, numcodec)
    return numcodec


class _NamedCodecMeta(ABCMeta):
    """The metaclass of :meth:`NumcodecsCodec.named_class`'s classes: ``isinstance`` holds
    of every codec of this family with the class's name, however it was built."""

    def __instancecheck__(cls, instance: Any) -> bool:
        fixed = cls.__dict__.get("_fixed_name")
        if fixed is not None and isinstance(instance, NumcodecsCodec) and instance.name == fixed:
            return True
        return super().__instancecheck__(instance)


class NumcodecsCodec(Codec):
    """Entry point of the ``numcodecs.*`` family; :meth:`from_json` picks the subclass."""

    name = "numcodecs.*"
    # the full name of a named_class() class ("numcodecs.lzma"); None for the others
    _fixed_name: ClassVar[str | None] = None
    _named_classes: ClassVar[dict[tuple[str, str, str], type[NumcodecsCodec]]] = {}

    def __init__(self, name: str, numcodec: Any, stated: dict[str, Any] | None = None) -> None:
        self.name = name  # the full name, e.g. "numcodecs.zlib"
        self._codec_id = _codec_id(name)
        self._numcodec = numcodec
        config = dict(numcodec.get_config())
        config.pop("id", None)
        self._config: dict[str, Any] = json_ready(config)  # every setting, defaults included
        # the configuration as the document (or the caller) stated it: written back as it
        # was, as zarr-python does, so a rewrite changes nothing and both write the same
        self._stated = None if stated is None else json_ready({k: v for k, v in stated.items() if k != "id"})
        self._unsafe = safety.unsafe_reason(name, numcodec) is not None

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> NumcodecsCodec:
        if cls._fixed_name is not None:  # a named_class() class keeps its class
            if name != cls._fixed_name:
                raise MetadataError(
                    f"{cls.__qualname__} is the codec {cls._fixed_name!r}, not {name!r}",
                    field="name",
                    value=name,
                )
            if configuration is not None and not isinstance(configuration, dict):
                _build(name, _codec_id(name), configuration)  # raises, naming the field
            return cls(**(configuration or {}))
        numcodec = _checked_numcodec(name, configuration)
        return _kind_class(_codec_id(name))(name, numcodec, configuration)

    @classmethod
    def named_class(cls, name: str, class_name: str, module: str | None = None) -> type[NumcodecsCodec]:
        """The class of the codec ``name`` (``"numcodecs.lzma"``) whose constructor takes
        numcodecs' keyword arguments, ``class_name(**configuration)``, as zarr-python's
        ``zarr.codecs.numcodecs`` classes do: a subclass of the kind class
        :meth:`from_json` builds for ``name``, made once per (``name``, ``class_name``,
        ``module``); ``module`` is the module the class says it lives in (for its
        ``repr`` and pickling; it must offer the class under ``class_name``). The
        configuration is what the codec writes, as stated; numcodecs checks it when the
        codec is made (``MetadataError`` naming the field and the accepted parameters)."""
        codec_id = _codec_id(name)
        if not class_name.isidentifier():
            raise ValueError(f"class_name must be a Python identifier, got {class_name!r}")
        key = (name, class_name, module or __name__)
        made = NumcodecsCodec._named_classes.get(key)
        if made is not None:
            return made
        base = _kind_class(codec_id)

        def __init__(self: NumcodecsCodec, **configuration: Any) -> None:
            base.__init__(self, name, _checked_numcodec(name, configuration), configuration)

        def __repr__(self: NumcodecsCodec) -> str:
            stated = self.to_json().get("configuration") or {}
            return f"{class_name}({', '.join(f'{k}={v!r}' for k, v in stated.items())})"

        # a subclass of base, which the checker sees only as an instance of the metaclass
        built = cast(
            "type[NumcodecsCodec]",
            _NamedCodecMeta(
                class_name,
                (base,),
                {
                    "__init__": __init__,
                    "__repr__": __repr__,
                    "_fixed_name": name,
                    "name": name,
                    "__module__": key[2],
                    "__qualname__": class_name,
                    "__doc__": f"The codec {name!r}: ``{class_name}(**configuration)`` with numcodecs' "
                    f"keyword arguments for {codec_id!r} "
                    f"({_parameters(codec_id)}).",
                },
            ),
        )
        NumcodecsCodec._named_classes[key] = built
        return built

    @classmethod
    def from_numcodecs(cls, numcodec: Any) -> NumcodecsCodec:
        """Wrap an existing numcodecs codec object (through :meth:`from_json`)."""
        config = dict(numcodec.get_config())
        codec_id = config.pop("id")
        return cls.from_json(PREFIX + codec_id, json_ready(config))

    @property
    def codec_id(self) -> str:
        return self._codec_id

    @property
    def configuration(self) -> dict[str, Any]:
        result: dict[str, Any] = json_ready(self._config)  # a fresh copy
        return result

    def __eq__(self, other: object) -> bool:
        # a named_class() codec equals the same codec read from metadata; another
        # library's codec object (a numcodecs one) is compared by its JSON, as the base
        # class compares it
        if not isinstance(other, Codec):
            return super().__eq__(other)
        return isinstance(other, NumcodecsCodec) and other.to_json() == self.to_json()

    def __hash__(self) -> int:
        return hash(repr(self.to_json()))

    def to_json(self) -> dict[str, Any]:
        if self._stated is not None:
            return {"name": self.name, "configuration": json_ready(self._stated)}
        if not self._config:
            return {"name": self.name}
        return {"name": self.name, "configuration": json_ready(self._config)}

    def evolve(self, spec: ChunkSpec) -> NumcodecsCodec:
        # shuffle's element size left unstated is the array's item size, recorded (as
        # zarr-python records it); numcodecs alone would shuffle in 4-byte elements
        if (
            self._codec_id == "shuffle"
            and self._stated is not None
            and "elementsize" not in self._stated
            and spec.data_type.item_size
        ):
            return type(self).from_json(self.name, {**self._stated, "elementsize": spec.data_type.item_size})
        return self

    def _check_safe(self) -> None:
        if self._unsafe:
            safety.require_allowed(self.name, self._numcodec)


class NumcodecsBytesBytesCodec(NumcodecsCodec, BytesBytesCodec):
    """A numcodecs compressor, checksum or byte filter (``bytes -> bytes``)."""

    def encoded_size(self, decoded_size: int | None) -> int | None:
        return _kinds.encoded_size(self._codec_id, decoded_size)

    def encode(self, data: bytes | memoryview) -> bytes:
        with encoding(self.name):
            result: bytes = ensure_bytes(self._numcodec.encode(data))
            return result

    def decode(self, data: bytes | memoryview) -> bytes:
        self._check_safe()
        data = _bounds.byte_view(data)
        check = _HEADER_CHECKS.get(self._codec_id)
        if check is not None:
            check(data, self.name)
        if self._codec_id == "zstd" and _bounds.is_empty_zstd_frame(data, self.name):
            return b""
        if self._codec_id == "blosc" and _bounds.blosc_decoded_size(data, self.name) == 0:
            return b""  # numcodecs' blosc reports an error for empty chunks
        if self._codec_id == "lzma":  # numcodecs cannot decode xz streams with filters
            return _inflate.lzma_decompress(self._numcodec, data, self.name)
        try:
            with decoding(self.name):
                result: bytes = ensure_bytes(self._numcodec.decode(data))
                return result
        except CorruptChunkError as exc:
            cause = exc.__cause__
            if (
                self._codec_id in _kinds.CHECKSUM_IDS
                and isinstance(cause, RuntimeError)
                and "checksum" in str(cause).lower()
            ):
                raise ChecksumError(f"codec {self.name!r}: checksum mismatch: {cause}") from cause
            raise

    def decode_sized(self, data: bytes | memoryview, expected_size: int) -> bytes:
        self._check_safe()
        data = _bounds.byte_view(data)
        if self._codec_id in _inflate.STREAM_IDS:
            return _inflate.inflate(self._codec_id, self._numcodec, data, expected_size, self.name)
        if self._codec_id == "zstd":
            return _inflate.zstd_sized(self._numcodec, data, expected_size, self.name)
        if self._codec_id == "blosc":
            _inflate.check_declared(self.name, _bounds.blosc_decoded_size(data, self.name), expected_size)
        elif self._codec_id == "lz4":
            _bounds.check_numcodecs_lz4(data, self.name)
            _inflate.check_declared(self.name, struct.unpack_from("<i", data, 0)[0], expected_size)
        return super().decode_sized(data, expected_size)


class NumcodecsArrayArrayCodec(NumcodecsCodec, ArrayArrayCodec):
    """A numcodecs filter mapping arrays to arrays (``array -> array``)."""

    def _decoded_dtype(self) -> np.dtype | None:
        return _kinds.decoded_dtype(self._codec_id, self._config)

    def validate(self, spec: ChunkSpec) -> None:
        dtype = spec.dtype
        if self._codec_id == "packbits":
            if dtype != np.dtype(bool):
                raise MetadataError(
                    f"codec {self.name!r} packs booleans only; the chunks it receives have dtype {dtype}",
                    value=str(dtype),
                )
        elif self._codec_id == "bitround":
            keepbits = self._config.get("keepbits")
            limit = _kinds.BITROUND_MAX_KEEPBITS.get(dtype.itemsize)
            if dtype.kind != "f" or limit is None:
                raise MetadataError(
                    f"codec {self.name!r} rounds float16/32/64 only; the "
                    f"chunks it receives have dtype {dtype}",
                    value=str(dtype),
                )
            if not isinstance(keepbits, int) or keepbits > limit:
                raise MetadataError(
                    f"codec {self.name!r}: keepbits must be at most {limit} for {dtype}, got {keepbits!r}",
                    value=keepbits,
                )
        elif self._codec_id == "categorize":
            if dtype.kind not in "UOT":
                raise MetadataError(
                    f"codec {self.name!r} encodes strings only; the chunks it receives have dtype {dtype}",
                    value=str(dtype),
                )
        else:
            configured = self._decoded_dtype()
            if configured is not None and configured.newbyteorder("=") != dtype:
                key = _kinds.DTYPE_KEYS[self._codec_id][0]
                raise MetadataError(
                    f"codec {self.name!r} is configured with {key} {configured.str!r} but the "
                    f"chunks it receives have dtype {dtype.str!r}; set configuration.{key} "
                    "to the array's data type",
                    value=configured.str,
                )

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        dtype = _kinds.encoded_dtype(self._codec_id, self._config, spec.dtype)
        shape = _kinds.encoded_shape(self._codec_id, spec.shape)
        return ChunkSpec(
            shape=shape,
            data_type=data_type_for(dtype, spec.data_type),
            fill_value=self._encoded_fill_value(spec, dtype),
            layout=spec.layout,
        )

    def _encoded_fill_value(self, spec: ChunkSpec, dtype: np.dtype) -> Any:
        """The fill value run through the filter (zero where that means nothing)."""
        if self._codec_id != "packbits":
            try:
                with np.errstate(all="ignore"):
                    sample = np.full(1, spec.fill_value, dtype=spec.dtype)
                    return self._encode_flat(sample, dtype)[0]
            except Exception:  # noqa: BLE001  # a fill value the filter cannot encode: fall back to zero
                pass
        return np.zeros((), dtype=dtype)[()]

    def _encode_flat(self, arr: np.ndarray, target: np.dtype) -> np.ndarray:
        """Encode a C-contiguous array; the flat result has dtype ``target``."""
        configured = self._decoded_dtype()
        if configured is not None and configured.kind in _NUMERIC_KINDS and arr.dtype != configured:
            arr = arr.astype(configured)
        out = np.asarray(self._numcodec.encode(arr)).reshape(-1)
        if self._codec_id == "bitround" and out.dtype != arr.dtype:
            out = out.view(arr.dtype)  # numcodecs returns the rounded bits as integers
        return out.astype(target, copy=False)

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        dtype = _kinds.encoded_dtype(self._codec_id, self._config, spec.dtype)
        shape = _kinds.encoded_shape(self._codec_id, spec.shape)
        with encoding(self.name):
            out = self._encode_flat(np.ascontiguousarray(chunk), dtype)
        if out.size != math.prod(shape):
            raise CodecError(
                f"codec {self.name!r} encoded {out.size} elements, expected "
                f"{math.prod(shape)} (shape {shape})"
            )
        return out.reshape(shape)

    def decode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        self._check_safe()
        enc = np.ascontiguousarray(chunk)
        configured = _kinds.configured_encoded_dtype(self._codec_id, self._config)
        with decoding(self.name):
            if configured is not None and configured.kind in _NUMERIC_KINDS and enc.dtype != configured:
                enc = enc.astype(configured)
            return _decoded_chunk(np.asarray(self._numcodec.decode(enc)), spec, self.name)


class NumcodecsArrayBytesCodec(NumcodecsCodec, ArrayBytesCodec):
    """A numcodecs codec that serialises whole arrays (``array -> bytes``)."""

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> bytes:
        if self._codec_id in _READ_ONLY_IDS:
            raise CodecError(
                f"codec {self.name!r}: zarrforge reads {self._codec_id} chunks but "
                f"does not write them ({_READ_ONLY_IDS[self._codec_id]})"
            )
        with encoding(self.name):
            result: bytes = ensure_bytes(self._numcodec.encode(np.ascontiguousarray(chunk)))
            return result

    def decode(self, data: bytes | memoryview, spec: ChunkSpec) -> np.ndarray:
        self._check_safe()
        data = _bounds.byte_view(data)
        if self._codec_id == "json2":  # numcodecs would allocate the shape the chunk declares
            out = _json2.decode(
                data,
                spec.shape,
                encoding=self._config.get("encoding", "utf-8"),
                strict=self._config.get("strict", True),
            )
            if out.dtype == spec.dtype:
                return out
            with decoding(self.name):
                return out.astype(spec.dtype)
        expected = math.prod(spec.shape)
        if self._codec_id in _VLEN_IDS:
            _bounds.check_vlen_count(data, expected, self.name)
        if self._codec_id == "pcodec":
            return self._decode_pcodec(data, spec, expected)
        with decoding(self.name):
            if self._codec_id == "zfpy":  # zfp reads past its input: see _zfpy_stream
                out = _zfpy_stream.decode(data, expected, self.name)
            else:
                out = np.asarray(self._decode(data))
            return _decoded_chunk(out, spec, self.name)

    def _decode_pcodec(self, data: bytes | memoryview, spec: ChunkSpec, expected: int) -> np.ndarray:
        # numcodecs' PCodec.decode sizes its output from the stream's header
        # and, given an output, ignores how many values the stream held; the
        # pcodec package reports that count, so the chunk must fill exactly
        # the chunk's element count.
        from pcodec import standalone

        out = np.empty(expected, dtype=spec.dtype)
        with decoding(self.name):
            progress = standalone.simple_decompress_into(ensure_bytes(data), out)
        if progress.n_processed != expected or not progress.finished:
            raise CorruptChunkError(
                f"codec {self.name!r}: the chunk holds {'more than ' if not progress.finished else ''}"
                f"{progress.n_processed} values, expected {expected} (shape {spec.shape})"
            )
        return out.reshape(spec.shape)

    def _decode(self, data: bytes | memoryview) -> Any:
        if type(self._numcodec) is Pickle:
            # Only reached when the user allowed this codec (see _check_safe).
            # numcodecs >= 0.16.6 has its own process-wide switch for Pickle;
            # zarrforge's explicit, scoped permission is the one that counts,
            # so unpickle here rather than flip numcodecs' global.
            return pickle.loads(ensure_bytes(data))
        unsafe = getattr(getattr(numcodecs, "errors", None), "UnsafeDecodeError", None)
        try:
            return self._numcodec.decode(data)
        except Exception as exc:
            if unsafe is not None and isinstance(exc, unsafe):
                raise UnsafeCodecError(f"codec {self.name!r}: numcodecs refused to decode: {exc}") from exc
            raise


def _kind_class(codec_id: str) -> type[NumcodecsCodec]:
    """The class of this family that maps what the numcodecs codec ``codec_id`` maps."""
    return {
        CodecKind.ARRAY_ARRAY: NumcodecsArrayArrayCodec,
        CodecKind.ARRAY_BYTES: NumcodecsArrayBytesCodec,
        CodecKind.BYTES_BYTES: NumcodecsBytesBytesCodec,
    }[_kinds.kind_of(codec_id)]
