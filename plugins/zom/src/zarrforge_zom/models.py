"""ZEP 6 Zarr Object Models: ``ArraySpec`` and ``GroupSpec`` for Zarr v3 and v2.

A ZOM node holds the *structure* of a Zarr node: every property of its
metadata document, with user metadata under ``attributes``; a ZOM group adds
``members``, its children by name. Data is not part of the model.

Classes:

* :class:`ArraySpec` and :class:`GroupSpec` are the version-independent bases.
  ``GroupSpec.from_json(doc)`` and ``GroupSpec.from_zarr(url)`` return the
  concrete class for the version they find; ``isinstance(x, GroupSpec)`` holds
  for both versions.
* :class:`ArraySpecV3`, :class:`GroupSpecV3`: the ZEP's v3 models (the schema
  titles them ``ArraySpec`` and ``GroupSpec``).
* :class:`ArraySpecV2`, :class:`GroupSpecV2`: the ZEP's v2 models (titled
  ``Array`` and ``Group``).

Values are kept in their JSON form (``fill_value`` ``"NaN"``, codecs as
``{"name", "configuration"}`` objects), so a model means exactly what its JSON
says. ``shape``, ``chunks`` and ``dimension_names`` are tuples for
convenience and lists in JSON. Equality is JSON equality: ``1`` differs from
``1.0`` and from ``True``, and a ``NaN`` attribute equals ``NaN``.

The ``members`` renaming rule: if a Zarr group's metadata has a property called
``members``, its ZOM calls it ``_members`` (or ``__members`` if ``_members`` is
also a property, and so on: the fewest underscores that collide with nothing),
because ``members`` is the ZOM's own. :func:`to_zom_properties` applies the rule
and :func:`from_zom_properties` undoes it; see that function for the one case
the ZEP's rule leaves ambiguous.

v3 properties beyond the ZEP's list are kept: ``extensions`` (ZEP 10) as a
field, and fields marked ``"must_understand": false`` in ``extra``.

The models are the top of the package's layers: ``from_zarr``, ``to_zarr``,
``validate`` and ``diff`` use :mod:`.hierarchy` (which reads and writes the
documents of stored nodes) and :mod:`.diff`, and neither imports this module.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar

from zarrforge.errors import InvalidPathError
from zarrforge.hierarchy_api import paths

from .diff import Difference, diff
from .errors import SpecError
from .hierarchy import StoredNode, stored_nodes, to_zarr
from .jsonvalues import canonical, jsonify
from .schema import format_of, kind_of, validate_json

MEMBERS = "members"


# --- the members -> _members renaming rule ----------------------------------------------


def _underscored(count: int) -> str:
    return "_" * count + MEMBERS


def to_zom_properties(properties: Mapping[str, Any]) -> dict[str, Any]:
    """Zarr group properties -> ZOM group properties (rename ``members``, keep the rest)."""
    out = dict(properties)
    if MEMBERS not in out:
        return out
    value = out.pop(MEMBERS)
    count = 1
    while _underscored(count) in properties:
        count += 1
    out[_underscored(count)] = value
    return out


def from_zom_properties(properties: Mapping[str, Any]) -> dict[str, Any]:
    """ZOM group properties (without the ZOM's own ``members``) -> Zarr group properties.

    The renamed property is taken to be the last of the unbroken run ``_members``,
    ``__members``, ... This undoes :func:`to_zom_properties` whenever the Zarr
    group's own underscore-prefixed ``members`` properties form such a run, in
    particular whenever it has none. ZEP 6's rule maps a group with only
    ``_members`` and a group with only ``members`` to the same ZOM; such a ZOM
    reads back as ``members``.
    """
    out = dict(properties)
    count = 1
    while _underscored(count) in out:
        count += 1
    if count > 1:
        out[MEMBERS] = out.pop(_underscored(count - 1))
    return out


# --- field checks --------------------------------------------------------------------------


def _ints(value: Any, field: str, node: str) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value
    ):
        raise SpecError(f"must be a list of non-negative integers, got {value!r}", node=node, field=field)
    return tuple(int(v) for v in value)


def _object(value: Any, field: str, node: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise SpecError(f"must be a JSON object, got {value!r}", node=node, field=field)
    result: dict[str, Any] = jsonify(value, field)
    return result


# --- the base classes -----------------------------------------------------------------------


class Node:
    """What every ZOM node has: ``attributes``, a Zarr version and JSON I/O."""

    zarr_format: ClassVar[int]
    node_type: ClassVar[str]
    attributes: dict[str, Any]

    # JSON ------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The node's ZOM document (groups include their members)."""
        raise NotImplementedError

    def properties(self) -> dict[str, Any]:
        """The ZOM document without ``members``."""
        document = self.to_json()
        if isinstance(self, GroupSpec):
            document.pop(MEMBERS)
        return document

    @classmethod
    def from_json(cls, document: Any, *, validate: bool = True) -> Node:
        """Build a model from a ZOM document.

        The Zarr version and node kind are read from the document; called on a
        concrete class, the document must be of that class. ``validate`` checks
        the document against the (corrected) ZEP 6 schema first and raises
        :class:`~zarrforge_zom.errors.SchemaValidationError` listing every issue.
        """
        zarr_format = format_of(document)
        target = _CLASSES[(zarr_format, kind_of(document, zarr_format))]
        if not issubclass(target, cls):
            raise SpecError(f"the document is a Zarr v{zarr_format} {target.node_type}, not a {cls.__name__}")
        if validate:
            validate_json(document, zarr_format=zarr_format)
        return target._from_json(document, "/")

    @classmethod
    def _from_json(cls, document: Mapping[str, Any], node: str) -> Node:
        raise NotImplementedError

    def to_json_string(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_json(), indent=indent, allow_nan=True)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Node) or type(self) is not type(other):
            return NotImplemented
        return canonical(self.to_json()) == canonical(other.to_json())

    __hash__ = None  # type: ignore[assignment]  # models are mutable

    # hierarchies and differences (the services of .hierarchy and .diff) --------------------

    @classmethod
    def from_zarr(
        cls, node_or_url: Any, path: str = "", *, storage_options: dict[str, Any] | None = None
    ) -> Node:
        """The model of an existing array or group (a zarrforge node, a store or a URL).

        Walks the hierarchy once; a group with consolidated metadata is read from it,
        so a whole hierarchy costs one metadata read.
        """
        spec = _from_stored(stored_nodes(node_or_url, path, storage_options=storage_options))
        if not isinstance(spec, cls):
            raise SpecError(f"the node is a Zarr v{spec.zarr_format} {spec.node_type}, not a {cls.__name__}")
        return spec

    def to_zarr(
        self,
        store: Any,
        path: str = "",
        *,
        overwrite: bool = False,
        consolidate: bool = False,
        storage_options: dict[str, Any] | None = None,
    ) -> Any:
        """Create the hierarchy this model describes at ``path`` of ``store``; returns the
        root node. Refuses to replace existing nodes unless ``overwrite``."""
        return to_zarr(
            self, store, path, overwrite=overwrite, consolidate=consolidate, storage_options=storage_options
        )

    def validate(
        self, node_or_url: Any, path: str = "", *, storage_options: dict[str, Any] | None = None
    ) -> list[Difference]:
        """Every :class:`~zarrforge_zom.diff.Difference` between this model (expected) and
        the hierarchy at ``node_or_url`` (found); empty when it matches."""
        return diff(self, Node.from_zarr(node_or_url, path, storage_options=storage_options))

    def diff(self, other: Node) -> list[Difference]:
        """Every difference between this model (expected) and ``other`` (found)."""
        return diff(self, other)

    # format documents ----------------------------------------------------------------------

    def documents(self) -> dict[str, Any]:
        """The node's metadata documents in its format, keyed by name
        (``zarr.json``; or ``.zarray``/``.zgroup`` and ``.zattrs``). Members excluded."""
        raise NotImplementedError

    @classmethod
    def _from_documents(cls, documents: Mapping[str, Any], node: str) -> Node:
        """The model (without members) of the documents :meth:`documents` gives."""
        raise NotImplementedError


class ArraySpec(Node):
    """A ZOM array (either Zarr version)."""

    node_type = "array"


class GroupSpec(Node):
    """A ZOM group (either Zarr version): properties, attributes and ``members``."""

    node_type = "group"
    members: dict[str, Node]

    def _check_members(self, node: str) -> None:
        checked = {}
        for name, member in dict(self.members).items():
            try:
                paths.validate_name(name)
            except InvalidPathError as exc:
                raise SpecError(str(exc), node=node, field=f"members[{name!r}]") from None
            if isinstance(member, Mapping):
                member = Node.from_json(member)
            if not isinstance(member, Node):
                raise SpecError(
                    f"a member must be an ArraySpec or a GroupSpec, got {member!r}",
                    node=node,
                    field=f"members[{name!r}]",
                )
            if member.zarr_format != self.zarr_format:
                raise SpecError(
                    f"a Zarr v{self.zarr_format} group cannot hold a Zarr v{member.zarr_format} node",
                    node=node,
                    field=f"members[{name!r}]",
                )
            checked[name] = member
        self.members = checked

    def _members_from_json(self, members: Any, node: str) -> dict[str, Node]:
        if not isinstance(members, Mapping):
            raise SpecError(f"must be an object, got {members!r}", node=node, field=MEMBERS)
        out: dict[str, Node] = {}
        for name, child in members.items():
            where = f"{node.rstrip('/')}/{name}"
            if not isinstance(child, Mapping):
                raise SpecError(f"a member is a JSON object, got {child!r}", node=where)
            child_format = (
                format_of(child)
                if ("zarr_format" in child or "zarr_version" in child or "node_type" in child)
                else self.zarr_format
            )
            if child_format != self.zarr_format:
                raise SpecError(
                    f"a Zarr v{self.zarr_format} group cannot hold a Zarr v{child_format} node", node=where
                )
            cls = _CLASSES[(child_format, kind_of(child, child_format))]
            out[name] = cls._from_json(child, where)
        return out

    def walk(self) -> Iterator[tuple[str, Node]]:
        """``(relative path, node)`` for this group (``""``) and everything below it,
        parents before children, members in their order."""
        yield "", self
        for name, member in self.members.items():
            if isinstance(member, GroupSpec):
                for sub, node in member.walk():
                    yield (f"{name}/{sub}" if sub else name), node
            else:
                yield name, member

    def flatten(self) -> dict[str, Node]:
        """The hierarchy as ``{"/": root, "/a": ..., "/a/b": ...}``, groups without
        members: the shape of consolidated metadata (ZEP 6's flattening)."""
        return {"/" + path: _without_members(node) for path, node in self.walk()}

    @classmethod
    def from_flat(cls, flat: Mapping[str, Node]) -> GroupSpec:
        """Rebuild a hierarchy from :meth:`flatten`'s form; every parent must be listed."""
        entries = {paths.normalize_path(p): node for p, node in flat.items()}
        if "" not in entries or not isinstance(entries[""], GroupSpec):
            raise SpecError("a flat hierarchy needs a group at '/'")
        built = {p: _without_members(node) for p, node in entries.items()}
        for path in sorted(built, key=lambda p: (p.count("/"), p)):
            if not path:
                continue
            parent = built.get(paths.parent_of(path))
            if not isinstance(parent, GroupSpec):
                raise SpecError("its parent is not a group in the flat hierarchy", node="/" + path)
            parent.members[paths.basename(path)] = built[path]
            parent._check_members("/" + paths.parent_of(path))
        root = built[""]
        if not isinstance(root, cls):
            raise SpecError(f"the root is a {type(root).__name__}, not a {cls.__name__}")
        return root


def _without_members(node: Node) -> Node:
    if isinstance(node, GroupSpec):
        return dataclasses.replace(node, members={})  # type: ignore[type-var]
    return dataclasses.replace(node)  # type: ignore[type-var]


# --- Zarr v3 ---------------------------------------------------------------------------------

_V3_ARRAY_FIELDS = (
    "zarr_format",
    "node_type",
    "attributes",
    "shape",
    "data_type",
    "chunk_grid",
    "chunk_key_encoding",
    "fill_value",
    "codecs",
    "storage_transformers",
    "dimension_names",
    "extensions",
)
_V3_ARRAY_REQUIRED = ("shape", "data_type", "chunk_grid", "chunk_key_encoding", "fill_value", "codecs")
_V3_GROUP_FIELDS = ("zarr_format", "node_type", "attributes", "extensions")


def _check_extra(extra: Mapping[str, Any], known: tuple[str, ...], node: str) -> dict[str, Any]:
    out = jsonify(extra, "extra")
    for key in out:
        if key in known:
            raise SpecError(
                f"{key!r} is a field of the model, not an extra property", node=node, field="extra"
            )
    result: dict[str, Any] = out
    return result


@dataclasses.dataclass(eq=False)
class ArraySpecV3(ArraySpec):
    """A Zarr v3 array: the properties of its ``zarr.json`` document."""

    shape: tuple[int, ...]
    data_type: Any
    chunk_grid: dict[str, Any]
    chunk_key_encoding: dict[str, Any]
    fill_value: Any
    codecs: list[dict[str, Any]]
    attributes: dict[str, Any] = dataclasses.field(default_factory=dict)
    storage_transformers: list[dict[str, Any]] | None = None
    dimension_names: tuple[str | None, ...] | None = None
    extensions: list[Any] | None = None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    zarr_format: ClassVar[int] = 3

    def __post_init__(self) -> None:
        self.shape = _ints(self.shape, "shape", "/")
        self.data_type = jsonify(self.data_type, "data_type")
        self.chunk_grid = _object(self.chunk_grid, "chunk_grid", "/")
        self.chunk_key_encoding = _object(self.chunk_key_encoding, "chunk_key_encoding", "/")
        self.fill_value = jsonify(self.fill_value, "fill_value")
        self.codecs = jsonify(list(self.codecs), "codecs")
        self.attributes = _object(self.attributes, "attributes", "/")
        if self.storage_transformers is not None:
            self.storage_transformers = jsonify(list(self.storage_transformers), "storage_transformers")
        if self.dimension_names is not None:
            self.dimension_names = tuple(jsonify(list(self.dimension_names), "dimension_names"))
        if self.extensions is not None:
            self.extensions = jsonify(list(self.extensions), "extensions")
        self.extra = _check_extra(self.extra, _V3_ARRAY_FIELDS, "/")

    def to_json(self) -> dict[str, Any]:
        document = {
            "zarr_format": 3,
            "node_type": "array",
            "attributes": jsonify(self.attributes),
            "shape": list(self.shape),
            "data_type": jsonify(self.data_type),
            "chunk_grid": jsonify(self.chunk_grid),
            "chunk_key_encoding": jsonify(self.chunk_key_encoding),
            "fill_value": jsonify(self.fill_value),
            "codecs": jsonify(self.codecs),
            "storage_transformers": jsonify(self.storage_transformers),
            "dimension_names": (list(self.dimension_names) if self.dimension_names is not None else None),
        }
        if self.extensions is not None:
            document["extensions"] = jsonify(self.extensions)
        document.update(jsonify(self.extra))
        return document

    @classmethod
    def _from_json(cls, document: Mapping[str, Any], node: str) -> ArraySpecV3:
        missing = [f for f in _V3_ARRAY_REQUIRED if f not in document]
        if missing:
            raise SpecError(f"a Zarr v3 array lacks {missing}", node=node, field=missing[0])
        try:
            return cls(
                shape=_ints(document["shape"], "shape", node),
                data_type=document["data_type"],
                chunk_grid=_object(document["chunk_grid"], "chunk_grid", node),
                chunk_key_encoding=_object(document["chunk_key_encoding"], "chunk_key_encoding", node),
                fill_value=document["fill_value"],
                codecs=document["codecs"],
                attributes=_object(document.get("attributes", {}), "attributes", node),
                storage_transformers=document.get("storage_transformers"),
                dimension_names=document.get("dimension_names"),
                extensions=document.get("extensions"),
                extra={k: v for k, v in document.items() if k not in _V3_ARRAY_FIELDS},
            )
        except SpecError as exc:
            raise exc.at(node) from None

    def documents(self) -> dict[str, Any]:
        document = {
            k: v
            for k, v in self.to_json().items()
            if not (k in ("storage_transformers", "dimension_names") and v is None)
        }
        return {"zarr.json": document}

    @classmethod
    def _from_documents(cls, documents: Mapping[str, Any], node: str) -> ArraySpecV3:
        return cls._from_json(documents["zarr.json"], node)


@dataclasses.dataclass(eq=False)
class GroupSpecV3(GroupSpec):
    """A Zarr v3 group: ``attributes``, its ``zarr.json`` properties, and ``members``."""

    attributes: dict[str, Any] = dataclasses.field(default_factory=dict)
    members: dict[str, Node] = dataclasses.field(default_factory=dict)
    extensions: list[Any] | None = None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    zarr_format: ClassVar[int] = 3

    def __post_init__(self) -> None:
        self.attributes = _object(self.attributes, "attributes", "/")
        if self.extensions is not None:
            self.extensions = jsonify(list(self.extensions), "extensions")
        self.extra = _check_extra(self.extra, _V3_GROUP_FIELDS, "/")
        self._check_members("/")

    def _zarr_properties(self) -> dict[str, Any]:
        properties: dict[str, Any] = {
            "zarr_format": 3,
            "node_type": "group",
            "attributes": jsonify(self.attributes),
        }
        if self.extensions is not None:
            properties["extensions"] = jsonify(self.extensions)
        properties.update(jsonify(self.extra))
        return properties

    def to_json(self) -> dict[str, Any]:
        document = to_zom_properties(self._zarr_properties())
        document[MEMBERS] = {name: member.to_json() for name, member in self.members.items()}
        return document

    @classmethod
    def _from_json(cls, document: Mapping[str, Any], node: str) -> GroupSpecV3:
        properties = from_zom_properties({k: v for k, v in document.items() if k != MEMBERS})
        group = cls(
            attributes=_object(properties.get("attributes", {}), "attributes", node),
            extensions=properties.get("extensions"),
            extra={k: v for k, v in properties.items() if k not in _V3_GROUP_FIELDS},
        )
        group.members = group._members_from_json(document.get(MEMBERS, {}), node)
        return group

    def documents(self) -> dict[str, Any]:
        return {"zarr.json": self._zarr_properties()}

    @classmethod
    def _from_documents(cls, documents: Mapping[str, Any], node: str) -> GroupSpecV3:
        return cls._from_json({**to_zom_properties(documents["zarr.json"]), MEMBERS: {}}, node)


# --- Zarr v2 ---------------------------------------------------------------------------------

_V2_ARRAY_FIELDS = (
    "zarr_format",
    "zarr_version",
    "attributes",
    "shape",
    "chunks",
    "dtype",
    "compressor",
    "fill_value",
    "order",
    "filters",
    "dimension_separator",
)
_V2_GROUP_FIELDS = ("zarr_format", "zarr_version", "attributes", MEMBERS)


def _check_v2_keys(document: Mapping[str, Any], known: tuple[str, ...], node: str) -> None:
    unknown = sorted(set(document) - set(known))
    if unknown:
        raise SpecError(f"Zarr v2 ZOM nodes have no properties {unknown}", node=node, field=unknown[0])
    version = document.get("zarr_format", document.get("zarr_version", 2))
    if version != 2:
        raise SpecError(f"expected 2, got {version!r}", node=node, field="zarr_format")


@dataclasses.dataclass(eq=False)
class ArraySpecV2(ArraySpec):
    """A Zarr v2 array: the properties of its ``.zarray`` document, and ``.zattrs``."""

    shape: tuple[int, ...]
    chunks: tuple[int, ...]
    dtype: Any
    compressor: dict[str, Any] | None = None
    fill_value: Any = None
    order: str = "C"
    filters: list[dict[str, Any]] | None = None
    dimension_separator: str = "."
    attributes: dict[str, Any] = dataclasses.field(default_factory=dict)

    zarr_format: ClassVar[int] = 2

    def __post_init__(self) -> None:
        self.shape = _ints(self.shape, "shape", "/")
        self.chunks = _ints(self.chunks, "chunks", "/")
        self.dtype = jsonify(self.dtype, "dtype")
        if self.compressor is not None:
            self.compressor = _object(self.compressor, "compressor", "/")
        self.fill_value = jsonify(self.fill_value, "fill_value")
        if isinstance(self.fill_value, float) and not math.isfinite(self.fill_value):
            # v2 documents spell these as strings
            self.fill_value = (
                "NaN" if math.isnan(self.fill_value) else "Infinity" if self.fill_value > 0 else "-Infinity"
            )
        if self.order not in ("C", "F"):
            raise SpecError(f"must be 'C' or 'F', got {self.order!r}", field="order")
        if self.filters is not None:
            self.filters = jsonify(list(self.filters), "filters")
        if self.dimension_separator not in (".", "/"):
            raise SpecError(
                f"must be '.' or '/', got {self.dimension_separator!r}", field="dimension_separator"
            )
        self.attributes = _object(self.attributes, "attributes", "/")

    def _zarray(self) -> dict[str, Any]:
        return {
            "zarr_format": 2,
            "shape": list(self.shape),
            "chunks": list(self.chunks),
            "dtype": jsonify(self.dtype),
            "compressor": jsonify(self.compressor),
            "fill_value": jsonify(self.fill_value),
            "order": self.order,
            "filters": jsonify(self.filters),
            "dimension_separator": self.dimension_separator,
        }

    def to_json(self) -> dict[str, Any]:
        document = self._zarray()
        document["attributes"] = jsonify(self.attributes)
        return document

    @classmethod
    def _from_json(cls, document: Mapping[str, Any], node: str) -> ArraySpecV2:
        _check_v2_keys(document, _V2_ARRAY_FIELDS, node)
        missing = [f for f in ("shape", "chunks", "dtype") if f not in document]
        if missing:
            raise SpecError(f"a Zarr v2 array lacks {missing}", node=node, field=missing[0])
        try:
            return cls(
                shape=document["shape"],
                chunks=document["chunks"],
                dtype=document["dtype"],
                compressor=document.get("compressor"),
                fill_value=document.get("fill_value"),
                order=document.get("order", "C"),
                filters=document.get("filters"),
                dimension_separator=document.get("dimension_separator", "."),
                attributes=document.get("attributes", {}),
            )
        except SpecError as exc:
            raise exc.at(node) from None

    def documents(self) -> dict[str, Any]:
        return {".zarray": self._zarray(), ".zattrs": jsonify(self.attributes)}

    @classmethod
    def _from_documents(cls, documents: Mapping[str, Any], node: str) -> ArraySpecV2:
        return cls._from_json({**documents[".zarray"], "attributes": documents.get(".zattrs", {})}, node)


@dataclasses.dataclass(eq=False)
class GroupSpecV2(GroupSpec):
    """A Zarr v2 group: ``.zattrs`` as ``attributes``, and ``members``."""

    attributes: dict[str, Any] = dataclasses.field(default_factory=dict)
    members: dict[str, Node] = dataclasses.field(default_factory=dict)

    zarr_format: ClassVar[int] = 2

    def __post_init__(self) -> None:
        self.attributes = _object(self.attributes, "attributes", "/")
        self._check_members("/")

    def to_json(self) -> dict[str, Any]:
        return {
            "zarr_format": 2,
            "attributes": jsonify(self.attributes),
            MEMBERS: {name: member.to_json() for name, member in self.members.items()},
        }

    @classmethod
    def _from_json(cls, document: Mapping[str, Any], node: str) -> GroupSpecV2:
        _check_v2_keys(document, _V2_GROUP_FIELDS, node)
        group = cls(attributes=_object(document.get("attributes", {}), "attributes", node))
        group.members = group._members_from_json(document.get(MEMBERS, {}), node)
        return group

    def documents(self) -> dict[str, Any]:
        return {".zgroup": {"zarr_format": 2}, ".zattrs": jsonify(self.attributes)}

    @classmethod
    def _from_documents(cls, documents: Mapping[str, Any], node: str) -> GroupSpecV2:
        return cls._from_json(
            {**documents[".zgroup"], "attributes": documents.get(".zattrs", {}), MEMBERS: {}}, node
        )


_CLASSES: dict[tuple[int, str], type[Node]] = {
    (3, "array"): ArraySpecV3,
    (3, "group"): GroupSpecV3,
    (2, "array"): ArraySpecV2,
    (2, "group"): GroupSpecV2,
}


def _from_stored(stored: Iterable[StoredNode]) -> Node:
    """The model of a walk of :func:`~zarrforge_zom.hierarchy.stored_nodes`: its first
    node, with every later node put in its parent's ``members``."""
    walk = iter(stored)
    first = next(walk)
    root = _CLASSES[(first.zarr_format, first.node_type)]._from_documents(first.documents, first.name)
    groups: dict[str, GroupSpec] = {"": root} if isinstance(root, GroupSpec) else {}
    for item in walk:
        spec = _CLASSES[(item.zarr_format, item.node_type)]._from_documents(item.documents, item.name)
        groups[paths.parent_of(item.path)].members[paths.basename(item.path)] = spec
        if isinstance(spec, GroupSpec):
            groups[item.path] = spec
    return root


def from_json(document: Any, *, validate: bool = True) -> Node:
    """The model of a ZOM document of either Zarr version, array or group."""
    return Node.from_json(document, validate=validate)


def from_zarr(node_or_url: Any, path: str = "", *, storage_options: dict[str, Any] | None = None) -> Node:
    """The model of the array or group at ``node_or_url`` (and ``path``): a zarrforge
    node, a store or a URL. The same as ``Node.from_zarr``."""
    return Node.from_zarr(node_or_url, path, storage_options=storage_options)
