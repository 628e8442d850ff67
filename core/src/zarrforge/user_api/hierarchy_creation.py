"""zarr-python's ``create_hierarchy``: many nodes from their metadata, written together.

``create_hierarchy(store=, nodes={path: metadata}, overwrite=False)`` is a generator, as
zarr-python's synchronous one is: nothing happens until it is iterated, and then every
node is checked and built before the first write, written, and yielded as
``(path, Array | Group)``, parents before their members.

Each value of ``nodes`` is a node's metadata: its JSON document as a dict, as it is
stored (a ``zarr.json`` object; a v2 ``.zarray`` or ``.zgroup`` object, with its
attributes, if any, under ``"attributes"`` as zarr-python's ``to_dict()`` puts them), or
an object with a ``to_dict()`` giving one (zarr-python's ``GroupMetadata``,
``ArrayV3Metadata``, ``ArrayV2Metadata``). ``zarr_format`` in each document chooses the
format; all nodes must share one. The installed format reads each document as it would
from a store, so what it would refuse there is refused here, naming ``nodes[path]``.

As zarr-python does:

* keys are node paths (a leading ``/`` is dropped; ``""`` is the root);
* the groups a path implies (the root, and every ancestor not in ``nodes``) are created
  where missing; an implied group that exists already is left as it is (its attributes
  kept), unless a node given above it is replaced;
* an array given where another node is below it is a ``ValueError``;
* a node in ``nodes`` where one exists is refused (``ContainsArrayError`` /
  ``ContainsGroupError``, or ``ContainsNodeError``) unless ``overwrite=True``, which
  replaces it and everything below it; so is an array (or a node of another format)
  where a group is implied.

Nothing is written before every node is built and every conflict found; if a write fails,
what this call wrote is removed again (:func:`~zarrforge.nodes.node_writing.write_prepared`;
what ``overwrite`` erased is not brought back).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from typing import Any

from ..abc.format import Format
from ..abc.metadata import NodeMetadata
from ..errors import InvalidPathError, MetadataError
from ..metadata import paths
from ..nodes import hierarchy
from ..nodes.node import open_node
from ..nodes.node_writing import NewNode, prepare_nodes, write_prepared
from ..storing.read_memo import ReadMemo
from ..storing.storage import StoreLike, resolve_location, resolve_store
from .arrays import Array
from .groups import Group

_FUNCTION = "zarrforge.create_hierarchy()"
_VALUES = (
    "a node's metadata document (a dict as stored in zarr.json, .zarray or .zgroup) "
    "or an object with to_dict() such as zarr-python's GroupMetadata or "
    "ArrayV3Metadata"
)


@dataclasses.dataclass(frozen=True)
class _Given:
    """A node of ``nodes``: its format and model, read from the caller's document."""

    fmt: Format
    metadata: NodeMetadata


def create_hierarchy(
    *, store: StoreLike, nodes: Mapping[str, Any], overwrite: bool = False
) -> Iterator[tuple[str, Array | Group]]:
    """Create the nodes of ``nodes`` and the groups their paths imply; yield each created
    node as ``(path, Array or Group)``, parents first. See the module docstring.

    Parameters
    ----------
    store
        Where to create the nodes (any store-like; a URL pipeline's path is the root).
    nodes : Mapping[str, Any]
        Node paths to their metadata documents (JSON objects, or objects with ``to_dict``).
    overwrite : bool
        Replace nodes already at those paths.

    Yields
    ------
    tuple of (str, zarrforge.Array or zarrforge.Group)
        Each created node's path and the node, open for writing, parents first.

    Raises
    ------
    zarrforge.errors.MetadataError
        A document is not a valid document of its format.
    zarrforge.errors.ContainsNodeError
        A node is at one of the paths and ``overwrite`` is false.
    """
    if not isinstance(nodes, Mapping):
        raise TypeError(
            f"{_FUNCTION}: nodes must be a dict of node paths to metadata, got {type(nodes).__name__}"
        )
    location = resolve_location(store, "")
    given = {_path(key): _read(key, value) for key, value in nodes.items()}
    if not given:
        return
    fmt = _one_format(given, location.zarr_format)
    created = _write(location.store, fmt, location.path, given, overwrite)
    for path in created:
        full = paths.join(location.path, path) if path else location.path
        yield path, open_node(location.store, full, mode="r+", fmt=fmt)


def _path(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"{_FUNCTION}: nodes keys are node paths (str), got {key!r}")
    try:
        return paths.normalize_path(key.lstrip("/"))
    except InvalidPathError as exc:
        raise ValueError(f"{_FUNCTION}: nodes key {key!r} is not a node path: {exc}") from None


def _document(key: str, value: Any) -> dict[str, Any]:
    """``value`` as a JSON object (tuples become lists, as in a stored document)."""
    if not isinstance(value, Mapping) and callable(getattr(value, "to_dict", None)):
        value = value.to_dict()
    if not isinstance(value, Mapping):
        raise TypeError(
            f"{_FUNCTION}: nodes[{key!r}] is {type(value).__name__} {value!r:.80}; give {_VALUES}"
        )
    try:
        document = json.loads(json.dumps(value, allow_nan=True))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{_FUNCTION}: nodes[{key!r}] is not a JSON document: {exc}") from None
    return document


def _read(key: str, value: Any) -> _Given:
    """The format and model of the node ``value`` describes, read by its format as from a
    store (a scratch one in memory) so that it is checked as a stored document is."""
    document = _document(key, value)
    zarr_format = document.get("zarr_format")
    try:
        fmt = hierarchy.get_format(str(zarr_format))
    except Exception as exc:  # noqa: BLE001  # an unknown or uninstalled format, said below
        raise ValueError(
            f"{_FUNCTION}: nodes[{key!r}] has zarr_format={zarr_format!r}, "
            f"which no installed format is: {exc}"
        ) from None
    node_type = document.get("node_type", "array" if "shape" in document else "group")
    if node_type not in ("array", "group"):
        raise ValueError(f"{_FUNCTION}: nodes[{key!r}] has node_type={node_type!r}; give 'array' or 'group'")
    attributes = document.pop("attributes", None) or {}
    if fmt.document_key("", "array") != fmt.document_key("", "group"):
        document.pop("node_type", None)  # the document's name says it (v2's .zarray/.zgroup)
    scratch = resolve_store({})
    scratch.set(fmt.document_key("", node_type) or "", json.dumps(document).encode())
    try:
        found = fmt.read_document(scratch, "")
        if found is None or found.node_type != node_type:
            raise MetadataError(f"not a Zarr {fmt.name} {node_type} document", value=document)
        metadata = fmt.resolve(found)
        if not isinstance(attributes, dict):
            raise MetadataError("must be a JSON object", field="attributes", value=attributes)
        if attributes:
            metadata = fmt.with_attributes(metadata, attributes)
        fmt.render(metadata)  # what the format could not write fails now
    except MetadataError as exc:
        raise MetadataError(
            f"{_FUNCTION}: nodes[{key!r}]: {exc.message}", field=exc.field, value=exc.value
        ) from exc
    return _Given(fmt, metadata)


def _one_format(given: Mapping[str, _Given], chosen: str | None) -> Format:
    by_format: dict[str, list[str]] = {}
    for path, node in given.items():
        by_format.setdefault(node.fmt.name, []).append(path)
    if len(by_format) > 1:
        listed = "; ".join(f"Zarr {name}: {sorted(keys)}" for name, keys in by_format.items())
        raise ValueError(f"{_FUNCTION}: the nodes mix formats ({listed}); a hierarchy has one")
    fmt = next(iter(given.values())).fmt
    if chosen is not None and chosen != fmt.name:
        raise ValueError(
            f"{_FUNCTION}: the store's URL names format {chosen!r}, the nodes are Zarr {fmt.name}"
        )
    return fmt


def _ancestors(path: str) -> list[str]:
    """The paths above ``path``, the root first."""
    found = []
    while path:
        path = paths.parent_of(path)
        found.append(path)
    return list(reversed(found))


def _depth(path: str) -> tuple[int, str]:
    return (path.count("/") + 1 if path else 0, path)


def _write(store: Any, fmt: Format, base: str, given: dict[str, _Given], overwrite: bool) -> list[str]:
    """Check, then write, the nodes of ``given`` and the groups they imply, below ``base``;
    the paths created (relative to ``base``), parents first."""
    for path in given:
        for above in _ancestors(path):
            if above in given and given[above].metadata.node_type != "group":
                raise ValueError(
                    f"{_FUNCTION}: nodes[{above!r}] is an array, but nodes[{path!r}] "
                    "is below it; only groups hold other nodes"
                )
    implied = {above for path in given for above in _ancestors(path)} - given.keys()
    memo = ReadMemo(store)
    full = lambda path: paths.join(base, path) if path else base  # noqa: E731

    def kept(path: str) -> bool:
        """An implied group already there, and not erased by a node replaced above it."""
        if any(above in given for above in _ancestors(path)):
            return False
        try:
            document = fmt.read_document(memo, full(path))
        except MetadataError:
            return False  # a broken document: replaced (overwrite) or refused, below
        return document is not None and document.node_type == "group"

    created = sorted(given.keys() | {path for path in implied if not kept(path)}, key=_depth)
    models = {path: given[path].metadata if path in given else fmt.new_group() for path in created}
    for path, node in given.items():
        if node.metadata.node_type == "array":
            Array._validated(memo, full(path), node.metadata, fmt)  # the codec chain fits
    tops: dict[str, list[str]] = {}
    for path in created:
        top = path
        while top and paths.parent_of(top) in models:
            top = paths.parent_of(top)
        tops.setdefault(top, []).append(path)
    units = [
        prepare_nodes(
            memo, fmt, full(top), [NewNode(full(p), models[p]) for p in members], overwrite=overwrite
        )
        for top, members in tops.items()
    ]
    write_prepared(units, operation="create_hierarchy")
    return created
