"""What the suites build their scratch hierarchies with, registered only while they run.

:func:`kit_scaffolding` registers, in this process, for the length of a ``with`` block:

* always, the kit's own format and the pieces it writes
  (:mod:`zarrforge.testing.kit_format`): the format ``zarrforge-kit``, the codec
  ``zarrforge-kit.bytes``, the chunk grid ``zarrforge-kit.regular`` and the key
  encoding ``zarrforge-kit.keys``; names of the kit's, so they shadow no plugin;
* the stand-ins of :mod:`zarrforge.testing.kit_stand_ins` (the memory layout ``C``, the
  spec's numeric data types), each only where no installed plugin provides its name.

Everything it registered is unregistered when the block ends (the outermost block,
when they nest), so nothing of the kit is left for the tests that follow.

:class:`KitScaffolding` is the suites' base: an autouse fixture holding the block open
around each test. The suites that build arrays derive from it (codecs, data types,
chunk grids, key encodings, memory layouts, extensions, storage transformers, formats,
URL adapters); the store suites need none of it.

With this, a suite needs nothing installed but zarrforge, pytest, hypothesis and the
plugin under test, except where the suite's subject needs more: the memory layout
suite writes through an installed format that records layouts (zarrforge-draft2022),
the format suite's writer processes use a local directory (``shared_store``: a store
for local paths, zarrforge-std's), and the URL adapter suite puts adapters behind
``memory:`` and ``zarr:`` (``base``: zarrforge-std's).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from ..plugin_api import registry
from .kit_format import (
    BYTES_CODEC,
    FORMAT_NAME,
    KEY_ENCODING,
    REGULAR_GRID,
    KitBytesCodec,
    KitFormat,
    KitKeyEncoding,
    KitRegularGrid,
)
from .kit_stand_ins import DATA_TYPES, MEMORY_LAYOUTS

# (registry, name, implementation): the kit's own, registered always
_OWN: tuple[tuple[Any, str, type], ...] = (
    (registry.formats, FORMAT_NAME, KitFormat),
    (registry.codecs, BYTES_CODEC, KitBytesCodec),
    (registry.chunk_grids, REGULAR_GRID, KitRegularGrid),
    (registry.chunk_key_encodings, KEY_ENCODING, KitKeyEncoding),
)
# ... and the stand-ins, registered where nothing answers for the name
_STAND_INS: tuple[tuple[Any, str, type], ...] = (
    *((registry.memory_layouts, name, cls) for name, cls in MEMORY_LAYOUTS.items()),
    *((registry.data_types, name, cls) for name, cls in DATA_TYPES.items()),
)

_lock = threading.Lock()
_depth = 0
_registered: list[tuple[Any, str]] = []  # (registry, name) to unregister at the end


def _register() -> list[tuple[Any, str]]:
    done: list[tuple[Any, str]] = []
    try:
        for table, name, implementation in _OWN:
            if name in table and table.get(name) is implementation:
                continue  # registered already, by someone who will take it away
            table.register(name, implementation)
            done.append((table, name))
        for table, name, implementation in _STAND_INS:
            if name not in table:
                table.register(name, implementation)
                done.append((table, name))
    except BaseException:
        _unregister(done)
        raise
    return done


def _unregister(done: list[tuple[Any, str]]) -> None:
    for table, name in reversed(done):
        table.unregister(name)


@contextlib.contextmanager
def kit_scaffolding() -> Iterator[None]:
    """The kit's format and pieces, and the stand-ins nothing installed provides,
    registered for the block (see the module docstring)."""
    global _depth
    with _lock:
        if _depth == 0:
            _registered[:] = _register()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                _unregister(_registered)
                _registered.clear()


class KitScaffolding:
    """Base of the suites that build arrays: :func:`kit_scaffolding` around each test."""

    @pytest.fixture(autouse=True)
    def _zarrforge_kit_scaffolding(self) -> Iterator[None]:
        with kit_scaffolding():
            yield


__all__ = ["FORMAT_NAME", "KitScaffolding", "kit_scaffolding"]
