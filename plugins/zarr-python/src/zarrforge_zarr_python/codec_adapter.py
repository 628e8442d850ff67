"""zarr-python 3 codecs as zarrforge codecs: the catch-all family ``*`` of ``zarrforge.codecs``.

Contract:

* The entry point ``*`` names :class:`ZarrPythonCodec`. The registry reaches a family
  only for a name no zarrforge codec has (exact names beat families, and every other
  family is longer than ``*``), so a zarrforge codec of the same name always wins.
  :meth:`ZarrPythonCodec.claims` then answers whether zarr-python's codec registry (its
  ``zarr.codecs`` entry points, or ``zarr.registry.register_codec`` in this process)
  has the name; when it has not, the name stays unknown to zarrforge as before.
  zarrforge codecs that :mod:`.codec_bridge` put there are not claimed back.
* ``from_json(name, configuration)`` builds zarr-python's codec with its
  ``from_dict`` and wraps it in the class of its kind (``array -> array``,
  ``array -> bytes`` or ``bytes -> bytes``); a configuration zarr-python rejects is a
  :class:`~zarrforge.errors.MetadataError` (field ``configuration``) with its reason.
  ``to_json()`` is the codec's ``to_dict()``, as JSON.
* ``evolve`` is ``evolve_from_array_spec``, ``resolve`` is ``resolve_metadata``, and
  ``validate`` is ``validate`` given the chunk's shape and a regular grid of it (a
  zarrforge codec sees chunks, not the array's shape). Specs cross as
  :mod:`._specs` says.
* ``encode`` / ``decode`` run zarr-python's own batch methods for the one chunk, on
  zarr-python's event loop (``zarr.core.sync.sync``), so a codec written only with
  ``async`` methods works. A failure while decoding is a
  :class:`~zarrforge.errors.CorruptChunkError`, while encoding a
  :class:`~zarrforge.errors.CodecError`, each naming the codec.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from zarr.abc.codec import ArrayArrayCodec as ZarrArrayArray
from zarr.abc.codec import ArrayBytesCodec as ZarrArrayBytes
from zarr.abc.codec import BytesBytesCodec as ZarrBytesBytes
from zarr.core.sync import sync

from zarrforge.abc.codec import ArrayArrayCodec, ArrayBytesCodec, BytesBytesCodec, ChunkSpec, Codec
from zarrforge.errors import CodecError, CorruptChunkError, MetadataError
from zarrforge.plugin_api.codecs import json_ready

from . import _specs
from ._zarr_registry import foreign_codec_class


class ZarrPythonCodec(Codec):
    """Entry point of the catch-all family; :meth:`from_json` picks the class of the kind."""

    name = "*"

    def __init__(self, name: str, zarr_codec: Any) -> None:
        self.name = name
        self.zarr_codec = zarr_codec

    @classmethod
    def claims(cls, name: str) -> bool:
        return foreign_codec_class(name) is not None

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> ZarrPythonCodec:
        zarr_class = foreign_codec_class(name)
        if zarr_class is None:
            raise MetadataError(f"zarr-python has no codec {name!r}", field="name", value=name)
        if configuration is not None and not isinstance(configuration, dict):
            raise MetadataError(
                f"the configuration of codec {name!r} must be a JSON object, got {configuration!r}",
                field="configuration",
                value=configuration,
            )
        document = {"name": name, **({} if configuration is None else {"configuration": configuration})}
        try:
            zarr_codec = zarr_class.from_dict(document)
        except Exception as exc:  # another library's refusal, whatever its type
            raise MetadataError(
                f"zarr-python's codec {name!r} rejected {document!r}: {type(exc).__name__}: {exc}",
                field="configuration",
                value=configuration,
            ) from exc
        return _wrap(name, zarr_codec)

    def to_json(self) -> dict[str, Any]:
        result: dict[str, Any] = json_ready(self.zarr_codec.to_dict())
        return result

    def evolve(self, spec: ChunkSpec) -> ZarrPythonCodec:
        evolved = self.zarr_codec.evolve_from_array_spec(_specs.to_zarr(spec))
        return self if evolved is self.zarr_codec else _wrap(self.name, evolved)

    def validate(self, spec: ChunkSpec) -> None:
        try:
            self.zarr_codec.validate(
                shape=tuple(spec.shape),
                dtype=_specs.to_zarr(spec).dtype,
                chunk_grid=_specs.regular_grid(spec.shape),
            )
        except (ValueError, TypeError) as exc:
            if isinstance(exc, MetadataError):
                raise
            raise MetadataError(
                f"codec {self.name!r} (zarr-python's) refuses chunks of "
                f"{spec.data_type.to_json()!r}, shape {spec.shape}: {exc}",
                value=self.to_json(),
            ) from exc

    def _run(self, method: Any, data: Any, spec: Any, failure: type[CodecError]) -> Any:
        try:
            (out,) = sync(method([(data, spec)]))
        except Exception as exc:  # another library's failure, whatever its type
            raise failure(f"codec {self.name!r} (zarr-python's) failed: {type(exc).__name__}: {exc}") from exc
        if out is None:
            raise failure(f"codec {self.name!r} (zarr-python's) returned no chunk")
        return out


def _array(buffer: Any, spec: ChunkSpec, name: str, failure: type[CodecError]) -> np.ndarray:
    out = np.asarray(buffer.as_numpy_array())
    if out.size != int(np.prod(spec.shape)):
        raise failure(
            f"codec {name!r} (zarr-python's) gave {out.size} elements, expected the shape {spec.shape}"
        )
    out = out.reshape(spec.shape)
    return out if out.dtype == spec.dtype else out.astype(spec.dtype)


class ZarrPythonArrayArrayCodec(ZarrPythonCodec, ArrayArrayCodec):
    """A zarr-python ``array -> array`` codec."""

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        return _specs.from_zarr(self.zarr_codec.resolve_metadata(_specs.to_zarr(spec)))

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        zspec = _specs.to_zarr(spec)
        out = self._run(
            self.zarr_codec.encode, zspec.prototype.nd_buffer.from_numpy_array(chunk), zspec, CodecError
        )
        return _array(out, self.resolve(spec), self.name, CodecError)

    def decode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        zspec = _specs.to_zarr(spec)
        out = self._run(
            self.zarr_codec.decode,
            zspec.prototype.nd_buffer.from_numpy_array(chunk),
            zspec,
            CorruptChunkError,
        )
        return _array(out, spec, self.name, CorruptChunkError)


class ZarrPythonArrayBytesCodec(ZarrPythonCodec, ArrayBytesCodec):
    """A zarr-python ``array -> bytes`` codec."""

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> bytes:
        zspec = _specs.to_zarr(spec)
        out = self._run(
            self.zarr_codec.encode, zspec.prototype.nd_buffer.from_numpy_array(chunk), zspec, CodecError
        )
        result: bytes = out.to_bytes()
        return result

    def decode(self, data: bytes | memoryview, spec: ChunkSpec) -> np.ndarray:
        zspec = _specs.to_zarr(spec)
        out = self._run(
            self.zarr_codec.decode, zspec.prototype.buffer.from_bytes(data), zspec, CorruptChunkError
        )
        return _array(out, spec, self.name, CorruptChunkError)


class ZarrPythonBytesBytesCodec(ZarrPythonCodec, BytesBytesCodec):
    """A zarr-python ``bytes -> bytes`` codec. zarr-python hands such a codec the spec of the
    array around it; zarrforge's bytes codecs see bytes alone, so it gets a spec of one byte
    per item (``uint8``, the byte count as the shape)."""

    def encode(self, data: bytes | memoryview) -> bytes:
        zspec = _specs.bytes_spec(len(data))
        result: bytes = self._run(
            self.zarr_codec.encode, zspec.prototype.buffer.from_bytes(data), zspec, CodecError
        ).to_bytes()
        return result

    def decode(self, data: bytes | memoryview) -> bytes:
        zspec = _specs.bytes_spec(len(data))
        result: bytes = self._run(
            self.zarr_codec.decode, zspec.prototype.buffer.from_bytes(data), zspec, CorruptChunkError
        ).to_bytes()
        return result


def _wrap(name: str, zarr_codec: Any) -> ZarrPythonCodec:
    for zarr_base, ours in (
        (ZarrArrayArray, ZarrPythonArrayArrayCodec),
        (ZarrArrayBytes, ZarrPythonArrayBytesCodec),
        (ZarrBytesBytes, ZarrPythonBytesBytesCodec),
    ):
        if isinstance(zarr_codec, zarr_base):
            return ours(name, zarr_codec)
    raise MetadataError(
        f"zarr-python's codec {name!r} is a {type(zarr_codec).__name__}, not an "
        "array -> array, array -> bytes or bytes -> bytes codec",
        field="name",
        value=name,
    )
