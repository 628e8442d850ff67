"""The ``vlen-utf8`` and ``vlen-bytes`` codecs (array -> bytes).

Both serialise a chunk's elements in C order with the framing of
:mod:`.vlen_format` (the byte layout of numcodecs' ``VLenUTF8`` /
``VLenBytes``, which zarr-python 3 uses).

* ``vlen-utf8`` encodes each element of a ``string`` array as UTF-8 and
  decodes to a numpy ``StringDType()`` array. Invalid UTF-8 in stored data is
  a :class:`~zarrforge.errors.CorruptChunkError`; a string that cannot be
  encoded (a lone surrogate) is a :class:`~zarrforge.errors.CodecError`.
* ``vlen-bytes`` stores the elements of a ``bytes`` array (a numpy object
  array) as they are and decodes to an object array of ``bytes``. Encoding
  an element that is not bytes-like (``str``, ``None``, a number) is a
  ``CodecError``.

Metadata: neither takes configuration; ``{}`` or none is accepted, and
``{"name": ..., "configuration": {}}`` is written, as zarr-python 3.1 writes
it. ``validate`` accepts only the data types the specs pair them with:
``string`` for ``vlen-utf8``; ``bytes`` (or zarr-python's
``variable_length_bytes``) for ``vlen-bytes``.

Stored chunks are untrusted: whatever :func:`.vlen_format.unpack` refuses
(wrong item count for the chunk shape, truncation, lengths past the end,
trailing bytes) is a ``CorruptChunkError``, raised before any allocation
larger than the stored chunk itself.
"""

from __future__ import annotations

import struct
from typing import Any, ClassVar

import numpy as np

from zarrforge.abc.codec import ArrayBytesCodec, ChunkSpec
from zarrforge.errors import CodecError, CorruptChunkError, MetadataError

from . import vlen_format
from ._util import config_keys

_STRING_DTYPE = np.dtypes.StringDType()
_OBJECT = np.dtype(object)


def _count(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64))


class _VLenCodec(ArrayBytesCodec):
    accepts: ClassVar[frozenset[str]]  # data type names the spec pairs the codec with

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> _VLenCodec:
        config_keys(name, configuration, frozenset())
        return cls()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {}}

    def validate(self, spec: ChunkSpec) -> None:
        type_name = spec.data_type.name
        if type_name not in self.accepts:
            raise MetadataError(
                f"the {self.name} codec encodes only the data type(s) "
                f"{', '.join(sorted(self.accepts))}, not {spec.data_type.to_json()!r}",
                field="name",
                value=self.name,
            )

    def _items(self, chunk: np.ndarray) -> list[Any]:
        return np.ravel(chunk, order="C").tolist()

    def _pack(self, items: list[bytes]) -> bytes:
        try:
            return vlen_format.pack(items)
        except struct.error:
            raise CodecError(f"the {self.name} codec cannot store an element of 4 GiB or more") from None


class VLenUTF8Codec(_VLenCodec):
    name = "vlen-utf8"
    accepts = frozenset({"string"})

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> bytes:
        encoded = []
        for index, item in enumerate(self._items(chunk)):
            if not isinstance(item, str):
                raise CodecError(
                    f"the {self.name} codec encodes str elements; element "
                    f"{index} (C order) of the chunk is {item!r}"
                )
            try:
                encoded.append(item.encode("utf-8"))
            except UnicodeEncodeError as exc:
                raise CodecError(
                    f"element {index} (C order) of the chunk cannot be encoded as UTF-8: {exc}"
                ) from None
        return self._pack(encoded)

    def decode(self, data: bytes | memoryview, spec: ChunkSpec) -> np.ndarray:
        items = vlen_format.unpack(data, _count(spec.shape))
        texts = []
        for index, item in enumerate(items):
            try:
                texts.append(item.decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise CorruptChunkError(f"item {index} is not valid UTF-8: {exc}") from None
        return np.array(texts, dtype=_STRING_DTYPE).reshape(spec.shape)


class VLenBytesCodec(_VLenCodec):
    name = "vlen-bytes"
    accepts = frozenset({"bytes", "variable_length_bytes"})

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> bytes:
        items = self._items(chunk)
        for index, item in enumerate(items):
            if not isinstance(item, bytes):
                if not isinstance(item, (bytearray, memoryview)):
                    raise CodecError(
                        f"the {self.name} codec encodes bytes elements; element "
                        f"{index} (C order) of the chunk is {item!r}"
                    )
                items[index] = bytes(item)
        return self._pack(items)

    def decode(self, data: bytes | memoryview, spec: ChunkSpec) -> np.ndarray:
        n = _count(spec.shape)
        items = vlen_format.unpack(data, n)
        out = np.empty(n, dtype=_OBJECT)
        out[:] = items
        return out.reshape(spec.shape)
