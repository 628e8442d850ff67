"""The hierarchy as formats store it: finding nodes, and writing new ones safely.

This module sits below the user API (:mod:`zarrforge.user_api.api`, :class:`Group`,
:func:`zarrforge.copy`) and works on documents and models only: it never
builds an :class:`~zarrforge.Array` or :class:`~zarrforge.Group`.

* Finding: :func:`locate_document` asks the formats (the default first) for
  the node's plain document, resolving nothing; :func:`locate_node` resolves
  what it found. Detection is :func:`locate_document`. A format may hand a
  document it read to an installed variant of it (a format whose class
  subclasses its own) by naming the variant in ``NodeDocument.format_name``:
  the variant then opens the node, from the bytes already read (the v3
  format does so for a variant's document holding fields v3 would refuse).
* Creating: :func:`survey` reads, once each, the documents at and above a
  new node's path and refuses (before anything is written) a node in the
  way, an ancestor that is an array, a node of another format at or
  above the path (a hierarchy never mixes formats), or a document no
  installed format reads at or above it (:mod:`zarrforge.nodes.unreadable`: it is
  somebody's data, and only ``overwrite=True`` replaces it at the path).
  :func:`zarrforge.nodes.node_writing.write_nodes` then writes the missing parent
  groups, the nodes, and every consolidated view above them, from what the
  survey read. A creation therefore reads and parses each document on its
  path once.
* Consolidated views: :func:`refresh_consolidated` rewrites the stored view
  of every ancestor group that has one, after nodes below it changed
  (``None`` for an erased node), as a read-modify-write of the latest
  document: on stores with conditional writes, concurrent writers under one
  consolidated root keep each other's entries.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from typing import Any

from .. import config
from ..abc.format import Format
from ..abc.metadata import GroupMetadata, NodeMetadata
from ..abc.store import Store, WrapperStore
from ..errors import (
    ContainsArrayError,
    ContainsGroupError,
    ContainsNodeError,
    MetadataError,
    NodeTypeError,
    PluginLoadError,
    ReadOnlyError,
)
from ..metadata import paths
from ..metadata.document import NodeDocument
from ..metadata.json_io import one_line_json
from ..registries import plugin_failures, registry
from ..storing.optimistic import read_modify_write
from . import unreadable
from .consolidated import ConsolidatedView

DEFAULT_FORMAT = "3"  # the built-in default of config.default_format


def default_format() -> str:
    """The name of the format new nodes get when nothing names one (``config.default_format``)."""
    return config.get().default_format


def get_format(zarr_format: Any = None) -> Format:
    """The registered format named ``zarr_format`` (``3``, ``"2"``, ``"draft-2022"``...;
    ``None``: :func:`default_format`). A format plugin failing unexpectedly to build is a
    :class:`~zarrforge.errors.PluginFailureError` naming it."""
    name = default_format() if zarr_format is None else str(zarr_format)
    implementation = registry.formats.get(name, field="zarr_format")
    with plugin_failures.named("format", name, lambda: registry.formats.origin(name), "being built"):
        return implementation()


# (registries' generation, default format) -> installed_formats(): each creation asks
# three times, and the registry's sorted names cost more than the rest of the question
_installed_memo: tuple[int, str, tuple[str, ...]] | None = None


def installed_formats() -> list[str]:
    """The names of the installed formats (``"3"``, ``"2"``, ``"draft-2022"``...), the default
    first; family entry points (``name.*``) are not formats of their own."""
    global _installed_memo
    first = default_format()
    generation = registry.generation()
    memo = _installed_memo
    if memo is not None and memo[0] == generation and memo[1] == first:
        return list(memo[2])
    names = [n for n in registry.formats.names() if not n.endswith(registry.FAMILY_SUFFIX)]
    ordered = [first] * (first in names) + [n for n in names if n != first]
    _installed_memo = (generation, first, tuple(ordered))
    return ordered


def formats_in_detection_order(skip: str | None = None) -> Iterator[Format]:
    """Every installed format but ``skip``, the default first, each built only when the
    caller gets to it: finding a v3 node builds no other format. A format that fails to
    import or to build is left out (:func:`_not_mine`): detection runs for other data."""
    for name in installed_formats():
        if name == skip:
            continue
        try:
            fmt = registry.formats.get(name)()
        except PluginLoadError as exc:
            _not_mine(name, exc, "being loaded to look for its nodes")
            continue
        except Exception as exc:
            if not plugin_failures.unexpected(exc):
                raise
            _not_mine(name, exc, "being built to look for its nodes")
            continue
        yield fmt


def _not_mine(name: str, exc: Exception, doing: str = "looking for its nodes") -> None:
    """A format plugin failed unexpectedly while looking for its node: its answer is "no
    node of mine", and the process is told once which plugin failed and how."""
    plugin_failures.left_out(
        "format",
        name,
        registry.formats.origin(name),
        exc,
        f"{doing}; zarrforge treats it as finding none",
        stacklevel=5,
    )


def failed_formats() -> frozenset[str]:
    """The formats whose detection failed unexpectedly in this process (one warning each)."""
    return plugin_failures.failed("format")


def _asking(fmt: Format, question: Callable[[], Any], otherwise: Any) -> Any:
    """The answer of one of ``fmt``'s detection methods; a plugin's unexpected failure
    (anything but a zarrforge error) is ``otherwise`` ("none of mine") and one warning per
    process (:func:`_not_mine`)."""
    try:
        return question()
    except Exception as exc:  # a broken plugin must not break every call
        if not plugin_failures.unexpected(exc):
            raise
        _not_mine(fmt.name, exc)
        return otherwise


def resolved(fmt: Format, document: NodeDocument) -> NodeMetadata:
    """``fmt.resolve(document)`` for a node of ``fmt``'s: the plugin failing unexpectedly
    is a :class:`~zarrforge.errors.PluginFailureError` naming it."""
    with plugin_failures.named(
        "format", fmt.name, lambda: registry.formats.origin(fmt.name), f"resolving its node {document.key!r}"
    ):
        return fmt.resolve(document)


def _read_document(fmt: Format, store: Store, path: str) -> NodeDocument | None:
    return _asking(fmt, lambda: fmt.read_document(store, path), None)


def detects(fmt: Format, store: Store, path: str) -> bool:
    """Does ``fmt`` claim a node at ``path`` (a broken document of its own included)? A
    plugin failing unexpectedly claims none (:func:`_asking`)."""
    return _asking(fmt, lambda: fmt.detect(store, path), False)


def _reads_a_node(fmt: Format, store: Store, path: str) -> bool:
    """Does ``fmt`` read a sound document at ``path`` (not merely a broken one of its own)?"""
    try:
        return _read_document(fmt, store, path) is not None
    except MetadataError:
        return False


def locate_document(store: Store, path: str, fmt: Format | None = None) -> tuple[Format, NodeDocument] | None:
    """The format and plain document of the node at ``path``, or ``None`` if there is none.

    With ``fmt`` only that format is asked; otherwise the default format first,
    then every other installed one; a format may hand the document it read to an
    installed variant of it (:func:`_owner`), which then opens the node without
    reading it again. Nothing is resolved, so a node naming a
    codec no plugin provides is still found (and fails when resolved). A format
    that reports its own broken node (``MetadataError``) is reported only when no
    other format reads a node there; a plugin failing otherwise finds nothing.
    """
    broken: MetadataError | None = None
    if fmt is not None:  # the caller named the format: its failure is an error naming it
        with plugin_failures.named(
            "format", fmt.name, lambda: registry.formats.origin(fmt.name), f"reading the node {'/' + path!r}"
        ):
            return _found(fmt, fmt.read_document(store, path))
    for candidate in formats_in_detection_order():
        try:
            document = _read_document(candidate, store, path)
        except MetadataError as exc:
            broken = broken or exc
            continue
        if document is not None:
            return _owner(candidate, document), document
    if broken is not None:
        raise broken
    return None


def _owner(fmt: Format, document: NodeDocument) -> Format:
    """The format that opens ``document``, found by ``fmt``: ``fmt``, or the installed
    variant of it (a format whose class subclasses ``fmt``'s) that ``fmt`` handed the
    document to by naming it in ``document.format_name`` (the v3 format does, for a
    variant's document it would refuse). Any other name is ``fmt``'s own business (a
    constant naming the format family) and changes nothing."""
    name = document.format_name
    if name == fmt.name or name not in registry.formats.names():
        return fmt
    variant = _asking(fmt, lambda: registry.formats.get(name), None)
    if not (isinstance(variant, type) and issubclass(variant, type(fmt))):
        return fmt
    return get_format(name)


def _found(fmt: Format, document: NodeDocument | None) -> tuple[Format, NodeDocument] | None:
    return None if document is None else (fmt, document)


class _WithoutKeys(WrapperStore):
    """A read view of a store in which some keys are absent."""

    def __init__(self, inner: Store, hidden: set[str]) -> None:
        super().__init__(inner)
        self.hidden = hidden

    def get(self, key: str, byte_range: Any = None) -> bytes | None:
        return None if key in self.hidden else self.inner.get(key, byte_range)

    def get_many(self, requests: Any) -> list[bytes | None]:
        asked = [(i, request) for i, request in enumerate(requests) if request[0] not in self.hidden]
        answers: list[bytes | None] = [None] * len(requests)
        for (i, _), value in zip(asked, self.inner.get_many([r for _, r in asked])):
            answers[i] = value
        return answers

    def exists(self, key: str) -> bool:
        return key not in self.hidden and self.inner.exists(key)


def locate_node(
    store: Store, path: str, fmt: Format | None = None, *, consolidated: bool = True
) -> tuple[Format, NodeMetadata] | None:
    """As :func:`locate_document`, resolved into the node's model. ``consolidated=False``
    reads without the formats' separate consolidated-metadata keys
    (``Format.consolidated_keys``): they are neither fetched nor parsed."""
    if not consolidated:
        formats = [fmt] if fmt is not None else formats_in_detection_order()
        hidden = {
            key
            for candidate in formats
            for key in _asking(candidate, functools.partial(candidate.consolidated_keys, path), ())
        }
        if hidden:
            store = _WithoutKeys(store, hidden)
    found = locate_document(store, path, fmt)
    if found is None:
        return None
    candidate, document = found
    return candidate, resolved(candidate, document)


def detect_format(store: Store, path: str) -> Format | None:
    found = locate_document(store, path)
    return found[0] if found else None


def unreadable_node(store: Store, path: str) -> unreadable.UnreadableNode | None:
    """A document at ``path`` that no installed format reads (:mod:`zarrforge.nodes.unreadable`);
    ask only where no installed format found a node."""
    return unreadable.find(store, path, installed_formats(), _working)


def _working(name: str) -> bool:
    """Is the format ``name`` installed, loaded and not failed in this process?"""
    if name in failed_formats() or name not in registry.formats.names():
        return False
    try:
        registry.formats.get(name)
    except PluginLoadError:
        return False
    return True


def foreign_formats(store: Store, path: str, fmt: Format) -> list[Format]:
    """Installed formats other than ``fmt`` that have a node at ``path``. A format that
    claims only a broken node there is left out when another format, ``fmt`` included,
    reads a sound node there: the document is that format's, not a broken one of its."""
    claiming = [other for other in formats_in_detection_order(skip=fmt.name) if detects(other, store, path)]
    if not claiming:
        return claiming
    sound = [other for other in claiming if _reads_a_node(other, store, path)]
    if sound or _reads_a_node(fmt, store, path):
        return sound
    return claiming


# --- creating nodes ----------------------------------------------------------------------


@dataclasses.dataclass
class Survey:
    """What is at and above the path of a node about to be created (see :func:`survey`).

    ``ancestors`` lists ``(path, document or None)`` from the parent up to the root,
    in ``fmt``'s terms. ``existing`` says whether ``fmt`` has a node at the path (one
    whose document is broken included), ``foreign`` lists the other formats with a
    node there, and ``unreadable`` is a node there that no installed format reads
    (only with ``overwrite``: otherwise the survey refused it).
    """

    store: Store
    path: str
    fmt: Format
    existing: bool
    foreign: list[Format]
    ancestors: list[tuple[str, NodeDocument | None]]
    unreadable: unreadable.UnreadableNode | None = None

    def replaces(self) -> bool:
        """Whether the creation replaces a node at its path (erasing it first)."""
        return bool(self.existing or self.foreign or self.unreadable)

    def missing_parents(self) -> list[str]:
        """Ancestors to create, the outermost first (those below the nearest existing one)."""
        missing = []
        for parent, document in self.ancestors:
            if document is not None:
                break
            missing.append(parent)
        return list(reversed(missing))


def node_in_the_way(store: Store, path: str, holder: Format) -> ContainsNodeError:
    """The error for a node of ``holder``'s at ``path`` where a new one was to go: zarr-python's
    ``ContainsArrayError`` or ``ContainsGroupError`` where the document says which (read
    only now, on the way to failing), else ``ContainsNodeError``."""
    try:
        document = _read_document(holder, store, path)
    except MetadataError:
        document = None
    kind = {"array": ContainsArrayError, "group": ContainsGroupError}.get(
        document.node_type if document is not None else "", ContainsNodeError
    )
    what = "an array" if kind is ContainsArrayError else "a group" if kind is ContainsGroupError else "a node"
    return kind(
        f"{what} of Zarr {holder.name} already exists at {'/' + path!r}; pass "
        "overwrite=True (or mode='w') to replace it"
    )


def survey(
    store: Store, path: str, fmt: Format, *, overwrite: bool, checked_group: str | None = None
) -> Survey:
    """Read what is at and above ``path`` and refuse what would make the creation fail.

    ``checked_group``: an ancestor the caller knows to be a group of ``fmt`` with no
    node of another format at or above it (a :class:`Group` creating its members);
    other formats are not asked about it or above it. ``fmt``'s own documents are
    read up to the root all the same: consolidated views above must be kept in step.
    """
    if store.read_only:
        raise ReadOnlyError(f"cannot create a node in the read-only store {store!r}")
    existing = detects(fmt, store, path)  # a broken document counts: it can be overwritten
    foreign = foreign_formats(store, path, fmt)
    if (existing or foreign) and not overwrite:
        holder = fmt if existing else foreign[0]
        raise node_in_the_way(store, path, holder)
    unread = None if existing or foreign else unreadable_node(store, path)
    if unread is not None and not overwrite:
        raise unread.refusal()
    ancestors: list[tuple[str, NodeDocument | None]] = []
    parent, trusted = path, False
    while parent:
        parent = paths.parent_of(parent)
        trusted = trusted or parent == checked_group
        if not trusted:
            for other in foreign_formats(store, parent, fmt):
                raise NodeTypeError(
                    f"cannot create a Zarr {fmt.name} node {'/' + path!r} under "
                    f"the Zarr {other.name} node {'/' + parent!r}"
                )
        document = fmt.read_document(store, parent)
        if document is not None and document.node_type != "group":
            raise NodeTypeError(f"cannot create {'/' + path!r}: its parent {'/' + parent!r} is an array")
        if document is None and not trusted:
            above = unreadable_node(store, parent)
            if above is not None:
                raise above.refusal(below=path)
        ancestors.append((parent, document))
    return Survey(store, path, fmt, existing, foreign, ancestors, unread)


@dataclasses.dataclass
class Above:
    """What :func:`views_above` read: ``(path, document or None)`` from the parent up to
    the root, and the models of the groups among them, each resolved once."""

    documents: list[tuple[str, NodeDocument | None]]
    groups: dict[str, NodeMetadata]


def views_above(store: Store, fmt: Format, path: str) -> Above:
    """The documents of ``fmt`` above ``path`` (for :func:`refresh_consolidated`), read
    before a change so that one whose view could not be kept in step refuses it first."""
    above = Above([], {})
    parent = path
    while parent:
        parent = paths.parent_of(parent)
        document = fmt.read_document(store, parent)
        group = _check_view_usable(fmt, parent, document)
        if group is not None:
            above.groups[parent] = group
        above.documents.append((parent, document))
    return above


def _check_view_usable(fmt: Format, path: str, document: NodeDocument | None) -> NodeMetadata | None:
    """The model of the group document at ``path`` (``None`` for none), refused if its
    consolidated view could not be kept in step with a change below it. ``None`` too for
    a group document known to resolve to a group without a view (:data:`_VIEWLESS`):
    there is nothing to keep in step."""
    if document is None or document.node_type != "group":
        return None
    verdict = _viewless_key(fmt, document)
    if verdict is not None and _VIEWLESS.get(verdict[0]) is verdict[1]:
        return None
    group = resolved(fmt, document)
    if isinstance(group, GroupMetadata) and group.view_unused:
        # the view would go stale: a reader with a larger limit would use it
        raise MetadataError(
            f"cannot change a node below the group {'/' + path!r}: its "
            f"view cannot be kept in step: {group.view_unused}",
            key=document.key,
        )
    if verdict is not None and isinstance(group, GroupMetadata) and group.consolidated is None:
        if len(_VIEWLESS) >= _VIEWLESS_ENTRIES:
            _VIEWLESS.clear()
        _VIEWLESS[verdict[0]] = verdict[1]
    return group


#: Group documents that resolved, without error, to a group with no consolidated view:
#: (format class, format name, document key, its content as one line of JSON, registry
#: generation) -> the settings object in force then. Creating a group's members resolves
#: the group's document again for each, to find a view to keep in step; the same
#: content resolves the same way while the registries and settings are unchanged (a
#: settings change makes a new settings object). A document that fails to resolve is
#: never kept: it fails again each time. Emptied when full.
_VIEWLESS: dict[tuple[Any, ...], config.Settings] = {}
_VIEWLESS_ENTRIES = 256
_VIEWLESS_CHARS = 4096  # longer contents are resolved each time


def _viewless_key(fmt: Format, document: NodeDocument) -> tuple[tuple[Any, ...], config.Settings] | None:
    """The key of ``document`` in :data:`_VIEWLESS` and the settings now; ``None`` for a
    content that is not small plain JSON."""
    text = one_line_json(document.content) if type(document.content) is dict else None
    if text is None or len(text) > _VIEWLESS_CHARS:
        return None
    key = (type(fmt), fmt.name, document.key, document.format_name, text, registry.generation())
    return key, config.get()


def refresh_consolidated(
    store: Store, fmt: Format, path: str, model: NodeMetadata | None, above: Above | None = None
) -> None:
    """Update the stored consolidated views above ``path`` after the node there changed
    (``model=None``: it was erased, with everything below it); ``above``: what
    :func:`views_above` read before the change."""
    if above is None:
        above = views_above(store, fmt, path)
    refresh_views(store, fmt, above.documents, [(path, model)], resolved_groups=above.groups)


def refresh_views(
    store: Store,
    fmt: Format,
    ancestors: list[tuple[str, NodeDocument | None]],
    changes: list[tuple[str, NodeMetadata | None]],
    resolved_groups: dict[str, NodeMetadata] | None = None,
) -> None:
    """Apply ``changes`` to the stored view of every ancestor that has one, each as a
    read-modify-write of the latest document (:mod:`zarrforge.storing.optimistic`), so views
    updated by concurrent writers keep each other's entries. ``resolved_groups``: the
    ancestors' models :func:`views_above` already resolved (and checked)."""
    for ancestor, document in ancestors:
        if document is None or document.node_type != "group":
            continue
        group = (resolved_groups or {}).get(ancestor) or _check_view_usable(fmt, ancestor, document)
        if not isinstance(group, GroupMetadata) or group.consolidated is None:
            continue

        def update(
            view_store: Store,
            ancestor: str = ancestor,
            read: GroupMetadata = group,
            read_from: NodeDocument = document,
        ) -> None:
            current: NodeMetadata | None = read
            if view_store is not store:
                latest = fmt.read_document(view_store, ancestor)
                # the same document object: unchanged since the survey (a format may
                # share one parse of equal bytes), so its model is the one resolved above
                current = read if latest is read_from else None if latest is None else resolved(fmt, latest)
            if not isinstance(current, GroupMetadata) or current.consolidated is None:
                return  # replaced, or its view dropped, meanwhile
            view = ConsolidatedView(current.consolidated)
            for path, model in changes:
                relative = path[len(ancestor) + 1 :] if ancestor else path
                if model is None:
                    view.remove(relative)
                else:
                    view.put(relative, model)
            fmt.write_node(view_store, ancestor, dataclasses.replace(current, consolidated=view.entries()))

        read_modify_write(store, update)
