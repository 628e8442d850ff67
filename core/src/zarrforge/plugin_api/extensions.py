"""The surface of an extension plugin (the ``extensions`` extension point, ZEP 10).

Contract: :mod:`zarrforge.abc.extension`: an extension named in a node's
``extensions`` list validates the node's metadata (:class:`ArrayMetadata`,
:class:`GroupMetadata`), may map a user's selection (``map_selection``) and act after
writes, through the :class:`ArrayHandle` it is given.

Tools: :func:`extensions_from_json` / :func:`extension_from_json` (the list, or one
entry, resolved; an unknown entry marked ``must_understand: false`` comes back as an
:class:`UnknownExtension`, kept verbatim), :data:`registry`.

Engine service: :func:`normalize_basic_selection`, a user's basic selection as one
non-negative ``int`` or ``range`` per dimension, exactly as the engine reads it, for
``map_selection``.
"""

from __future__ import annotations

from ..abc.extension import ArrayHandle, Extension
from ..abc.metadata import ArrayMetadata, ExtensionEntry, GroupMetadata, NodeMetadata
from ..engine.indexing import normalize_basic_selection
from ..metadata.document import UnknownExtension
from ..registries.registry_facade import FACADE as registry
from ..registries.resolution import extension_from_json, extensions_from_json

__all__ = [
    "ArrayHandle",
    "ArrayMetadata",
    "Extension",
    "ExtensionEntry",
    "GroupMetadata",
    "NodeMetadata",
    "UnknownExtension",
    "extension_from_json",
    "extensions_from_json",
    "normalize_basic_selection",
    "registry",
]
