"""Documents no installed format reads: found, named, and never written over.

When no installed format finds a node at a path, something may still be stored there:
a node of a format whose plugin is not installed in this environment (Zarr v2 without
zarrforge-v2, the 2022 draft without zarrforge-draft2022), a variant format's
``zarr.json`` with a ``zarr_format`` of its own, a newer Zarr version. Such a node is
somebody's data. :func:`find` looks for it, and the callers refuse:

* creating, or opening in a mode that may write (``"a"``, ``"r+"``, ``"w-"``), over it,
  or below it (its documents would be replaced by a new parent group), with
  :class:`~zarrforge.errors.UnreadableNodeError`, before anything is written;
  ``overwrite=True`` (``mode="w"``) is the explicit way to replace it, and then its
  documents and everything below its path are erased first (:meth:`UnreadableNode.erase`);
* opening it for reading, with the same error instead of "no array or group".

Where it looks (:func:`candidate_keys`): the documents the published Zarr formats keep
for a node at that path, which the core knows by name without their plugins (v3's
``zarr.json``, v2's ``.zarray`` and ``.zgroup``, the 2022 draft's
``meta/root/<path>.array.json`` and ``.group.json``; at the root the draft's entry point
is ``zarr.json`` too). Knowing these names is not reading these formats: nothing here
resolves a document. A format plugin whose documents live under other names is
protected only where it is installed; the plugin guide asks variant formats to keep
``zarr.json`` with a ``zarr_format`` of their own, and the format conformance kit
checks it.

The error names the document's key, its ``zarr_format`` and ``node_type`` where it
parses as JSON, the installed formats, and the plugin that reads it where that is known
(the 2022 draft's and v2's by their markers; any other ``zarr_format`` only when a
format of that name is known to the registry).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any

from .. import config
from ..abc.read_limits import NODE_DOCUMENT_NAMES, draft_document_keys
from ..abc.store import Store
from ..errors import UnreadableNodeError
from ..registries import registry

# the entry points of the 2022 draft's two dialects (zarr-python 2's and the editor's)
_DRAFT_URIS = ("https://purl.org/zarr/spec/protocol/core/3", "https://purl.org/zarr/spec/core/3")
_ENTRY_POINT_BYTES = 1 << 20  # more than any draft entry point holds


def candidate_keys(path: str, *, draft: bool = True) -> list[str]:
    """The keys where a node of a published Zarr format at ``path`` keeps its documents
    (see the module docstring; the 2022 draft's only with ``draft``)."""
    below = f"{path}/" if path else ""
    keys = [f"{below}{name}" for name in NODE_DOCUMENT_NAMES]
    return keys + draft_document_keys(path) if draft else keys


@dataclasses.dataclass(frozen=True)
class UnreadableNode:
    """A document at ``path`` that no installed format reads (see :func:`find`).

    ``zarr_format`` is the document's member of that name (``None`` when it has none or
    is no JSON object), ``node_type`` its node type where the document or its name tells
    it, ``reader`` the format known to read it and ``provider`` that format's
    distribution (``None`` when unknown), ``installed`` the installed formats."""

    path: str
    key: str
    zarr_format: Any
    node_type: str | None
    parsed: str  # how the document parsed: "" when a JSON object, else what it is
    reader: str | None
    provider: str | None
    installed: tuple[str, ...]

    def describe(self) -> str:
        """The document, as the errors name it."""
        if self.parsed:
            return f"{self.key!r} ({self.parsed})"
        shown = "no zarr_format" if self.zarr_format is None else f"zarr_format {self.zarr_format!r}"
        if self.node_type is not None:
            shown += f", node_type {self.node_type!r}"
        return f"{self.key!r} ({shown})"

    def advice(self) -> str:
        """Which plugin would read it, or that none is known."""
        installed = ", ".join(repr(name) for name in self.installed) or "none"
        if self.reader is not None and self.reader in registry.formats.names():
            said = (
                f"the format {self.reader!r} ({registry.formats.origin(self.reader)}) "
                "reads it, but it could not be used in this process (see the "
                "PluginFailureWarning it gave)"
            )
        elif self.reader is not None:
            said = f"the format {self.reader!r} reads it" + (
                f": install {self.provider} (pip install {self.provider})" if self.provider else ""
            )
        else:
            said = (
                "no known format reads it: install the plugin of the format that wrote "
                "it (a variant format, or a newer version of Zarr)"
            )
        return f"{said}; installed formats: {installed}"

    def error(self, lead: str, tail: str = "") -> UnreadableNodeError:
        """``lead`` (ending in "holds"), the document, who reads it, then ``tail``."""
        return UnreadableNodeError(
            f"{lead} {self.describe()}, a document no installed format reads; {self.advice()}{tail}",
            key=self.key,
            zarr_format=self.zarr_format,
            node_type=self.node_type,
            reader=self.reader,
            provider=self.provider,
        )

    def refusal(self, *, below: str | None = None) -> UnreadableNodeError:
        """The error for a write that would replace it (``below``: the path of the node
        being created below it, whose new parent group would replace it)."""
        where = "/" + self.path
        if below is not None:
            return self.error(
                f"cannot create {'/' + below!r}: nothing was written, since its ancestor {where!r} holds",
                "; a new parent group would replace that node",
            )
        return self.error(
            f"nothing was written: {where!r} holds",
            "; pass overwrite=True (or mode='w') to replace that node",
        )

    def erase(self, store: Store) -> None:
        """Remove it for ``overwrite=True``: its document and every key below its path
        (the whole store for the root, as another format's root erasure does)."""
        store.delete(self.key)
        store.erase_prefix(f"{self.path}/" if self.path else "")


def find(
    store: Store,
    path: str,
    installed: Sequence[str] = (),
    working: Callable[[str], bool] = lambda name: False,
) -> UnreadableNode | None:
    """The first document at :func:`candidate_keys` that no working format reads, or
    ``None`` where there is none. The caller asks only where no installed format
    (``installed`` names them, for the errors) found a node; a document whose reader is
    installed and ``working(name)`` (loaded, not failed in this process) is that format's
    and no node (the 2022 draft's entry point of an empty hierarchy). One batched read;
    the 2022 draft's keys are asked for only below a root whose ``zarr.json`` is a draft
    entry point (at the root that entry point is what is found; some stores refuse keys
    of the draft's shape: Icechunk's)."""
    keys = candidate_keys(path, draft=bool(path) and _draft_entry_point(store.get("zarr.json")))
    for key, value in zip(keys, store.get_many([(key, None) for key in keys])):
        if value is not None:
            found = _described(path, key, value, tuple(installed))
            if found.reader is None or not working(found.reader):
                return found
    return None


def _draft_entry_point(value: bytes | None) -> bool:
    """Is ``value`` (the root ``zarr.json``) a 2022 draft entry point? Such documents are
    small and name a draft URI: a large root (a v3 group with its consolidated view) is
    not parsed to find out."""
    if value is None or len(value) > _ENTRY_POINT_BYTES:
        return False
    if not any(uri.encode() in value for uri in _DRAFT_URIS):
        return False
    document, _ = _parsed(value)
    return (
        document is not None
        and _reader("zarr.json", "zarr.json", document.get("zarr_format")) == "draft-2022"
    )


def _described(path: str, key: str, value: bytes, installed: tuple[str, ...]) -> UnreadableNode:
    document, parsed = _parsed(value)
    zarr_format = document.get("zarr_format") if document is not None else None
    name = key.rsplit("/", 1)[-1]
    node_type: str | None = None
    if document is not None and isinstance(document.get("node_type"), str):
        node_type = document["node_type"]
    elif name in (".zarray", ".zgroup"):
        node_type = "array" if name == ".zarray" else "group"
    elif key.startswith("meta/root"):
        node_type = "array" if key.endswith(".array.json") else "group"
    reader = _reader(key, name, zarr_format)
    provider = registry.formats.provider_hint(reader) if reader is not None else None
    return UnreadableNode(path, key, zarr_format, node_type, parsed, reader, provider, installed)


def _parsed(value: bytes) -> tuple[dict[str, Any] | None, str]:
    """The document as a JSON object, or ``None`` and what it is instead; a value over
    ``config.max_document_bytes`` is not parsed."""
    limit = config.get().max_document_bytes
    if limit is not None and len(value) > limit:
        return None, f"{len(value)} bytes, over max_document_bytes: not parsed"
    try:
        document = json.loads(value)
    except (ValueError, RecursionError):
        return None, "not JSON"
    if not isinstance(document, dict):
        return None, f"JSON {type(document).__name__}, not an object"
    return document, ""


def _reader(key: str, name: str, zarr_format: Any) -> str | None:
    """The format known to read the document at ``key``, by its name and marker."""
    if name in (".zarray", ".zgroup"):
        return "2"
    if key.startswith("meta/root"):
        return "draft-2022"
    if isinstance(zarr_format, str) and zarr_format.startswith(_DRAFT_URIS):
        return "draft-2022"
    if zarr_format == 3 and not isinstance(zarr_format, bool):
        return "3"
    if isinstance(zarr_format, (str, int)) and not isinstance(zarr_format, bool):
        named = str(zarr_format)
        if named in registry.formats.names() or registry.formats.provider_hint(named):
            return named
    return None
