"""The surface of a chunk memory layout plugin (the ``memory_layouts`` extension point).

Contract: :mod:`zarrforge.abc.memory_layout`: a layout orders a chunk's elements in
memory (``C``, ``F``, a Z-order...); it takes no arguments and keeps no state.

Tools: :func:`memory_layout` (the layout registered under a name, one shared instance
per class) and :class:`MemoryLayoutCodec` (a recorded layout as the first codec of a
chain, for a format that records one), :data:`registry`.

Examples
--------
The registry holds the installed layouts by name; :func:`memory_layout` gives the shared
instance of one:

>>> {"C", "F"} <= set(registry.memory_layouts.names())
True
>>> type(memory_layout("F")) is registry.memory_layouts.get("F")
True

A plugin's layouts are found through its ``memory_layouts`` entry points.
"""

from __future__ import annotations

from ..abc.memory_layout import MemoryLayout
from ..engine.layout_codec import MemoryLayoutCodec
from ..registries.registry_facade import FACADE as registry
from ..registries.resolution import memory_layout

__all__ = ["MemoryLayout", "MemoryLayoutCodec", "memory_layout", "registry"]
