"""The surface of the core that plugins build on; everything else in core is internal.

An extension-point plugin (a codec, data type, chunk grid, key encoding, memory layout,
storage transformer, extension, store, URL adapter, format or hook plugin) imports from
the core only:

* ``zarrforge.abc`` and its modules: the contracts of every extension point, each
  module's docstring being its contract, and the resolved node model
  (:mod:`zarrforge.abc.metadata`);
* ``zarrforge.errors``: the exceptions;
* ``zarrforge.testing``: the conformance kit;
* this package: one module per extension point, each with that point's contracts again
  (so one import serves) and the tools an author of that kind of plugin needs, its
  docstring saying which and why:

  ========================================================  ==================================
  :mod:`zarrforge.plugin_api.codecs`                        codecs
  :mod:`zarrforge.plugin_api.data_types`                    data types
  :mod:`zarrforge.plugin_api.chunk_grids`                   chunk grids and chunk key encodings
  :mod:`zarrforge.plugin_api.memory_layouts`                chunk memory layouts
  :mod:`zarrforge.plugin_api.storage_transformers`          storage transformers
  :mod:`zarrforge.plugin_api.extensions`                    extensions (ZEP 10)
  :mod:`zarrforge.plugin_api.stores`                        stores and URL adapters
  :mod:`zarrforge.plugin_api.formats`                       formats
  :mod:`zarrforge.plugin_api.hooks`                         hook plugins
  ========================================================  ==================================

* ``__version__`` from ``zarrforge`` (the plugins are released with the core).

A tool is on the surface because at least two plugins use it, or because it is a service
only the engine can offer (its thread pool, its chunk context, its limits, its hook
manager...: the module docstrings name these); a tool only one plugin needs lives in that
plugin. ``scripts/plugin_api_usage.py`` counts the users of each tool and
``tests/test_plugin_api_surface.py`` holds the rule.

This package re-exports every module's names (``from zarrforge.plugin_api import
CodecChain`` keeps working), with every contract of :mod:`zarrforge.abc`. It is the
bottom layer of the plugin surface: among the faces on top of the core, it may import only
the engine and the layers below it, nothing that builds arrays, opens nodes,
schedules chunks or resolves stores (``tests/test_layers.py`` checks the whole import
closure, and what a fresh interpreter loads).

Application plugins (the command line, the object models, the xarray backend) work on
whole hierarchies instead: they use the user API and ``zarrforge.hierarchy_api``.
The hierarchy tools this package used to hand out (``open_node``, ``locate_node``,
``write_nodes``, ``resolve_store``, ``Registry``...) still resolve here, with a
:class:`DeprecationWarning`, until 0.3; so do the tools no plugin used
(``MAX_EXTENT``, ``parse_extension``, ``check_order``, ``check_document``,
``extensions_to_json``).

Names here keep their meaning across releases; the modules they come from may move.
"""

from __future__ import annotations

from typing import Any

from ..abc import *  # noqa: F403  # the contracts, re-exported whole
from ..abc import __all__ as _contracts
from ..engine.codec_chain import check_order as _check_order
from ..metadata.extension_def import parse_extension as _parse_extension
from ..metadata.json_io import check_document as _check_document
from ..registries.resolution import MAX_EXTENT as _MAX_EXTENT
from ..registries.resolution import extensions_to_json as _extensions_to_json
from . import (
    chunk_grids,
    codecs,
    data_types,
    extensions,
    formats,
    hooks,
    memory_layouts,
    storage_transformers,
    stores,
)
from .chunk_grids import *  # noqa: F403
from .codecs import *  # noqa: F403
from .data_types import *  # noqa: F403
from .extensions import *  # noqa: F403
from .formats import *  # noqa: F403
from .hooks import *  # noqa: F403
from .memory_layouts import *  # noqa: F403
from .storage_transformers import *  # noqa: F403
from .stores import *  # noqa: F403

#: the modules of the surface, one per extension point
EXTENSION_POINT_MODULES = (
    chunk_grids,
    codecs,
    data_types,
    extensions,
    formats,
    hooks,
    memory_layouts,
    storage_transformers,
    stores,
)

__all__ = sorted(  # noqa: PLE0605  # computed from the modules' own lists
    {*_contracts, *(name for module in EXTENSION_POINT_MODULES for name in module.__all__)}
)

# Moved to zarrforge.hierarchy_api (application plugins' surface) in 0.2; resolvable here,
# with a warning, until 0.3. The import is deferred so this layer still imports nothing above it.
_MOVED_TO_HIERARCHY_API = frozenset(
    {
        "NewNode",
        "Registry",
        "check_shareable",
        "get_format",
        "installed_formats",
        "locate_document",
        "locate_node",
        "open_node",
        "refresh_consolidated",
        "resolve_store",
        "write_nodes",
    }
)

# Tools no plugin used, off the surface in 0.2 (internal from 0.3); each with what to use.
_LEFT_THE_SURFACE: dict[str, tuple[Any, str]] = {
    "MAX_EXTENT": (_MAX_EXTENT, "shape_from_json refuses a longer extent"),
    "parse_extension": (_parse_extension, "the *_from_json resolution tools parse the entry"),
    "check_order": (_check_order, "CodecChain(codecs) checks the order"),
    "check_document": (_check_document, "dump_document refuses what cannot be written"),
    "extensions_to_json": (
        _extensions_to_json,
        "extensions_to_document writes a model's entries, in the list and as top-level keys",
    ),
}


def __getattr__(name: str) -> Any:
    import warnings

    if name in _LEFT_THE_SURFACE:
        value, instead = _LEFT_THE_SURFACE[name]
        warnings.warn(
            f"zarrforge.plugin_api.{name} left the plugin surface (no plugin used "
            f"it; {instead}); the name goes in 0.3",
            DeprecationWarning,
            stacklevel=2,
        )
        return value
    if name in _MOVED_TO_HIERARCHY_API:
        from .. import hierarchy_api

        warnings.warn(
            f"zarrforge.plugin_api.{name} moved to zarrforge.hierarchy_api.{name} "
            "(the surface of application plugins); the old name goes in 0.3",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(hierarchy_api, name)
    raise AttributeError(f"module 'zarrforge.plugin_api' has no attribute {name!r}")
