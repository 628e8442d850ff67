"""zarrforge codecs as zarr-python 3 codecs: every zarrforge codec plugin reaches zarr-python.

Contract:

* :func:`zarr_codec_class` (``name``) is a zarr-python codec class (a subclass of
  ``zarr.abc.codec.ArrayArrayCodec``, ``ArrayBytesCodec`` or ``BytesBytesCodec``, as
  the zarrforge codec's kind) that runs the zarrforge codec ``name``: ``from_dict`` is
  zarrforge's resolution of the JSON, ``to_dict`` its ``to_json()``, and
  ``evolve_from_array_spec``, ``validate``, ``resolve_metadata`` and the encoding
  and decoding are the zarrforge codec's (specs cross as :mod:`._specs` says). One
  class per name, made once; it is what a ``zarr.codecs`` entry point of a codec's
  own distribution may name.
* :func:`register_with_zarr` registers, in zarr-python's codec registry, that class
  for every exact name of zarrforge's codec registry that zarr-python's registry
  lacks, and returns those names. A name zarr-python has (its own codecs,
  ``numcodecs.zarr3``'s, a third party's) is never registered, so installing
  zarrforge changes nothing zarr-python already reads or writes. Families
  (``numcodecs.*``, the catch-all) are not names and are left out. A zarrforge codec
  that fails to load is left out with a :class:`~zarrforge.errors.PluginLoadWarning`.
  Calling it again is harmless: the same class goes under the same key.
* Instances pickle by name and JSON, so arrays holding them cross to other processes.
"""

from __future__ import annotations

import dataclasses
import threading
import warnings
from typing import Any

import numpy as np
from zarr.abc.codec import ArrayArrayCodec, ArrayBytesCodec, BytesBytesCodec
from zarr.registry import register_codec

from zarrforge.abc.codec import ChunkSpec, Codec, CodecKind
from zarrforge.errors import PluginConflictError, PluginLoadError, PluginLoadWarning
from zarrforge.plugin_api import codec_from_json, memory_layout, registry

from . import _specs
from ._zarr_registry import ZarrforgeBacked, foreign_codec_class

FAMILY_SUFFIX = "*"
_classes: dict[str, type] = {}
_lock = threading.Lock()


class _Bridged(ZarrforgeBacked):
    """The methods every bridge class shares; ``codec`` is the zarrforge codec."""

    codec: Codec
    zarrforge_name: str = ""
    is_fixed_size = False

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        codec = codec_from_json(dict(data), field="codec")
        if not isinstance(codec, Codec) or codec.to_json().get("name") != cls.zarrforge_name:
            raise ValueError(f"{data!r} is not the codec {cls.zarrforge_name!r}")
        return cls(codec)

    def to_dict(self) -> dict[str, Any]:
        return self.codec.to_json()

    def evolve_from_array_spec(self, array_spec: Any) -> Any:
        evolved = self.codec.evolve(_specs.from_zarr(array_spec))
        return self if evolved == self.codec else type(self)(evolved)

    def validate(self, *, shape: tuple[int, ...], dtype: Any, chunk_grid: Any) -> None:
        data_type = _specs.data_type_of(dtype)
        self.codec.validate(ChunkSpec(shape=tuple(shape), data_type=data_type,
                                             fill_value=data_type.default_fill_value(),
                                             layout=memory_layout("C")))

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: Any) -> int:
        raise NotImplementedError(f"codec {self.zarrforge_name!r}: no fixed encoded size")

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild, (self.zarrforge_name, self.codec.to_json())

    async def _decode_single(self, chunk_data: Any, chunk_spec: Any) -> Any:
        return self._decode_sync(chunk_data, chunk_spec)

    async def _encode_single(self, chunk_data: Any, chunk_spec: Any) -> Any:
        return self._encode_sync(chunk_data, chunk_spec)


class _ArrayArray(_Bridged):
    def resolve_metadata(self, chunk_spec: Any) -> Any:
        return _specs.to_zarr(self.codec.resolve(_specs.from_zarr(chunk_spec)), like=chunk_spec)

    def _encode_sync(self, chunk_data: Any, chunk_spec: Any) -> Any:
        out = self.codec.encode(chunk_data.as_numpy_array(), _specs.from_zarr(chunk_spec))
        return chunk_spec.prototype.nd_buffer.from_numpy_array(out)

    def _decode_sync(self, chunk_data: Any, chunk_spec: Any) -> Any:
        out = self.codec.decode(chunk_data.as_numpy_array(), _specs.from_zarr(chunk_spec))
        return chunk_spec.prototype.nd_buffer.from_numpy_array(out)


class _ArrayBytes(_Bridged):
    def _encode_sync(self, chunk_data: Any, chunk_spec: Any) -> Any:
        out = self.codec.encode(np.ascontiguousarray(chunk_data.as_numpy_array()),
                                _specs.from_zarr(chunk_spec))
        return chunk_spec.prototype.buffer.from_bytes(bytes(out))

    def _decode_sync(self, chunk_data: Any, chunk_spec: Any) -> Any:
        out = self.codec.decode(chunk_data.to_bytes(), _specs.from_zarr(chunk_spec))
        return chunk_spec.prototype.nd_buffer.from_numpy_array(out)


class _BytesBytes(_Bridged):
    def _encode_sync(self, chunk_data: Any, chunk_spec: Any) -> Any:
        return chunk_spec.prototype.buffer.from_bytes(bytes(self.codec.encode(
            chunk_data.to_bytes())))

    def _decode_sync(self, chunk_data: Any, chunk_spec: Any) -> Any:
        return chunk_spec.prototype.buffer.from_bytes(bytes(self.codec.decode(
            chunk_data.to_bytes())))


_SHAPES = {CodecKind.ARRAY_ARRAY: (_ArrayArray, ArrayArrayCodec),
           CodecKind.ARRAY_BYTES: (_ArrayBytes, ArrayBytesCodec),
           CodecKind.BYTES_BYTES: (_BytesBytes, BytesBytesCodec)}


def zarr_codec_class(name: str) -> type:
    """The zarr-python codec class running zarrforge's codec ``name`` (made once)."""
    with _lock:
        made = _classes.get(name)
        if made is None:
            implementation = registry.codecs.get(name)
            ours, zarr_base = _SHAPES[implementation.kind]
            made = dataclasses.dataclass(frozen=True)(type(
                f"ZarrforgeCodec_{len(_classes)}", (ours, zarr_base),
                {"__annotations__": {"codec": Any}, "zarrforge_name": name,
                 "__module__": __name__,
                 "__doc__": f"zarrforge's codec {name!r}, as a zarr-python codec."}))
            _classes[name] = made
        return made


def _rebuild(name: str, document: dict[str, Any]) -> Any:
    return zarr_codec_class(name).from_dict(document)


def register_with_zarr() -> list[str]:
    """Register every zarrforge codec zarr-python lacks in zarr-python's codec registry;
    the names registered."""
    registered = []
    for name in registry.codecs.names():
        if name.endswith(FAMILY_SUFFIX) or foreign_codec_class(name) is not None:
            continue
        try:
            cls = zarr_codec_class(name)
        except (PluginLoadError, PluginConflictError) as exc:
            warnings.warn(f"zarrforge's codec {name!r} is not registered with zarr-python: {exc}",
                          PluginLoadWarning, stacklevel=2)
            continue
        register_codec(name, cls)
        registered.append(name)
    return registered
