"""Contract for chunk key encodings (the ``chunk_key_encoding`` extension point).

A chunk key encoding maps a chunk's grid coordinates to the key of its data,
relative to the array's own prefix (the format adds the prefix). ``decode_key``
is the inverse, returning ``None`` for keys that are not chunk keys of this
encoding; it lets tools count and list stored chunks.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Sequence


class ChunkKeyEncoding(ABC):
    name: ClassVar[str]

    @classmethod
    @abstractmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> "ChunkKeyEncoding":
        ...

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        ...

    @abstractmethod
    def encode_key(self, coords: Sequence[int]) -> str:
        ...

    @abstractmethod
    def decode_key(self, key: str, ndim: int) -> tuple[int, ...] | None:
        ...
