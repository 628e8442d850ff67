"""zarrforge-example-thirdparty: an example of a zarrforge plugin written from outside.

It provides, through entry points only:

* the codec ``zf_example.bitround`` (array -> array): rounds floats to fewer
  mantissa bits so that compressors downstream do better (lossy);
* the data type ``zf_example.rgb8``: a pixel of three ``uint8`` channels;
* the generic extension ``zf_example.units`` with a hook that remembers the
  units of every node opened, readable through :func:`units_of`.

zarrforge imports a module of this package only when a document or a call
names what it provides, so this file imports nothing itself: the helpers are
loaded on first use (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "BitRound": "zf_example.bitround",
    "RGB8": "zf_example.rgb",
    "RGB8_DTYPE": "zf_example.rgb",
    "to_rgb8": "zf_example.rgb",
    "Units": "zf_example.units",
    "set_units": "zf_example.units",
    "units_of": "zf_example.units",
}

__all__ = sorted(_LAZY)  # noqa: PLE0605  # computed from the table above


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'zf_example' has no attribute {name!r}")
