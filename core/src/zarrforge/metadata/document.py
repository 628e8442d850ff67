"""A node's metadata as stored: parsed JSON, resolved through no registry.

This is the leaf layer of metadata. It imports nothing from the contracts
(:mod:`zarrforge.abc`), the registries or the engine, so it can be read,
compared, detected, listed and written back without any plugin installed.

* :class:`NodeDocument`: what a format's ``read_document`` returns: the
  node's type and its documents exactly as parsed (the content is the
  format's own: the ``zarr.json`` object for v3, the ``.zarray``/``.zgroup``
  and ``.zattrs`` objects for v2). Turning it into the resolved model the
  engine consumes is the format's ``resolve`` (:mod:`zarrforge.resolution`
  holds the shared steps), and the only place plugins are loaded.
* :class:`UnknownExtension`: an ``extensions`` entry that no installed
  plugin understands but that may be ignored; kept verbatim and written back.

Component values (a codec, a data type) are parsed into
:class:`~zarrforge.metadata.extension_def.ExtensionRef` (name, configuration,
must_understand) by :func:`~zarrforge.metadata.extension_def.parse_extension`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

NODE_TYPES = ("array", "group")


@dataclasses.dataclass(frozen=True)
class NodeDocument:
    """The stored metadata of one node, unresolved.

    ``content`` is format-defined and must be treated as read-only; ``key`` is
    the store key of the node's main document, for error messages.
    """

    format_name: str
    node_type: str
    key: str
    content: Mapping[str, Any]


@dataclasses.dataclass(frozen=True)
class UnknownExtension:
    """An entry of ``extensions`` that no installed plugin understands but that says
    ``must_understand: false``: ignored, and written back exactly as it was read."""

    document: Any

    @property
    def name(self) -> str:
        return self.document if isinstance(self.document, str) else self.document.get("name", "")

    must_understand = False
