"""The contracts of every extension point; each module's docstring is its contract.

The contracts layer: its modules may import each other, the documents
(``zarrforge.metadata``) and the leaves (:mod:`zarrforge.errors`, :mod:`zarrforge.config`);
nothing that resolves, stores, runs chunks or opens nodes (tests/test_layers.py)."""

from .chunk_grid import ChunkGrid, DimensionChunking
from .chunk_key_encoding import ChunkKeyEncoding
from .codec import (
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
from .data_type import DataType, VariableLengthDataType
from .extension import ArrayHandle, Extension
from .format import NO_FILL_VALUE, ArrayCreationSpec, ChunksUnderNode, Format
from .memory_layout import MemoryLayout
from .metadata import ArrayMetadata, ExtensionEntry, GroupMetadata, NodeMetadata
from .storage_transformer import ChunkKeys, StorageTransformer
from .store import (
    ABSENT,
    ByteRange,
    ListDirResult,
    ReadLimit,
    Store,
    StoreCapabilities,
    WrapperStore,
    is_document_key,
    read_limit,
    validate_key,
    validate_prefix,
)
from .url_adapter import FormatSegment, PipelineState, Segment, URLAdapter

__all__ = [
    "ABSENT",
    "ArrayArrayCodec",
    "ArrayHandle",
    "ArrayBytesCodec",
    "ArrayCreationSpec",
    "ArrayMetadata",
    "ByteRange",
    "BytesBytesCodec",
    "ChunkGrid",
    "ChunkKeyEncoding",
    "ChunkKeys",
    "ChunkSpec",
    "ChunksUnderNode",
    "Codec",
    "CodecKind",
    "DataType",
    "DimensionChunking",
    "Extension",
    "ExtensionEntry",
    "Format",
    "GroupMetadata",
    "ListDirResult",
    "MemoryLayout",
    "NO_FILL_VALUE",
    "NodeMetadata",
    "PartialCodec",
    "RangeFetcher",
    "ReadLimit",
    "StorageTransformer",
    "Store",
    "StoreCapabilities",
    "SubdividedCodec",
    "VersionedRangeFetcher",
    "WrapperStore",
    "is_document_key",
    "read_limit",
    "validate_key",
    "validate_prefix",
    "FormatSegment",
    "PipelineState",
    "Segment",
    "URLAdapter",
    "VariableLengthDataType",
]
