"""A node's metadata as stored: parsed JSON, resolved through no registry.

This is the leaf layer of metadata. It imports nothing from the contracts
(:mod:`zarrforge.abc`), the registries or the engine, so it can be read,
compared, detected, listed and written back without any plugin installed.

* :class:`NodeDocument`: what a format's ``read_document`` returns: the
  node's type and its documents exactly as parsed (the content is the
  format's own: the ``zarr.json`` object for v3, the ``.zarray``/``.zgroup``
  and ``.zattrs`` objects for v2). Turning it into the resolved model the
  engine consumes is the format's ``resolve`` (:mod:`zarrforge.registries.resolution`
  holds the shared steps), and the only place plugins are loaded.
* :class:`ListedContent`: the content of a document read for a member listing:
  the few members the listing needs, kept parsed, and the stored bytes, parsed
  again only when anything else is asked for. A listing of thousands of members
  then keeps a bytes object per member instead of a tree of dicts and lists that
  the garbage collector would walk on every full collection. The entries of a large
  consolidated view are kept the same way, as their text in the document
  (:class:`~zarrforge.metadata.raw_json.RawJSON`), and written back from it.
* :class:`UnknownExtension`: an ``extensions`` entry that no installed
  plugin understands but that may be ignored; kept verbatim and written back.

Component values (a codec, a data type) are parsed into
:class:`~zarrforge.metadata.extension_def.ExtensionRef` (name, configuration,
must_understand) by :func:`~zarrforge.metadata.extension_def.parse_extension`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .json_io import load_document
from .raw_json import ABSENT_MEMBER, RawJSON

NODE_TYPES = ("array", "group")


@dataclasses.dataclass(frozen=True)
class NodeDocument:
    """The stored metadata of one node, unresolved.

    ``content`` is format-defined and must be treated as read-only; ``key`` is
    the store key of the node's main document, for error messages. It raises nothing.

    Parameters
    ----------
    format_name : str
        The name of the format that read it.
    node_type : str
        ``"array"`` or ``"group"``.
    key : str
        The store key of the node's main document.
    content : Mapping[str, Any]
        The documents as parsed (the format's own layout).

    Examples
    --------
    >>> document = NodeDocument("3", "group", "zarr.json", {"zarr_format": 3, "node_type": "group"})
    >>> document.node_type, document.content["zarr_format"]
    ('group', 3)
    """

    format_name: str
    node_type: str
    key: str
    content: Mapping[str, Any]


_ABSENT = ABSENT_MEMBER


class ListedContent(Mapping[str, Any]):
    """A JSON object document (see the module docstring): ``kept`` names the members
    answered without parsing ``data`` again (a kept member the document lacks is simply
    absent); anything else parses ``data`` once (as :func:`load_document` with
    ``allow_nan``) and answers from that. ``data`` must be what ``parsed`` came from.

    Parameters
    ----------
    data : bytes or RawJSON
        The document as stored.
    parsed : Mapping[str, Any]
        The document as parsed from ``data``; only the ``kept`` members are held.
    key : str
        The document's store key, named by errors.
    kept : Iterable[str]
        The members answered without parsing ``data`` again.

    Raises
    ------
    KeyError
        A member the document lacks is asked for.
    zarrforge.errors.MetadataError
        ``data``, parsed again for a member not kept, is not a valid JSON object (it
        cannot be, when it is what ``parsed`` came from).

    Examples
    --------
    >>> data = b'{"zarr_format": 3, "node_type": "array", "shape": [4]}'
    >>> parsed = load_document(data, key="a/zarr.json")
    >>> content = ListedContent(data, parsed, key="a/zarr.json", kept=("node_type",))
    >>> content["node_type"], content["shape"]  # the second parses ``data`` again
    ('array', [4])
    >>> "fill_value" in content, len(content)
    (False, 3)
    """

    __slots__ = ("_data", "_kept", "_key", "_parsed")

    def __init__(
        self, data: bytes | RawJSON, parsed: Mapping[str, Any], *, key: str, kept: Iterable[str]
    ) -> None:
        self._data = data
        self._key = key
        self._kept = {name: parsed.get(name, _ABSENT) for name in kept}
        self._parsed: Mapping[str, Any] | None = None

    @classmethod
    def of_raw(cls, raw: RawJSON, *, key: str) -> ListedContent:
        """The content of an object kept unparsed (:func:`load_document_keeping_raw`),
        its kept members answered without parsing it."""
        content = cls.__new__(cls)
        content._data, content._key, content._parsed = raw, key, None
        content._kept = raw.kept if raw.kept is not None else {}  # shared; read-only
        return content

    @property
    def raw(self) -> RawJSON | None:
        """The object's text when it was kept unparsed, written back as it is."""
        return self._data if isinstance(self._data, RawJSON) else None

    def _all(self) -> Mapping[str, Any]:
        if self._parsed is None:
            data = self._data
            self._parsed = load_document(
                data.text if isinstance(data, RawJSON) else data, key=self._key, allow_nan=True
            )
        return self._parsed

    def __getitem__(self, name: str) -> Any:
        kept = self._kept
        value = kept[name] if name in kept else self._all()[name]
        if value is _ABSENT:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


@dataclasses.dataclass(frozen=True)
class UnknownExtension:
    """An entry of ``extensions`` that no installed plugin understands but that says
    ``must_understand: false``: ignored, and written back exactly as it was read.
    It raises nothing.

    Parameters
    ----------
    document : Any
        The entry as read (a name string, or an object with ``name``).

    Examples
    --------
    >>> entry = UnknownExtension({"name": "x.note", "must_understand": False, "configuration": {}})
    >>> entry.name, entry.must_understand
    ('x.note', False)
    >>> entry.document["configuration"]
    {}
    """

    document: Any

    @property
    def name(self) -> str:
        return self.document if isinstance(self.document, str) else self.document.get("name", "")

    must_understand = False
