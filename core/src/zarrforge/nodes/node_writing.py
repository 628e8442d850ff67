"""Writing new nodes: the one service that creation, copying and the object model's
``to_zarr`` use to put nodes into a hierarchy.

:func:`write_nodes` takes nodes already built and rendered by one format (a single
node, or a tree: its root first, every other node below the root and after its
parent) and writes them whole or not at all:

* Before the first write it refuses, with nothing written, what would make the
  write fail or mix formats: a read-only store, a node at the root or at any
  other planned path (of any installed format) unless ``overwrite``, an ancestor
  that is an array, a node of another format at or above the root
  (:func:`zarrforge.nodes.hierarchy.survey`), and a document no installed format reads
  at a planned path (unless ``overwrite``) or above the root (always:
  :mod:`zarrforge.nodes.unreadable`).
* It then erases what the write replaces (``overwrite``: the node at the root, or,
  where a killed write left its marker and no node there, every key below the root),
  writes the missing parent groups and the nodes top-down, and updates the
  consolidated views of the ancestors that have one. The marker at the root stays
  through the erasure (:meth:`zarrforge.storing.unfinished.Marking.sparing`), and an
  erasure that fails partway keeps it: the old node, neither whole nor gone, is marked.
* If any of that fails, it removes every document it wrote, takes its nodes out of
  the views again, and re-raises: the hierarchy holds the nodes it held before.
  What ``overwrite`` erased is not brought back (it was replaced on purpose; the
  caller asked for the old node to go). The rollback deletes exactly the keys
  this call wrote, never a prefix, so data of others below a new parent is kept.
  A process killed midway leaves what it wrote so far, and a marker beside it
  (:mod:`zarrforge.storing.unfinished`; a write of one document, which lands whole, is not
  marked): a later creation there is refused with an
  :class:`~zarrforge.errors.UnfinishedWriteError` saying so, and ``overwrite=True``
  replaces the leftovers.

:func:`write_prepared` writes several such trees (``zarrforge.create_hierarchy``: the
nodes below groups that exist already) all or none, under one marker.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from typing import Any

from ..abc.format import Format
from ..abc.metadata import NodeMetadata
from ..abc.store import Store, WrapperStore
from ..errors import ContainsNodeError, ReadOnlyError, StoreError, UnfinishedWriteError
from ..metadata import paths
from ..storing import unfinished, write_notices
from ..storing.read_memo import ReadMemo
from . import hierarchy
from .unreadable import UnreadableNode


@dataclasses.dataclass(frozen=True)
class NewNode:
    """One node to write: its store path, its model, and ``fmt.render(model)``
    (``None``: rendered by :func:`write_nodes` before anything is written)."""

    path: str
    metadata: NodeMetadata
    rendered: Any = None


class _KeysWritten(WrapperStore):
    """Forwards everything and remembers the keys written through it (for the rollback)."""

    forwards_conditional_writes = True

    def __init__(self, inner: Store) -> None:
        super().__init__(inner)
        self.keys: list[str] = []
        self._lock = threading.Lock()

    def _note(self, key: str) -> None:
        with self._lock:
            self.keys.append(key)

    def _set(self, key: str, value: bytes) -> None:
        self._note(key)
        self.inner.set(key, value)

    def _set_if(self, key: str, value: bytes, if_generation: Any) -> Any:
        self._note(key)
        return self.inner.set_if(key, value, if_generation=if_generation)


def _ordered(root: str, nodes: Sequence[NewNode]) -> None:
    """Refuse a plan that is not the root followed by nodes below it, parents first."""
    if not nodes or nodes[0].path != root:
        raise ValueError(f"the nodes to write must start with the root {root!r}")
    seen = {root}
    for node in nodes[1:]:
        if not node.path.startswith(f"{root}/" if root else "") or node.path in seen:
            raise ValueError(f"node {node.path!r} is not a new path below {root!r}")
        if paths.parent_of(node.path) not in seen:
            raise ValueError(f"node {node.path!r} comes before its parent")
        seen.add(node.path)


def _in_the_way(store: Store, fmt: Format, nodes: Sequence[NewNode]) -> list[tuple[str, list[Format]]]:
    """``(path, formats with a node there)`` for each planned path below the root that
    holds a node already (when the root does not: a root's erasure takes its members)."""
    found = []
    for node in nodes:
        formats = hierarchy.foreign_formats(store, node.path, fmt)
        if hierarchy.detects(fmt, store, node.path):
            formats.insert(0, fmt)
        if formats:
            found.append((node.path, formats))
    return found


def _refuse(store: Store, taken: list[str]) -> None:
    listed = ", ".join(repr("/" + p) for p in taken[:10])
    more = f" and {len(taken) - 10} more" if len(taken) > 10 else ""
    what = "a node already exists at" if len(taken) == 1 else "nodes already exist at"
    error = ContainsNodeError(f"{what} {listed}{more}; pass overwrite=True (or mode='w') to replace them")
    for path in taken[:10]:
        error = unfinished.refusal(store, path, error)
        if isinstance(error, UnfinishedWriteError):
            break
    raise error


@dataclasses.dataclass(frozen=True)
class PreparedNodes:
    """New nodes checked against the store and ready to write (:func:`prepare_nodes`)."""

    store: ReadMemo
    fmt: Format
    root: str
    nodes: Sequence[NewNode]
    target: hierarchy.Survey
    below: list[tuple[str, list[Format]]]
    left_marked: bool  # a killed write's marker, or an enclosing overwrite's, at the root
    # (and no node there): with overwrite, everything below the root is erased
    unreadable_below: list[UnreadableNode] = dataclasses.field(default_factory=list)

    def several_writes(self) -> bool:
        """Whether writing takes more than one document (and so can be cut short), or
        must in any case take down the marker a killed write left at the root."""
        return len(self.nodes) + len(self.target.missing_parents()) > 1 or self.erases()

    def erases(self) -> bool:
        """Whether writing erases something first: a node at the root, a killed write's
        leftovers there, or nodes below it."""
        return self.left_marked or self.target.replaces() or bool(self.below or self.unreadable_below)

    def write(self, mark: unfinished.Marking) -> Written:
        """Erase what is replaced, write the parents, the nodes and the views; on any
        failure remove what was written and re-raise. ``mark``: the unfinished-write
        marker of the enclosing write, written again after an erasure of the root.
        Returns what was written, for a caller that may have to take it back
        (:func:`write_prepared`)."""
        if not self.erases():
            return self._write(mark)
        # what is erased below the root leaves every chunk cache too
        with write_notices.announcing_erasure(self.store, f"{self.root}/" if self.root else ""):
            return self._write(mark)

    def _write(self, mark: unfinished.Marking) -> Written:
        target, memo, fmt = self.target, self.store, self.fmt
        recorder = _KeysWritten(memo)
        changes: list[tuple[str, NodeMetadata | None]] = []
        erasing = mark.sparing(memo)  # the marker at the root stays while the rest goes
        try:
            for other in target.foreign:
                other.erase_node(erasing, self.root)
            if target.unreadable is not None:
                target.unreadable.erase(erasing)
            if target.existing:
                fmt.erase_node(erasing, self.root)
                changes.append((self.root, None))  # its old subtree leaves the views
            if target.replaces():
                mark.renew()  # in case a format's erasure took the marker along after all
            elif self.left_marked:  # a killed write's leftovers, with no node at the root
                erasing.erase_prefix(f"{self.root}/" if self.root else "")
            for path, formats in self.below:
                if not any(path.startswith(f"{q}/") for q, _ in self.below):  # erasing q erases path
                    for found in formats:
                        found.erase_node(memo, path)
                    changes.append((path, None))
            for found_unreadable in self.unreadable_below:
                found_unreadable.erase(memo)
            for parent in target.missing_parents():
                group = fmt.new_group()
                fmt.write_node(recorder, parent, group)
                changes.append((parent, group))
            for node in self.nodes:
                fmt.write_node(recorder, node.path, node.metadata, node.rendered)
                changes.append((node.path, node.metadata))
            hierarchy.refresh_views(memo, fmt, target.ancestors, changes)
        except BaseException:
            mark.failed(erasing)  # an erasure cut short keeps the marker: leftovers, marked
            _roll_back(memo, fmt, target, recorder.keys, [path for path, _ in changes])
            raise
        return Written(self, recorder.keys, [path for path, _ in changes])

    def take_back(self, written: Written) -> None:
        """Remove, best effort, what :meth:`write` wrote (``written``) and take its paths
        out of the views above; what it erased is not brought back."""
        _roll_back(self.store, self.fmt, self.target, written.keys, written.touched)


@dataclasses.dataclass(frozen=True)
class Written:
    """What one :meth:`PreparedNodes.write` wrote: the keys, and the node paths it wrote
    or erased (in the views above)."""

    prepared: PreparedNodes
    keys: list[str]
    touched: list[str]


def prepare_nodes(
    store: Store,
    fmt: Format,
    root: str,
    nodes: Sequence[NewNode],
    *,
    overwrite: bool = False,
    checked_group: str | None = None,
    allow_reserved_name: bool = False,
    reserved_below_root: bool = False,
) -> PreparedNodes:
    """Check ``nodes`` (the root ``root`` first) against ``store`` and render them; nothing
    is written. Refuses what :func:`write_nodes` refuses (see the module docstring).

    Every name this creates (the root's, its missing parents', those of the nodes below)
    is checked with :func:`zarrforge.metadata.paths.validate_new_name`: a name with the
    spec's reserved ``__`` prefix is refused unless ``allow_reserved_name`` (the caller
    asked for it by name), or, for the nodes below the root only,
    ``reserved_below_root`` (a copy's: their names are the source's)."""
    _ordered(root, nodes)
    if store.read_only:  # said about the caller's store, not a wrapper of ours
        raise ReadOnlyError(
            f"cannot create {'/' + root!r}: the store {store!r} is read-only, so nothing can be written there"
        )
    nodes = [
        node if node.rendered is not None else NewNode(node.path, node.metadata, fmt.render(node.metadata))
        for node in nodes
    ]
    memo = store if isinstance(store, ReadMemo) else ReadMemo(store)
    nothing_below = memo.note_empty(f"{root}/" if root else "")
    try:
        target = hierarchy.survey(memo, root, fmt, overwrite=overwrite, checked_group=checked_group)
    except ContainsNodeError as exc:
        raise unfinished.refusal(memo, root, exc) from None
    _check_new_names(
        target, nodes, allow_reserved_name=allow_reserved_name, reserved_below_root=reserved_below_root
    )
    below: list[tuple[str, list[Format]]] = []
    unreadable_below: list[UnreadableNode] = []
    left_marked = False
    if not (target.replaces() or nothing_below):
        below = _in_the_way(memo, fmt, nodes[1:])
        taken = {path for path, _ in below}
        unreadable_below = [
            found
            for found in (
                hierarchy.unreadable_node(memo, node.path) for node in nodes[1:] if node.path not in taken
            )
            if found is not None
        ]
        if unreadable_below and not overwrite:
            raise unreadable_below[0].refusal()
        if below and not overwrite:
            _refuse(memo, [path for path, _ in below])
        # a killed write's marker with no node at the root yet: refused as leftovers, or
        # (overwrite) written over and taken down with this write's own
        leftover = unfinished.leftover_refusal(memo, root)
        if leftover is not None and not overwrite:
            raise leftover
        # an enclosing write of this context that replaces its root (xarray's mode "w")
        # has put its marker over any a killed write left there: its leftovers go too
        left_marked = leftover is not None or (overwrite and unfinished.ours(memo, root))
    return PreparedNodes(memo, fmt, root, nodes, target, below, left_marked, unreadable_below)


def write_nodes(
    store: Store,
    fmt: Format,
    root: str,
    nodes: Sequence[NewNode],
    *,
    overwrite: bool = False,
    checked_group: str | None = None,
    operation: str = "create",
    allow_reserved_name: bool = False,
) -> None:
    """Write ``nodes`` (the root ``root`` first) whole or not at all; see the module
    docstring. ``checked_group``: as for :func:`zarrforge.nodes.hierarchy.survey`.
    ``operation``: what the caller is doing, in its user's words, for the marker a
    killed write leaves. ``allow_reserved_name``: as for :func:`prepare_nodes`."""
    prepared = prepare_nodes(
        store,
        fmt,
        root,
        nodes,
        overwrite=overwrite,
        checked_group=checked_group,
        allow_reserved_name=allow_reserved_name,
    )
    with unfinished.marking(prepared.store, root, operation, needed=prepared.several_writes()) as mark:
        prepared.write(mark)


def _check_new_names(
    target: hierarchy.Survey,
    nodes: Sequence[NewNode],
    *,
    allow_reserved_name: bool,
    reserved_below_root: bool,
) -> None:
    """Refuse, before anything is written, a name the write would create that
    :func:`~zarrforge.metadata.paths.validate_new_name` refuses (see :func:`prepare_nodes`):
    the names of the root's path below its nearest existing ancestor (existing groups
    keep whatever name they have), then those below the root."""
    root = target.path
    if root:
        existing = next((path for path, document in target.ancestors if document is not None), "")
        for name in root[len(existing) :].strip("/").split("/"):
            paths.validate_new_name(name, path=root, allow_reserved_name=allow_reserved_name)
    below_ok = allow_reserved_name or reserved_below_root
    for node in nodes[1:]:  # each after its parent (_ordered): its own name is the new one
        paths.validate_new_name(paths.basename(node.path), path=node.path, allow_reserved_name=below_ok)


def write_prepared(units: Sequence[PreparedNodes], *, operation: str) -> None:
    """Write several trees, each prepared by :func:`prepare_nodes` over one shared
    :class:`ReadMemo` (so that each sees the views the others update) and none rooted
    inside another, all or none: if one fails, it removes what it wrote (as
    :meth:`PreparedNodes.write` does) and then so do those written before it, latest
    first. What ``overwrite`` erased is not brought back, as for one tree. One marker
    (:mod:`zarrforge.storing.unfinished`) at the trees' nearest common ancestor covers
    them all while they are written. ``operation``: the caller's words, for the marker."""
    if not units:
        return
    root = _common_ancestor([unit.root for unit in units])
    needed = len(units) > 1 or units[0].several_writes()
    with unfinished.marking(units[0].store, root, operation, needed=needed) as mark:
        done: list[Written] = []
        try:
            for unit in units:
                done.append(unit.write(mark))
        except BaseException:
            for written in reversed(done):
                written.prepared.take_back(written)
            raise


def _common_ancestor(roots: Sequence[str]) -> str:
    """The deepest path at or above every one of ``roots``."""
    common = roots[0].split("/") if roots[0] else []
    for root in roots[1:]:
        parts = root.split("/") if root else []
        length = 0
        while length < min(len(common), len(parts)) and common[length] == parts[length]:
            length += 1
        common = common[:length]
    return "/".join(common)


def _roll_back(
    store: Store, fmt: Format, target: hierarchy.Survey, keys: list[str], touched: list[str]
) -> None:
    """Delete the documents a failed :func:`write_nodes` wrote, and take the paths it
    erased or wrote out of the views above; best effort (the first error is the one
    the caller sees)."""
    try:
        store.delete_many(list(dict.fromkeys(reversed(keys))))
    except StoreError:
        return
    if touched:
        try:
            hierarchy.refresh_views(store, fmt, target.ancestors, [(path, None) for path in touched])
        except StoreError:
            pass
