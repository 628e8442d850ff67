"""The ``conditional`` meta-codec of the zarr-extensions registry (``bytes -> bytes``).

Contract:

* configuration: ``codecs`` (required): a list of ``bytes -> bytes`` codec
  objects, built through the installed codec registry (anything else is a
  ``MetadataError`` on ``configuration.codecs[i]``); ``header_bits``
  (optional): a multiple of 8, at least ``len(codecs)``; default
  ``ceil(len(codecs) / 8) * 8``. ``to_json`` always writes both.
* a stored chunk is ``header_bits / 8`` bytes of bitmask (little-endian: bit
  ``i`` is byte ``i // 8``, bit ``i % 8``) followed by the data; bit ``i`` set
  means nested codec ``i`` was applied. Encoding applies the codecs whose bit
  is set, in order; decoding reads the header and undoes them in reverse
  order. A header with a bit set at or past ``len(codecs)`` (a codec this
  configuration lacks), or a chunk shorter than the header, is a
  :class:`~zarrforge.errors.CorruptChunkError`.
* which codecs run is decided per chunk at write time, never stored in
  metadata: the ``decision`` given to the constructor, either a built-in name
  -- ``"never_apply"`` (the default: the README requires an unset mask to skip
  every codec), ``"always_apply"``, ``"compress_if_smaller"`` (trial-encodes
  and keeps a codec only when its output is smaller) -- or a callable
  ``decision(chunk_index, codec, unencoded)`` / with ``trial_encode=True``
  ``decision(chunk_index, codec, unencoded, trial_encoded)`` returning a bool.
  ``unencoded`` is the data as it reaches that codec (after the codecs before
  it); ``chunk_index`` is the grid coordinates of the chunk being encoded (a tuple;
  inside a shard, the inner chunk's coordinates in the array's grid of inner chunks),
  from :func:`zarrforge.plugin_api.current_chunk`, or ``None`` when the codec is
  called outside the chunk engine. An array opened from metadata gets
  ``"never_apply"``. A decision lives on the codec object only: ``shards=`` builds
  the sharding codec from the inner codecs' JSON, so inside shards pass a sharding
  codec object holding this one as ``serializer=`` instead.
* ``decode_sized`` holds each nested decoder to the size its input must have
  decoded to when that is known (as the codec chain does), so hostile chunks
  cannot inflate without bound; ``encoded_size`` is ``None`` (data-dependent).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from zarrforge.abc.codec import BytesBytesCodec, ChunkSpec, Codec
from zarrforge.errors import CorruptChunkError, MetadataError
from zarrforge.plugin_api.codecs import codec_from_json, current_chunk

from . import _bounds, _validate

Decision = Callable[..., bool]
BUILT_IN = ("never_apply", "always_apply", "compress_if_smaller")


def _built_in(name: str) -> tuple[Decision, bool]:
    if name == "never_apply":
        return (lambda index, codec, data: False), False
    if name == "always_apply":
        return (lambda index, codec, data: True), False
    return (lambda index, codec, data, trial: len(trial) < len(data)), True


class ConditionalCodec(BytesBytesCodec):
    name = "conditional"
    uses_chunk_position = True  # the decision is told the chunk's coordinates

    def __init__(
        self,
        codecs: Sequence[Codec],
        header_bits: int | None = None,
        *,
        decision: str | Decision = "never_apply",
        trial_encode: bool = False,
    ) -> None:
        checked: list[BytesBytesCodec] = []
        for index, codec in enumerate(codecs):
            if not isinstance(codec, BytesBytesCodec):
                raise MetadataError(
                    f"codec 'conditional': codecs[{index}] ({codec.to_json().get('name')!r}) is "
                    "not a bytes -> bytes codec; only those can be applied conditionally",
                    field=f"configuration.codecs[{index}]",
                    value=codec.to_json(),
                )
            checked.append(codec)
        self.codecs = tuple(checked)
        default = -(-len(self.codecs) // 8) * 8
        if header_bits is None:
            header_bits = default
        self.header_bits = _validate.integer(self.name, "header_bits", header_bits, minimum=len(self.codecs))
        if self.header_bits % 8:
            raise MetadataError(
                f"codec 'conditional': header_bits must be a multiple of 8, got {self.header_bits}",
                field="configuration.header_bits",
                value=self.header_bits,
            )
        if isinstance(decision, str):
            if decision not in BUILT_IN:
                raise ValueError(
                    f"codec 'conditional': unknown decision {decision!r}; built-in "
                    f"decisions: {', '.join(BUILT_IN)}, or pass a callable"
                )
            self._decide, self._trial = _built_in(decision)
        else:
            self._decide, self._trial = decision, trial_encode
        self._decision = decision

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> ConditionalCodec:
        if configuration is None:
            raise MetadataError(
                "codec 'conditional' needs a configuration with 'codecs'", field="configuration", value=None
            )
        config = _validate.configuration_object(
            cls.name, configuration, allowed=("codecs", "header_bits"), required=("codecs",)
        )
        documents = config["codecs"]
        if not isinstance(documents, list):
            raise MetadataError(
                "codec 'conditional': codecs must be a list of bytes -> bytes "
                f"codec objects, got {documents!r}",
                field="configuration.codecs",
                value=documents,
            )
        codecs = [codec_from_json(doc, field=f"configuration.codecs[{i}]") for i, doc in enumerate(documents)]
        return cls(codecs, config.get("header_bits"))

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "configuration": {
                "codecs": [codec.to_json() for codec in self.codecs],
                "header_bits": self.header_bits,
            },
        }

    def _with(self, codecs: list[BytesBytesCodec]) -> ConditionalCodec:
        return ConditionalCodec(codecs, self.header_bits, decision=self._decision, trial_encode=self._trial)

    def evolve(self, spec: ChunkSpec) -> ConditionalCodec:
        return self._with([codec.evolve(spec) for codec in self.codecs])  # type: ignore[misc]

    def validate(self, spec: ChunkSpec) -> None:
        for codec in self.codecs:
            codec.validate(spec)

    # --- data ---------------------------------------------------------------------

    def encode(self, data: bytes | memoryview) -> bytes:
        mask = 0
        current = bytes(data)
        chunk_index = current_chunk()
        for index, codec in enumerate(self.codecs):
            if self._trial:
                trial = bytes(codec.encode(current))
                if self._decide(chunk_index, codec, current, trial):
                    mask |= 1 << index
                    current = trial
            elif self._decide(chunk_index, codec, current):
                mask |= 1 << index
                current = bytes(codec.encode(current))
        return mask.to_bytes(self.header_bits // 8, "little") + current

    def _mask(self, data: bytes | memoryview) -> tuple[int, memoryview]:
        view = _bounds.byte_view(data)
        size = self.header_bits // 8
        if len(view) < size:
            raise CorruptChunkError(
                f"codec 'conditional': the chunk has {len(view)} bytes, "
                f"fewer than its {size}-byte header; it is truncated"
            )
        mask = int.from_bytes(view[:size], "little")
        if mask >> len(self.codecs):
            raise CorruptChunkError(
                f"codec 'conditional': the header marks codec(s) beyond the {len(self.codecs)} "
                f"configured as applied (mask {mask:#x}); the chunk is corrupt or was written "
                "with a longer codec list"
            )
        return mask, view[size:]

    def _decode(self, data: bytes | memoryview, expected: int | None) -> bytes:
        mask, body = self._mask(data)
        applied = [codec for i, codec in enumerate(self.codecs) if mask >> i & 1]
        sizes: list[int | None] = []
        size = expected
        for codec in applied:
            sizes.append(size)
            size = None if size is None else codec.encoded_size(size)
        result: bytes | memoryview = body
        for codec, size in zip(reversed(applied), reversed(sizes)):
            result = codec.decode(result) if size is None else codec.decode_sized(result, size)
        if expected is not None and len(result) > expected:
            raise CorruptChunkError(
                f"codec 'conditional' decoded {len(result)} bytes where "
                f"{expected} are allowed; the chunk is corrupt"
            )
        return bytes(result)

    def decode(self, data: bytes | memoryview) -> bytes:
        return self._decode(data, None)

    def decode_sized(self, data: bytes | memoryview, expected_size: int) -> bytes:
        return self._decode(data, expected_size)
