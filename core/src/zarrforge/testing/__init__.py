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
hypothesis for the randomised checks); zarrforge itself does not.

The kit needs nothing installed but zarrforge and the plugin under test, and what it
finds does not depend on what else is installed (it is one of the faces on top of the core,
but may import only the public surfaces below):

* it imports from zarrforge only the public surfaces a plugin may use: the user API
  (``zarrforge``), ``zarrforge.abc``, ``zarrforge.errors``, ``zarrforge.plugin_api``
  (the resolution functions, the registries' facade, ``config``) and
  ``zarrforge.hierarchy_api`` (``get_format``, ``installed_formats``,
  ``resolve_pipeline``, ``candidate_keys``); no plugin, and no internal module
  (``tests/test_layers.py`` checks);
* its scratch hierarchies live in its own store (:class:`kit_store.KitMemoryStore`) in
  its own format (``zarrforge-kit``, :mod:`.kit_format`: v3's layout, with a serializer,
  a regular grid and a key encoding of its own), and the names the core and the
  suites' defaults ask for (the memory layout ``C``, the spec's numeric data types such
  as ``float64``) have stand-ins (:mod:`.kit_stand_ins`) where no plugin provides them;
* those are registered in-process only while a suite's test runs, and taken away after
  (:mod:`.scaffolding`: :func:`~.scaffolding.kit_scaffolding`, a ``with`` block for
  tests of your own).

Three suites need more, for what they test: :class:`MemoryLayoutConformance` writes
through an installed format that records memory layouts (zarrforge-draft2022's),
:class:`FormatConformance`'s writer processes share a local directory
(``shared_store``: a store for local paths, such as zarrforge-std's), and
:class:`URLAdapterConformance` puts adapters behind ``memory:`` and ``zarr:``
(``base``: zarrforge-std's).
"""

from .chunk_grids import ChunkGridConformance
from .chunk_key_encodings import ChunkKeyEncodingConformance
from .codecs import CodecConformance
from .conditional import ConditionalWriteConformance, CrossProcessConditionalConformance
from .cross_process import CrossProcessStoreConformance
from .data_types import DataTypeConformance
from .extensions import ExtensionConformance
from .faults import ChangeBetweenReads, FaultyStore  # noqa: F401  # fault injection (faults.py)
from .formats import FormatConformance
from .hooks import HookConformance
from .memory_layouts import MemoryLayoutConformance
from .races import count_versions, rewriting, run_threads  # noqa: F401  # concurrency tests
from .storage_transformers import StorageTransformerConformance
from .stores import StoreConformance
from .url_adapters import PipelineCase, URLAdapterConformance

__all__ = [
    "ChunkGridConformance",
    "ChunkKeyEncodingConformance",
    "CodecConformance",
    "ConditionalWriteConformance",
    "CrossProcessConditionalConformance",
    "CrossProcessStoreConformance",
    "DataTypeConformance",
    "ExtensionConformance",
    "FormatConformance",
    "HookConformance",
    "MemoryLayoutConformance",
    "PipelineCase",
    "StorageTransformerConformance",
    "StoreConformance",
    "URLAdapterConformance",
]
