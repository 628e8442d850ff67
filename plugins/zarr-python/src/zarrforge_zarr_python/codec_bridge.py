"""zarrforge codecs as zarr-python 3 codecs: every zarrforge codec plugin reaches zarr-python.

Contract:

* :func:`zarr_codec_class` (``name``) is a zarr-python codec class (a subclass of
  ``zarr.abc.codec.ArrayArrayCodec``, ``ArrayBytesCodec`` or ``BytesBytesCodec``, as
  the zarrforge codec's kind) that runs the zarrforge codec ``name``: ``from_dict`` is
  zarrforge's resolution of the JSON, ``to_dict`` its ``to_json()``, and
  ``evolve_from_array_spec``, ``validate``, ``resolve_metadata`` and the encoding
  and decoding are the zarrforge codec's (specs cross as :mod:`._specs` says). One
  class per name, made once; it is what a ``zarr.codecs`` entry point of a codec's
  own distribution may name. Its ``__name__`` and ``__qualname__`` come from the
  codec's name (:func:`class_name`: ``zf_example.bitround`` gives
  ``Zarrforge_zf_example_bitround``) and its ``__module__`` is this module, whose
  attribute of that name is the class (made on first access), so reprs read well,
  zarr-python's registry keys it as ``zarrforge_zarr_python.codec_bridge.<name>``,
  and the class itself pickles by reference.
* :func:`register_with_zarr` registers, in zarr-python's codec registry, that class
  for every exact name of zarrforge's codec registry that zarr-python's registry
  lacks, and returns those names. A name zarr-python has (its own codecs,
  ``numcodecs.zarr3``'s, a third party's, or a bridge class a codec's own
  distribution declares as a ``zarr.codecs`` entry point) is never registered: a
  name any ``zarr.codecs`` entry point declares (``[zarr.codecs]`` or a
  ``[zarr.codecs.<name>]`` group, read from the installed metadata without loading
  it) is zarr-python's, so installing zarrforge changes nothing zarr-python already
  reads or writes, and never gives zarr-python two classes for one name. Families
  (``numcodecs.*``, the catch-all) are not names and are left out. A zarrforge codec
  that fails to load is left out with a :class:`~zarrforge.errors.PluginLoadWarning`.
  Calling it again is harmless: the same class goes under the same key.
* Instances pickle by name and JSON, so arrays holding them cross to other processes.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import re
import threading
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
from zarr.abc.codec import ArrayArrayCodec, ArrayBytesCodec, BytesBytesCodec
from zarr.registry import register_codec

from zarrforge.abc.codec import ArrayArrayCodec as ZfArrayArrayCodec
from zarrforge.abc.codec import ArrayBytesCodec as ZfArrayBytesCodec
from zarrforge.abc.codec import BytesBytesCodec as ZfBytesBytesCodec
from zarrforge.abc.codec import ChunkSpec, Codec, CodecKind
from zarrforge.errors import PluginConflictError, PluginLoadError, PluginLoadWarning
from zarrforge.plugin_api.codecs import codec_from_json, memory_layout, registry

from . import _specs
from ._zarr_registry import ZarrforgeBacked, foreign_codec_class

FAMILY_SUFFIX = "*"
_classes: dict[str, type[Any]] = {}  # zarr-python codec classes, made by type()
_lock = threading.Lock()


class _Bridged(ZarrforgeBacked):
    """The methods every bridge class shares; ``codec`` is the zarrforge codec."""

    codec: Codec
    zarrforge_name: str = ""
    is_fixed_size = False

    if TYPE_CHECKING:  # what zarr_codec_class's dataclasses and the kinds below provide

        def __init__(self, codec: Codec) -> None: ...

        def _encode_sync(self, chunk_data: Any, chunk_spec: Any) -> Any: ...

        def _decode_sync(self, chunk_data: Any, chunk_spec: Any) -> Any: ...

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
        self.codec.validate(
            ChunkSpec(
                shape=tuple(shape),
                data_type=data_type,
                fill_value=data_type.default_fill_value(),
                layout=memory_layout("C"),
            )
        )

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: Any) -> int:
        raise NotImplementedError(f"codec {self.zarrforge_name!r}: no fixed encoded size")

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild, (self.zarrforge_name, self.codec.to_json())

    async def _decode_single(self, chunk_data: Any, chunk_spec: Any) -> Any:
        return self._decode_sync(chunk_data, chunk_spec)

    async def _encode_single(self, chunk_data: Any, chunk_spec: Any) -> Any:
        return self._encode_sync(chunk_data, chunk_spec)


class _ArrayArray(_Bridged):
    codec: ZfArrayArrayCodec

    def resolve_metadata(self, chunk_spec: Any) -> Any:
        return _specs.to_zarr(self.codec.resolve(_specs.from_zarr(chunk_spec)), like=chunk_spec)

    def _encode_sync(self, chunk_data: Any, chunk_spec: Any) -> Any:
        out = self.codec.encode(chunk_data.as_numpy_array(), _specs.from_zarr(chunk_spec))
        return chunk_spec.prototype.nd_buffer.from_numpy_array(out)

    def _decode_sync(self, chunk_data: Any, chunk_spec: Any) -> Any:
        out = self.codec.decode(chunk_data.as_numpy_array(), _specs.from_zarr(chunk_spec))
        return chunk_spec.prototype.nd_buffer.from_numpy_array(out)


class _ArrayBytes(_Bridged):
    codec: ZfArrayBytesCodec

    def _encode_sync(self, chunk_data: Any, chunk_spec: Any) -> Any:
        out = self.codec.encode(
            np.ascontiguousarray(chunk_data.as_numpy_array()), _specs.from_zarr(chunk_spec)
        )
        return chunk_spec.prototype.buffer.from_bytes(bytes(out))

    def _decode_sync(self, chunk_data: Any, chunk_spec: Any) -> Any:
        out = self.codec.decode(chunk_data.to_bytes(), _specs.from_zarr(chunk_spec))
        return chunk_spec.prototype.nd_buffer.from_numpy_array(out)


class _BytesBytes(_Bridged):
    codec: ZfBytesBytesCodec

    def _encode_sync(self, chunk_data: Any, chunk_spec: Any) -> Any:
        return chunk_spec.prototype.buffer.from_bytes(bytes(self.codec.encode(chunk_data.to_bytes())))

    def _decode_sync(self, chunk_data: Any, chunk_spec: Any) -> Any:
        return chunk_spec.prototype.buffer.from_bytes(bytes(self.codec.decode(chunk_data.to_bytes())))


_SHAPES = {
    CodecKind.ARRAY_ARRAY: (_ArrayArray, ArrayArrayCodec),
    CodecKind.ARRAY_BYTES: (_ArrayBytes, ArrayBytesCodec),
    CodecKind.BYTES_BYTES: (_BytesBytes, BytesBytesCodec),
}


CLASS_PREFIX = "Zarrforge_"


def class_name(name: str) -> str:
    """The Python name of the bridge class of the zarrforge codec ``name``: ``Zarrforge_``
    and the name with every character that cannot be in an identifier as ``_``
    (``zf_example.bitround`` -> ``Zarrforge_zf_example_bitround``)."""
    return CLASS_PREFIX + re.sub(r"\W", "_", name, flags=re.ASCII)


def zarr_codec_class(name: str) -> type[Any]:
    """The zarr-python codec class running zarrforge's codec ``name`` (made once), named
    :func:`class_name` of it in this module."""
    with _lock:
        made = _classes.get(name)
        if made is None:
            implementation = registry.codecs.get(name)
            ours, zarr_base = _SHAPES[implementation.kind]
            python_name = class_name(name)
            made = dataclasses.dataclass(frozen=True)(
                type(
                    python_name,
                    (ours, zarr_base),
                    {
                        "__annotations__": {"codec": Any},
                        "zarrforge_name": name,
                        "__module__": __name__,
                        "__qualname__": python_name,
                        "__doc__": f"zarrforge's codec {name!r}, as a zarr-python codec.",
                    },
                )
            )
            _classes[name] = made
        return made


def __getattr__(attribute: str) -> type[Any]:
    """``Zarrforge_<name>``: the bridge class of the zarrforge codec whose
    :func:`class_name` that is (what unpickling a class asks); ``AttributeError`` when no
    codec, or more than one, has that name."""
    if attribute.startswith(CLASS_PREFIX):
        names = [
            name
            for name in registry.codecs.names()
            if not name.endswith(FAMILY_SUFFIX) and class_name(name) == attribute
        ]
        if len(names) == 1:
            return zarr_codec_class(names[0])
        if names:
            raise AttributeError(
                f"{attribute!r} is the bridge class of each of the "
                f"zarrforge codecs {sorted(names)}: call "
                "zarr_codec_class(name) with the codec's name"
            )
    raise AttributeError(
        f"module {__name__!r} has no attribute {attribute!r}; bridge "
        f"classes are {CLASS_PREFIX}<codec name> for the installed "
        "zarrforge codecs"
    )


def zarr_entry_point_names() -> set[str]:
    """The codec names zarr-python takes from entry points: the names of the
    ``zarr.codecs`` group and the ``<name>`` of every ``zarr.codecs.<name>`` group, read
    from the installed distributions' metadata (nothing is imported), as zarr-python
    collects them."""
    entry_points = importlib.metadata.entry_points()
    names = {entry.name for entry in entry_points.select(group="zarr.codecs")}
    names.update(group.split(".")[2] for group in entry_points.groups if group.startswith("zarr.codecs."))
    return names


def _rebuild(name: str, document: dict[str, Any]) -> Any:
    return zarr_codec_class(name).from_dict(document)


def register_with_zarr() -> list[str]:
    """Register every zarrforge codec zarr-python lacks in zarr-python's codec registry
    (neither registered nor declared by a ``zarr.codecs`` entry point); the names
    registered."""
    registered = []
    from_entry_points = zarr_entry_point_names()
    for name in registry.codecs.names():
        if name.endswith(FAMILY_SUFFIX) or name in from_entry_points or foreign_codec_class(name) is not None:
            continue
        try:
            cls = zarr_codec_class(name)
        except (PluginLoadError, PluginConflictError) as exc:
            warnings.warn(
                f"zarrforge's codec {name!r} is not registered with zarr-python: {exc}",
                PluginLoadWarning,
                stacklevel=2,
            )
            continue
        register_codec(name, cls)
        registered.append(name)
    return registered
