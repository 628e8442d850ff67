"""The ``packbits`` codec of the zarr-extensions registry (``array -> bytes``).

Contract:

* configuration (all optional):

  - ``padding_encoding``: ``"none"`` (default), ``"start_byte"`` or
    ``"end_byte"`` -- whether one byte holding the number of padding bits is
    put before or after the packed bits. The registry's README spells these
    ``"first_byte"`` / ``"last_byte"`` while its schema.json says
    ``"start_byte"`` / ``"end_byte"``; both spellings are read, the schema's
    is written;
  - ``start_bit`` / ``end_bit`` (README: ``first_bit`` / ``last_bit``): the
    inclusive range of bits, counted from the least significant, kept of each
    component; ``null`` or absent means ``0`` and ``N - 1``, ``N`` being the
    data type's bits per component.

* each element is ``k = components * (end_bit - start_bit + 1)`` bits;
  elements follow one another in C order in one bit sequence, bit ``j`` of
  which is bit ``j % 8`` (least significant first) of byte ``j // 8``; the
  sequence is padded with zero bits to whole bytes.
* decoding shifts the kept bits back to ``start_bit`` and sign-extends signed
  integers from ``end_bit``; other types are zero-extended.
* data types: ``bool`` (1 bit), any fixed-size integer, floating-point or
  complex type. The bits per component come from the data type's ``bit_size``
  attribute when it has one (sub-byte types such as ``int4`` declare it),
  else from the registry's names (``int2``, ``uint4``, ``float4_e2m1fn``...),
  else ``8 * item_size`` (halved for complex types).
* the encoded size is fixed: :meth:`encoded_size`; decoding refuses any other
  length (and a padding byte that disagrees) with
  :class:`~zarrforge.errors.CorruptChunkError`, so it never allocates more than
  the chunk's own size requires.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zarrforge.abc.codec import ArrayBytesCodec, ChunkSpec
from zarrforge.abc.data_type import DataType
from zarrforge.errors import CorruptChunkError, MetadataError

from . import _validate

PADDINGS = ("none", "start_byte", "end_byte")
_PADDING_ALIASES = {"first_byte": "start_byte", "last_byte": "end_byte"}
_BIT_ALIASES = {"first_bit": "start_bit", "last_bit": "end_bit"}
KEYS = ("padding_encoding", "start_bit", "end_bit", *_BIT_ALIASES)

# Bits per component of registry data types narrower than their in-memory item.
_NAMED_BITS = {
    "bool": 1,
    "int2": 2,
    "uint2": 2,
    "int4": 4,
    "uint4": 4,
    "float4_e2m1fn": 4,
    "float6_e2m3fn": 6,
    "float6_e3m2fn": 6,
    "complex_float4_e2m1fn": 4,
    "complex_float6_e2m3fn": 6,
    "complex_float6_e3m2fn": 6,
}


def _type_name(data_type: DataType) -> str:
    document = data_type.to_json()
    return document if isinstance(document, str) else str(document.get("name"))


def _layout(data_type: DataType) -> tuple[int, int, int, bool]:
    """``(components, bits per component, bytes per component in memory, signed)``.

    Raises :class:`MetadataError` for types the codec cannot pack.
    """
    dtype = data_type.numpy_dtype
    size = data_type.item_size
    if size is None or dtype.hasobject or dtype.kind not in "biufcV" or dtype.names is not None:
        raise MetadataError(
            f"codec 'packbits' does not support data type {data_type.to_json()!r}; it packs "
            "bool and fixed-size integer, floating-point and complex types",
            field="data_type",
            value=data_type.to_json(),
        )
    components = 2 if dtype.kind == "c" or _type_name(data_type).startswith("complex") else 1
    memory_bytes = size // components
    bits = data_type.bit_size
    if isinstance(bits, int) and not isinstance(bits, bool):
        bits //= components  # bit_size counts the whole element
    else:
        bits = _NAMED_BITS.get(_type_name(data_type), 8 * memory_bytes)
    if memory_bytes not in (1, 2, 4, 8) or not 1 <= bits <= 8 * memory_bytes:
        raise MetadataError(
            f"codec 'packbits' does not support data type {data_type.to_json()!r} "
            f"({bits} bits per component in {memory_bytes} bytes)",
            field="data_type",
            value=data_type.to_json(),
        )
    return components, bits, memory_bytes, dtype.kind == "i"


def _optional_bit(key: str, value: Any) -> int | None:
    return None if value is None else _validate.integer("packbits", key, value, minimum=0)


class PackbitsCodec(ArrayBytesCodec):
    name = "packbits"

    def __init__(
        self, *, padding_encoding: str = "none", start_bit: int | None = None, end_bit: int | None = None
    ) -> None:
        padding_encoding = _PADDING_ALIASES.get(padding_encoding, padding_encoding)
        self._padding = _validate.choice(self.name, "padding_encoding", padding_encoding, PADDINGS)
        self._start_bit = _optional_bit("start_bit", start_bit)
        self._end_bit = _optional_bit("end_bit", end_bit)
        if self._start_bit is not None and self._end_bit is not None and self._end_bit < self._start_bit:
            raise MetadataError(
                f"codec 'packbits': end_bit ({self._end_bit}) must not be less than start_bit "
                f"({self._start_bit})",
                field="configuration.end_bit",
                value=self._end_bit,
            )

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> PackbitsCodec:
        if configuration is None:
            return cls()
        config = _validate.configuration_object(cls.name, configuration, allowed=KEYS)
        for alias, key in _BIT_ALIASES.items():
            if alias in config:
                if key in config:
                    raise MetadataError(
                        f"codec 'packbits': give either {key!r} or its README spelling {alias!r}, not both",
                        field=f"configuration.{alias}",
                        value=config[alias],
                    )
                config[key] = config.pop(alias)
        return cls(
            padding_encoding=config.get("padding_encoding", "none"),
            start_bit=config.get("start_bit"),
            end_bit=config.get("end_bit"),
        )

    def to_json(self) -> dict[str, Any]:
        config: dict[str, Any] = {"padding_encoding": self._padding}
        if self._start_bit is not None:
            config["start_bit"] = self._start_bit
        if self._end_bit is not None:
            config["end_bit"] = self._end_bit
        return {"name": self.name, "configuration": config}

    # --- shape of the encoding ---------------------------------------------------

    def _bits(self, spec: ChunkSpec) -> tuple[int, int, int, int, bool]:
        """``(components, first bit, kept bits per component, memory bytes, signed)``."""
        components, bits, memory_bytes, signed = _layout(spec.data_type)
        start = 0 if self._start_bit is None else self._start_bit
        end = bits - 1 if self._end_bit is None else self._end_bit
        if end >= bits:
            raise MetadataError(
                f"codec 'packbits': end_bit {end} is out of range for data type "
                f"{spec.data_type.to_json()!r}, whose components have {bits} bits "
                f"(valid: 0 to {bits - 1})",
                field="configuration.end_bit",
                value=end,
            )
        if start > end:
            raise MetadataError(
                f"codec 'packbits': start_bit {start} is greater than the last bit {end} of "
                f"data type {spec.data_type.to_json()!r}",
                field="configuration.start_bit",
                value=start,
            )
        return components, start, end - start + 1, memory_bytes, signed

    def validate(self, spec: ChunkSpec) -> None:
        self._bits(spec)

    def _payload_bits(self, spec: ChunkSpec) -> int:
        components, _, kept, _, _ = self._bits(spec)
        count = 1
        for extent in spec.shape:
            count *= extent
        return count * components * kept

    def encoded_size(self, spec: ChunkSpec) -> int:
        return -(-self._payload_bits(spec) // 8) + (self._padding != "none")

    # --- data ---------------------------------------------------------------------

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> bytes:
        _, start, kept, memory_bytes, _ = self._bits(spec)
        values = np.ascontiguousarray(chunk, dtype=spec.dtype)
        if values.dtype.kind == "b":
            words = values.reshape(-1).view(np.uint8).astype(np.uint64)
        else:
            if memory_bytes > 1:
                values = values.astype(values.dtype.newbyteorder("<"), copy=False)
            words = values.reshape(-1).view(f"<u{memory_bytes}").astype(np.uint64)
        words = (words >> np.uint64(start)) & np.uint64((1 << kept) - 1)
        bits = ((words[:, None] >> np.arange(kept, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)
        packed = np.packbits(bits.reshape(-1), bitorder="little").tobytes()
        padding = (-bits.size) % 8
        if self._padding == "start_byte":
            return bytes([padding]) + packed
        if self._padding == "end_byte":
            return packed + bytes([padding])
        return packed

    def decode(self, data: bytes | memoryview, spec: ChunkSpec) -> np.ndarray:
        components, start, kept, memory_bytes, signed = self._bits(spec)
        payload_bits = self._payload_bits(spec)
        expected = self.encoded_size(spec)
        data = bytes(data)
        if len(data) != expected:
            raise CorruptChunkError(
                f"codec 'packbits': the chunk holds {len(data)} bytes, expected {expected} for "
                f"{spec.shape} elements of {kept * components} bits; it is truncated or corrupt"
            )
        padding = (-payload_bits) % 8
        if self._padding != "none":
            stored = data[0] if self._padding == "start_byte" else data[-1]
            if stored != padding:
                raise CorruptChunkError(
                    f"codec 'packbits': the padding byte says {stored} padding bits, expected "
                    f"{padding}; the chunk is corrupt"
                )
            data = data[1:] if self._padding == "start_byte" else data[:-1]
        bits = (
            np.unpackbits(np.frombuffer(data, np.uint8), count=payload_bits, bitorder="little")
            .reshape(-1, kept)
            .astype(np.uint64)
        )
        words = (bits << np.arange(kept, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
        words <<= np.uint64(start)
        top = start + kept - 1
        if signed and top < 8 * memory_bytes - 1:
            negative = (words >> np.uint64(top)) & np.uint64(1) == 1
            # set every bit above the sign bit (within 64 bits; the cast below truncates)
            words[negative] |= ~np.uint64((1 << (top + 1)) - 1)
        words = words.astype(f"<u{memory_bytes}")
        if spec.dtype.kind == "b":
            result: np.ndarray = words.astype(bool).reshape(spec.shape)
            return result
        little = spec.dtype.newbyteorder("<") if memory_bytes > 1 else spec.dtype
        out = words.view(little).astype(spec.dtype, copy=False)
        result = out.reshape(spec.shape)
        return result
