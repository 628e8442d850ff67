"""The engines under test, each behind the same small interface.

Contract: :func:`load` imports one engine module on demand (a child process
imports only the engine it measures) and returns its ``Engine`` instance. An
engine does everything through its library's public API and offers:

* ``name``: the engine's name in the driver's output;
* ``write_array(path, spec, data)``: create the array of
  :class:`benchmarks.data.ArraySpec` ``spec`` at the directory ``path`` (which
  does not exist) and write ``data`` into it whole, in one call;
* ``read_array(path)``: open the array at ``path`` and read it whole into a
  new numpy array;
* ``open_array(path)`` and ``read_region(handle, region)``: open once, then
  read a tuple of slices (one call per region);
* ``create_group(path, members, spec)``: a group at ``path`` holding one array
  of ``spec`` per member name, with that member's attributes;
* ``list_group(path)``: open the group at ``path`` fresh and return
  ``{member name: attributes}`` for every member;
* ``configuration()``: the engine's runtime settings, as JSON, for the record.
"""

from __future__ import annotations

import importlib
from typing import Any

MODULES = {
    "zarrforge": "benchmarks.engines.zarrforge_engine",
    "zarr-python": "benchmarks.engines.zarr_python_engine",
    "tensorstore": "benchmarks.engines.tensorstore_engine",
}

NAMES = tuple(MODULES)


def load(name: str) -> Any:
    try:
        module = MODULES[name]
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; known: {', '.join(MODULES)}") from None
    return importlib.import_module(module).Engine()
