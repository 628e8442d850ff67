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
* ``configuration()``: the engine's runtime settings, as JSON, for the record; its
  ``threads`` entry is the thread count in force (read back from the library; ``None``
  where the library is left to its own default).

``Engine(threads=None)`` keeps the library's default threading; ``Engine(threads=N)``
sets it to N threads (the thread sweep, ``run.py --threads-sweep``; each engine module
says which settings that is).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

MODULES = {
    "zarrforge": "benchmarks.engines.zarrforge_engine",
    "zarr-python": "benchmarks.engines.zarr_python_engine",
    "tensorstore": "benchmarks.engines.tensorstore_engine",
    "zarrs-python": "benchmarks.engines.zarrs_engine",
}

#: Engines whose children run under another interpreter: engine -> the environment
#: variable naming it (zarrs-python needs zarr-python >= 3.2, so Python >= 3.12).
INTERPRETERS = {"zarrs-python": "ZARRFORGE_BENCH_ZARRS_PYTHON"}


def available() -> tuple[str, ...]:
    """The engines a run measures by default: every engine, except those needing an
    interpreter of their own when the variable naming it is unset."""
    return tuple(name for name in MODULES if name not in INTERPRETERS or os.environ.get(INTERPRETERS[name]))


def interpreter(name: str, default: str) -> str:
    """The Python that runs ``name``'s children (``default``: the driver's own)."""
    variable = INTERPRETERS.get(name)
    return os.environ.get(variable, default) if variable else default


NAMES = tuple(MODULES)


def load(name: str, threads: int | None = None) -> Any:
    """The engine ``name``; with ``threads``, set to use that many threads."""
    try:
        module = MODULES[name]
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; known: {', '.join(MODULES)}") from None
    return importlib.import_module(module).Engine(threads=threads)
