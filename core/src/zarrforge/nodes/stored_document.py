"""A node's metadata document as ``Array.metadata`` / ``Group.metadata`` hand it out.

The value is the document as stored, a ``dict`` (equal to the JSON, dumped as it is), and
it also answers the attribute names of zarr-python 3's metadata objects, so code written
for zarr-python (``group.metadata.consolidated_metadata.metadata``, ``array.metadata.
zarr_format``) reads the same facts from it:

* every format: ``zarr_format``, ``node_type``, ``attributes``, ``to_dict()``;
* arrays: ``shape`` and ``chunks`` (tuples), ``ndim``, ``fill_value``; v3: ``data_type``,
  ``chunk_grid``, ``chunk_key_encoding``, ``codecs``, ``dimension_names``,
  ``storage_transformers``; v2: ``dtype``, ``order``, ``filters``, ``compressor``,
  ``dimension_separator``;
* groups: ``consolidated_metadata``, ``None`` when the document holds no consolidated
  view, else a :class:`ConsolidatedDocument` whose ``metadata`` maps each member's path
  to its document (a :class:`StoredDocument` too).

Values are the document's JSON (a data type's name, a codec's JSON object), where
zarr-python's are its own objects: zarrforge has no metadata classes of zarr-python's.
A name the document does not hold is an ``AttributeError`` naming those it does. A v2
node's document is the dict of its files (``.zarray`` or ``.zgroup``, and ``.zattrs``);
the attributes read the file that holds each fact.
"""

from __future__ import annotations

from typing import Any

# zarr-python's attribute name -> the document's member, for members read as they are
_V3_MEMBERS = {
    "data_type": "data_type",
    "chunk_grid": "chunk_grid",
    "chunk_key_encoding": "chunk_key_encoding",
    "codecs": "codecs",
    "dimension_names": "dimension_names",
    "fill_value": "fill_value",
    "storage_transformers": "storage_transformers",
}
_V2_MEMBERS = {
    "dtype": "dtype",
    "order": "order",
    "filters": "filters",
    "compressor": "compressor",
    "dimension_separator": "dimension_separator",
    "fill_value": "fill_value",
}


class StoredDocument(dict):
    """A metadata document (a ``dict``) answering zarr-python's metadata attribute names."""

    __slots__ = ()

    def _v2_file(self) -> dict[str, Any] | None:
        for name in (".zarray", ".zgroup"):
            found = self.get(name)
            if isinstance(found, dict):
                return found
        return None

    def _body(self) -> dict[str, Any]:
        """The part of the document holding the node's own facts."""
        return self._v2_file() or self

    @property
    def zarr_format(self) -> Any:
        return self._body().get("zarr_format")

    @property
    def node_type(self) -> str | None:
        if ".zarray" in self:
            return "array"
        if ".zgroup" in self:
            return "group"
        kind = self.get("node_type")
        return kind if isinstance(kind, str) else None

    @property
    def attributes(self) -> dict[str, Any]:
        found = self.get(".zattrs") if self._v2_file() is not None else self.get("attributes")
        return found if isinstance(found, dict) else {}

    # shape, ndim and chunks are answered by __getattr__ (not properties), so that an
    # AttributeError naming what the document holds reaches the caller as raised
    def _shape(self) -> tuple[Any, ...]:
        return tuple(self._array_member("shape"))

    def _ndim(self) -> int:
        return len(self._shape())

    def _chunks(self) -> tuple[Any, ...]:
        body = self._body()
        if "chunks" in body:  # v2
            return tuple(body["chunks"])
        grid = self._array_member("chunk_grid")
        configuration = grid.get("configuration", {}) if isinstance(grid, dict) else {}
        if "chunk_shape" not in configuration:
            raise AttributeError(f"the array's chunk grid {grid!r} has no single chunk shape")
        return tuple(configuration["chunk_shape"])

    @property
    def consolidated_metadata(self) -> ConsolidatedDocument | None:
        found = self._body().get("consolidated_metadata")
        return ConsolidatedDocument(found) if isinstance(found, dict) else None

    def to_dict(self) -> dict[str, Any]:
        """The document as a plain ``dict`` (zarr-python's name)."""
        return dict(self)

    def _array_member(self, name: str) -> Any:
        body = self._body()
        if name not in body:
            raise AttributeError(
                f"the {self.node_type or 'node'}'s metadata document has no {name!r}; it holds {sorted(body)}"
            )
        return body[name]

    def __getattr__(self, name: str) -> Any:
        computed = _COMPUTED.get(name)
        if computed is not None:
            return computed(self)
        member = (_V2_MEMBERS if self._v2_file() is not None else _V3_MEMBERS).get(name)
        if member is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return self._array_member(member)


_COMPUTED = {"shape": StoredDocument._shape, "ndim": StoredDocument._ndim, "chunks": StoredDocument._chunks}


class ConsolidatedDocument(dict):
    """A group's consolidated view as its document stores it (``kind``,
    ``must_understand``, ``metadata``), with those members as attributes."""

    __slots__ = ()

    @property
    def kind(self) -> Any:
        return self.get("kind")

    @property
    def must_understand(self) -> Any:
        return self.get("must_understand")

    @property
    def metadata(self) -> dict[str, StoredDocument]:
        members = self.get("metadata")
        if not isinstance(members, dict):
            return {}
        return {
            path: StoredDocument(document) for path, document in members.items() if isinstance(document, dict)
        }

    def to_dict(self) -> dict[str, Any]:
        return dict(self)
