"""The ``regular`` chunk grid: every chunk has the configured ``chunk_shape``.

Chunks at the upper edge of the array keep the full stored shape; the part
beyond the array's end is not part of the array (read as nothing, written as
the fill value).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zarrforge.abc.chunk_grid import ChunkGrid, DimensionChunking, RegularDimension
from zarrforge.errors import MetadataError

from ._config import check_keys, is_int


class RegularChunkGrid(ChunkGrid):
    name = "regular"

    def __init__(self, chunk_shape: Sequence[int], shape: Sequence[int]) -> None:
        self._chunk_shape = tuple(chunk_shape)
        self._shape = tuple(shape)
        self._dims = tuple(RegularDimension(n, c) for n, c in zip(self._shape, self._chunk_shape))

    @classmethod
    def from_json(
        cls, name: str, configuration: dict[str, Any] | None, shape: Sequence[int]
    ) -> RegularChunkGrid:
        config = check_keys(name, configuration, {"chunk_shape"}, {"chunk_shape"})
        chunk_shape = config["chunk_shape"]
        if isinstance(chunk_shape, tuple):
            chunk_shape = list(chunk_shape)
        if (
            not isinstance(chunk_shape, list)
            or len(chunk_shape) != len(shape)
            or not all(is_int(c) and 0 < c < 2**63 for c in chunk_shape)
        ):
            raise MetadataError(
                f"must be a list of {len(shape)} positive integers below 2**63 (one per dimension of the "
                f"array shape {list(shape)}), got {chunk_shape!r}",
                field="configuration.chunk_shape",
                value=chunk_shape,
            )
        return cls(chunk_shape, shape)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"chunk_shape": list(self._chunk_shape)}}

    @property
    def dimensions(self) -> tuple[DimensionChunking, ...]:
        return self._dims

    def with_shape(self, shape: Sequence[int]) -> RegularChunkGrid:
        return RegularChunkGrid(self._chunk_shape, shape)

    @property
    def regular_chunk_shape(self) -> tuple[int, ...]:
        return self._chunk_shape
