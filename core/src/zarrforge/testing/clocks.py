"""Clocks that writers put into the bytes they write, pinned for comparisons.

gzip (numcodecs' ``GZip``, used by zarr-python and zarrforge alike) writes the time of
writing into each header: two writes compared byte for byte differ when they straddle
a second. ``with gzip_clock_pinned():`` gives every gzip header written inside the
block the same time.
"""

from __future__ import annotations

import contextlib
import gzip
import types
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def gzip_clock_pinned() -> Iterator[None]:
    # gzip reads the clock through its own reference to time (no attribute typeshed declares)
    module: Any = gzip
    saved = module.time
    module.time = types.SimpleNamespace(time=lambda: 1_700_000_000.0)
    try:
        yield
    finally:
        module.time = saved
