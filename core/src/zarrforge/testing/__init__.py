"""Conformance suites that plugin authors run against their own implementations.

Each suite is a pytest test class to subclass in your own test module; the
subclass says what to test, the suite brings the tests::

    from zarrforge.testing import StoreConformance

    class TestMyStore(StoreConformance):
        def make_store(self, tmp_path):
            return MyStore(tmp_path / "root")

Suites: :class:`StoreConformance`, :class:`ConditionalWriteConformance` and
:class:`CrossProcessConditionalConformance` (stores with conditional writes),
:class:`CrossProcessStoreConformance` (stores other processes write to at once),
:class:`CodecConformance`, :class:`DataTypeConformance`,
:class:`ChunkGridConformance`, :class:`ChunkKeyEncodingConformance`,
:class:`MemoryLayoutConformance`, :class:`ExtensionConformance`,
:class:`URLAdapterConformance`, :class:`StorageTransformerConformance`,
:class:`FormatConformance`, :class:`HookConformance` (hook plugins). Importing this package needs pytest (and
hypothesis for the randomised checks); zarrforge itself does not. The kit imports
no plugin: its scratch hierarchies live in :class:`kit_store.KitMemoryStore`.
"""

from .chunk_grids import ChunkGridConformance
from .chunk_key_encodings import ChunkKeyEncodingConformance
from .codecs import CodecConformance
from .conditional import ConditionalWriteConformance, CrossProcessConditionalConformance
from .cross_process import CrossProcessStoreConformance
from .data_types import DataTypeConformance
from .extensions import ExtensionConformance
from .faults import ChangeBetweenReads, FaultyStore  # noqa: F401 - fault injection (faults.py)
from .races import count_versions, rewriting, run_threads  # noqa: F401 - concurrency tests
from .formats import FormatConformance
from .hooks import HookConformance
from .memory_layouts import MemoryLayoutConformance
from .storage_transformers import StorageTransformerConformance
from .stores import StoreConformance
from .url_adapters import PipelineCase, URLAdapterConformance

__all__ = ["ChunkGridConformance", "ChunkKeyEncodingConformance", "CodecConformance",
           "ConditionalWriteConformance", "CrossProcessConditionalConformance",
           "CrossProcessStoreConformance",
           "DataTypeConformance", "ExtensionConformance", "FormatConformance", "HookConformance",
           "MemoryLayoutConformance",
           "PipelineCase", "StorageTransformerConformance", "StoreConformance",
           "URLAdapterConformance"]
