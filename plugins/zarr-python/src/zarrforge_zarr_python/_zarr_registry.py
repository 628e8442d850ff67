"""What zarr-python's codec registry holds, told apart from what zarrforge put there.

Contract: :class:`ZarrforgeBacked` marks every zarr-python codec class that
:mod:`.codec_bridge` makes for a zarrforge codec. :func:`foreign_codec_class` is the
class zarr-python's registry (its ``zarr.codecs`` entry points and
``zarr.registry.register_codec``) answers for a name, or ``None`` when it has none or
only one of those bridge classes: the two bridges ask it, so neither hands a name back
to the engine it came from (no loop, no shadowing).
"""

from __future__ import annotations

from typing import Any

from zarr.errors import UnknownCodecError
from zarr.registry import get_codec_class


class ZarrforgeBacked:
    """Base of the zarr-python codec classes that run a zarrforge codec."""


def foreign_codec_class(name: str) -> type[Any] | None:
    try:
        found = get_codec_class(name)
    except (KeyError, UnknownCodecError):  # 3.1 raises the first, 3.4 the second
        return None
    if isinstance(found, type) and issubclass(found, ZarrforgeBacked):
        return None
    return found
