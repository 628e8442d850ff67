"""zarrforge-draft2022: the 2022 editor's draft of Zarr v3 as a zarrforge format.

Registered in ``zarrforge.formats`` as ``"draft-2022"``::

    import zarrforge as zf
    a = zf.create_array("data.zr", shape=(100, 100), chunks=(10, 10), dtype="<f8",
                        zarr_format="draft-2022")          # zarr-python 2's dialect
    zf.open_array("data.zr")                               # detected, either dialect

The dialect of new hierarchies is a runtime option (default ``"zarr-python"``,
what zarr-python 2.11-2.18 reads); see :mod:`zarrforge_draft2022.dialects`::

    with zarrforge_draft2022.dialect("editor"):
        zf.create_group("spec.zr", zarr_format="draft-2022")
    zf.create_array(..., fmt=zarrforge_draft2022.Draft2022Format(dialect="editor",
                                                                 chunk_memory_layout="F"))
"""

from __future__ import annotations

from zarrforge import __version__ as __version__  # released together, one version

from .data_types import FallbackDataTypeWarning
from .dialects import (
    DEFAULT_DIALECT,
    DIALECTS,
    EDITOR,
    ZARR_PYTHON,
    dialect,
    get_default_dialect,
    set_default_dialect,
)
from .format import Draft2022Format

__all__ = [
    "DEFAULT_DIALECT",
    "DIALECTS",
    "EDITOR",
    "ZARR_PYTHON",
    "Draft2022Format",
    "FallbackDataTypeWarning",
    "dialect",
    "get_default_dialect",
    "set_default_dialect",
]
