"""The surface of a chunk grid plugin (the ``chunk_grids`` extension point) and of a
chunk key encoding plugin (``chunk_key_encodings``).

Contracts: :mod:`zarrforge.abc.chunk_grid` (a grid maps chunk coordinates to the
region of the array each chunk holds, :class:`DimensionChunking` per dimension) and
:mod:`zarrforge.abc.chunk_key_encoding` (chunk coordinates to store keys and back).

Tools: :func:`chunk_grid_from_json` and :func:`chunk_key_encoding_from_json` (a grid
or encoding nested in another's configuration, resolved through the registries),
:data:`registry` and :data:`config`.
"""

from __future__ import annotations

from .. import config
from ..abc.chunk_grid import ChunkGrid, DimensionChunking
from ..abc.chunk_key_encoding import ChunkKeyEncoding
from ..registries.registry_facade import FACADE as registry
from ..registries.resolution import chunk_grid_from_json, chunk_key_encoding_from_json

__all__ = [
    "ChunkGrid",
    "ChunkKeyEncoding",
    "DimensionChunking",
    "chunk_grid_from_json",
    "chunk_key_encoding_from_json",
    "config",
    "registry",
]
