"""The surface of a codec plugin (the ``codecs`` extension point).

Contract: :mod:`zarrforge.abc.codec` (its docstring is the contract): an ``array ->
array``, ``array -> bytes`` or ``bytes -> bytes`` codec, built by ``from_json`` from
its name and configuration, working on one chunk described by a :class:`ChunkSpec`.

Tools:

* :class:`CodecChain`: a validated ``array -> array``*, ``array -> bytes``,
  ``bytes -> bytes``* list, usable inside an ``array -> bytes`` codec (sharding's inner
  chunks); :func:`codec_from_json` / :func:`codecs_from_json` resolve nested codecs
  (an unknown one that may be skipped comes back as a :class:`SkippedCodec`) and
  :func:`data_type_from_json` a nested data type; :func:`memory_layout` the layout
  registered under a name;
* :func:`json_ready` and :func:`numcodecs_configuration`: another library's codec
  configuration as plain JSON, for a codec that wraps numcodecs or zarr-python codecs;
* :data:`registry`: the extension points' registries (a facade), :data:`config`: the
  settings.

Engine services (what the engine offers a codec that subdivides its chunks; they stay
here whichever plugins use them, since only the engine can provide them):

* :func:`map_parallel`: a function over independent parts of a chunk, on the threads
  of the engine call in progress (the engine's thread pool);
* :func:`current_chunk` (the grid coordinates of the chunk being encoded) and
  :func:`encoding_chunk` (set them, for the sub-chunks a codec encodes itself): the
  engine's chunk context;
* :func:`all_equal_fill`: the engine's test for a chunk that holds only the fill
  value (what ``write_empty_chunks=False`` leaves unwritten), so that a codec drops
  the same empty parts the engine drops;
* :func:`check_allocation`: the engine's resource limits (``config.max_chunk_bytes``,
  ``max_request_bytes``), refused before a buffer is allocated;
* :func:`remembered_indexes`: the engine's memory of the indexes a partial codec read (a
  shard's), within ``config.index_cache`` bytes, for a next partial read that fetches the
  index and the parts it points at in one batch.
"""

from __future__ import annotations

from .. import config
from ..abc.codec import (
    ArrayArrayCodec,
    ArrayBytesCodec,
    BytesBytesCodec,
    ChunkSpec,
    Codec,
    CodecKind,
    PartialCodec,
    RangeFetcher,
    SubdividedCodec,
    VersionedRangeFetcher,
)
from ..abc.data_type import DataType
from ..abc.store import ByteRange
from ..engine.chunk_context import current_chunk, encoding_chunk
from ..engine.chunk_helpers import all_equal_fill, check_allocation
from ..engine.codec_arguments import json_ready, numcodecs_configuration
from ..engine.codec_chain import CodecChain
from ..engine.index_memory import remembered_indexes
from ..engine.parallel import map_parallel
from ..registries.registry_facade import FACADE as registry
from ..registries.resolution import (
    SkippedCodec,
    codec_from_json,
    codecs_from_json,
    data_type_from_json,
    memory_layout,
)

__all__ = [
    "ArrayArrayCodec",
    "ArrayBytesCodec",
    "ByteRange",
    "BytesBytesCodec",
    "ChunkSpec",
    "Codec",
    "CodecChain",
    "CodecKind",
    "DataType",
    "PartialCodec",
    "RangeFetcher",
    "SkippedCodec",
    "SubdividedCodec",
    "VersionedRangeFetcher",
    "all_equal_fill",
    "check_allocation",
    "codec_from_json",
    "codecs_from_json",
    "config",
    "current_chunk",
    "data_type_from_json",
    "encoding_chunk",
    "json_ready",
    "map_parallel",
    "memory_layout",
    "numcodecs_configuration",
    "registry",
    "remembered_indexes",
]
