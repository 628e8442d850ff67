"""The contracts of every extension point; each module's docstring is its contract."""

from .chunk_grid import ChunkGrid, DimensionChunking
from .chunk_key_encoding import ChunkKeyEncoding
from .codec import ArrayArrayCodec, ArrayBytesCodec, BytesBytesCodec, ChunkSpec, Codec, CodecKind
from .data_type import DataType
from .extension import Extension
from .format import ArrayCreationSpec, Format
from .memory_layout import MemoryLayout
from .storage_transformer import StorageTransformer
from .store import (ByteRange, ListDirResult, Store, StoreCapabilities, WrapperStore, validate_key,
                    validate_prefix)

__all__ = [
    "ArrayArrayCodec", "ArrayBytesCodec", "ArrayCreationSpec", "ByteRange", "BytesBytesCodec",
    "ChunkGrid", "ChunkKeyEncoding", "ChunkSpec", "Codec", "CodecKind", "DataType",
    "DimensionChunking", "Extension", "Format", "ListDirResult", "MemoryLayout",
    "StorageTransformer", "Store", "StoreCapabilities", "WrapperStore", "validate_key",
    "validate_prefix",
]
