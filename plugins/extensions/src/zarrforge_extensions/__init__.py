"""zarrforge-extensions: two generic (ZEP 10) extensions for zarrforge.

* ``zarrforge.offset``: address an array through a shifted index domain
  (:mod:`zarrforge_extensions.offset`; helpers :func:`set_offset`,
  :func:`offset_of`, :func:`domain`);
* ``zarrforge.array-statistics``: ``min``/``max``/``count`` of everything
  written, kept up to date on every write and readable without reading chunks
  (:mod:`zarrforge_extensions.array_statistics`; helpers :func:`enable_statistics`,
  :func:`statistics`).

zarrforge finds the extension classes through the ``zarrforge.extensions``
entry points; their behaviour is on the classes (``validate``,
``map_selection``, ``after_write`` of the Extension contract), so importing
this package is not needed to read or write arrays that use them.
"""

from .array_statistics import (
    ArrayStatistics,
    Statistics,
    StatisticsUpdateError,
    UnsupportedDataTypeError,
    enable_statistics,
    statistics,
)
from .offset import Offset, domain, offset_of, set_offset

__all__ = [
    "ArrayStatistics",
    "Offset",
    "Statistics",
    "StatisticsUpdateError",
    "UnsupportedDataTypeError",
    "domain",
    "enable_statistics",
    "offset_of",
    "set_offset",
    "statistics",
]

from zarrforge import __version__ as __version__  # released together, one version
