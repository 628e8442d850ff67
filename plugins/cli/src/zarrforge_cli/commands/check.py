"""``zarrforge check URL [--deep] [--repair]``: is every node readable, and every chunk?

The check reads the store itself, never consolidated metadata, and goes on
after a problem, so one run lists every problem with the store key involved:

* every node's metadata parses, names only extensions that are installed
  (data types, grids, key encodings, codecs, storage transformers, ZEP 10
  extensions) and forms a valid codec chain;
* unknown extensions that may be skipped (``must_understand: false``: codecs,
  ZEP 10 ``extensions`` entries and top-level fields) are reported as warnings:
  readers ignore them, and with them whatever they were meant to do;
* consolidated metadata agrees with the nodes' own documents: a listed node
  that is gone or differs, or a node the listing lacks, is an error (readers
  that use it would see something else);
* a write killed before it finished (its unfinished-write marker,
  :mod:`zarrforge.storing.unfinished`, at a node or at a path below a group where no
  node stands) is an error naming the marker's key, the interrupted operation and
  what to do: run the same write again, or replace what it left with
  ``overwrite=True`` (``mode="w"``); ``--repair`` never removes a marker (only the
  writer knows whether its data is whole);
* chunks stored outside an array's shape (``zarrforge.leftover_chunks``: a shrink cut
  short, an append killed before it committed its shape) are a warning, one per
  array; readers never read them. ``--repair`` deletes them, nothing else, and
  reports each array repaired (nothing inside an array's shape is deleted);
* with ``--deep``, every stored chunk is read and decoded, which verifies
  checksums (``crc32c``, the shard index) and sizes.

Errors make the exit code 1; warnings alone do not.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from collections.abc import Collection
from typing import Any

import click

from .. import storage_options as storage
from ..progress import MODES, reporter
from ._common import json_option, path_option

CONSOLIDATED_KEYS = {"3": "zarr.json", "2": ".zmetadata"}


@dataclasses.dataclass(frozen=True)
class Problem:
    severity: str  # "error" or "warning"
    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.severity}: {self.key}: {self.message}"


@dataclasses.dataclass
class Report:
    problems: list[Problem] = dataclasses.field(default_factory=list)
    repaired: list[Problem] = dataclasses.field(default_factory=list)
    nodes: int = 0
    chunks: int = 0

    @property
    def errors(self) -> int:
        return sum(1 for p in self.problems if p.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for p in self.problems if p.severity == "warning")


def _node_key(path: str) -> str:
    return "/" + path


def _strip_location(message: str, key: str | None) -> str:
    prefix = f"in {key!r}: "
    return message[len(prefix) :] if key and message.startswith(prefix) else message


def _formats() -> list[Any]:
    from zarrforge.hierarchy_api import get_format, installed_formats

    return [get_format(name) for name in installed_formats()]


class Checker:
    def __init__(self, store: Any, *, deep: bool, progress: Any, repair: bool = False) -> None:
        self.store = store
        self.deep = deep
        self.repair = repair
        self.progress = progress
        self.report = Report()
        self.seen: set[str] = set()
        self.consolidated: list[tuple[str, Any, dict[str, Any]]] = []

    def problem(self, severity: str, key: str, message: str) -> None:
        self.report.problems.append(Problem(severity, key, message))

    def run(self, path: str) -> Report:
        from zarrforge.hierarchy_api import locate_node

        try:
            missing = locate_node(self.store, path) is None
        except Exception:  # noqa: BLE001  # a broken root is reported by visit()
            missing = False
        if missing:
            if self.check_markers_below(path):  # a killed write's leftovers, no node yet
                return self.report
            raise click.ClickException(f"no array or group at {_node_key(path)!r} in {self.store!r}")
        self.visit(path)
        self.check_consolidated()
        return self.report

    def visit(self, path: str) -> None:
        import zarrforge
        from zarrforge.errors import SkippedExtensionWarning, ZarrforgeError
        from zarrforge.hierarchy_api import open_node

        self.report.nodes += 1
        self.seen.add(path)
        self.check_marker(path)
        node = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                node = open_node(self.store, path, mode="r", use_consolidated=False)
            except ZarrforgeError as exc:
                key = getattr(exc, "key", None)
                self.problem("error", key or _node_key(path), _strip_location(str(exc), key))
            except Exception as exc:  # noqa: BLE001  # a plugin bug is a problem to report
                self.problem(
                    "error", _node_key(path), f"unexpected {type(exc).__name__} while opening: {exc}"
                )
        for warning in caught:
            if issubclass(warning.category, SkippedExtensionWarning):
                self.problem("warning", _node_key(path), str(warning.message))
        if node is None:
            children: set[str] = set()
            for fmt in _formats():
                try:
                    if fmt.detect(self.store, path):
                        children.update(fmt.list_children(self.store, path))
                except Exception:  # noqa: BLE001
                    continue
            for name in sorted(children):
                self.visit(f"{path}/{name}" if path else name)
            return
        self.check_ignored(node)
        if isinstance(node, zarrforge.Group):
            consolidated = node.metadata_model.consolidated
            if consolidated is not None:
                self.consolidated.append((path, node.format, consolidated))
            children = node.format.list_children(self.store, path)
            self.check_unlisted(path, children)
            for name in children:
                self.visit(f"{path}/{name}" if path else name)
        else:
            self.check_leftover_chunks(node)
            if self.deep:
                self.check_chunks(node)

    def report_marker(self, found: Any) -> None:
        self.problem(
            "error",
            found.key,
            f"{_node_key(found.path)!r} holds what {found.describe()} left: the "
            "nodes there may be incomplete. Run the same write again to finish it "
            "(to_zarr adding variables: the same call), or replace what it left with "
            "overwrite=True (mode='w'); delete this key only once the data is known "
            "to be whole",
        )

    def check_marker(self, path: str) -> None:
        """One read: the marker a killed write left at the node ``path``."""
        import zarrforge

        try:
            found = zarrforge.unfinished_write(self.store, path)
        except Exception as exc:  # noqa: BLE001  # a store failure is a finding
            self.problem("error", _node_key(path), f"cannot read its unfinished-write marker: {exc}")
            return
        if found is not None:
            self.report_marker(found)

    def check_markers_below(self, path: str) -> bool:
        """One listing below ``path`` (where no node stands): report every marker there;
        whether there was one."""
        from zarrforge.hierarchy_api import unfinished_writes_below

        found = unfinished_writes_below(self.store, path)
        for mark in found:
            self.report_marker(mark)
        return bool(found)

    def check_unlisted(self, path: str, children: Collection[str]) -> None:
        """The sub-directories of the group ``path`` that hold no node (one listing of the
        group's level): a killed write may have left its marker there before any node."""
        try:
            listing = self.store.list_dir(f"{path}/" if path else "")
        except Exception:  # noqa: BLE001  # the group's children were listed already
            return
        for prefix in listing.prefixes:
            name = prefix.rstrip("/")
            if name not in children:
                self.check_markers_below(f"{path}/{name}" if path else name)

    def check_leftover_chunks(self, array: Any) -> None:
        """One listing of the array's chunk keys: those outside its shape (see the module
        docstring), removed with ``--repair``."""
        import zarrforge

        try:
            keys = zarrforge.leftover_chunks(self.store, array.path, remove=self.repair)
        except Exception as exc:  # noqa: BLE001  # every failure is a finding
            doing = "remove" if self.repair else "list"
            self.problem(
                "error",
                array.name,
                f"cannot {doing} the chunks stored outside its shape ({type(exc).__name__}): {exc}",
            )
            return
        if not keys:
            return
        count = f"{len(keys)} chunk{'s' * (len(keys) != 1)}"
        shown = ", ".join(keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")
        if self.repair:
            self.report.repaired.append(
                Problem(
                    "repaired",
                    array.name,
                    f"removed {count} stored outside its shape {tuple(array.shape)}: {shown}",
                )
            )
            return
        self.problem(
            "warning",
            array.name,
            f"{count} stored outside its shape {tuple(array.shape)} ({shown}), left by "
            "a shrink cut short or an append killed before it committed its shape; "
            "no reader reads them. `zarrforge check --repair` removes them",
        )

    def check_ignored(self, node: Any) -> None:
        from zarrforge.hierarchy_api import UnknownExtension

        model = node.metadata_model
        for entry in model.extensions:
            if isinstance(entry, UnknownExtension):
                self.problem(
                    "warning",
                    node.name,
                    f"extension {entry.name!r} is not installed and is ignored "
                    "(must_understand: false); what it adds to the node is lost "
                    "to readers without it",
                )
        for field in sorted(model.extra_fields):
            self.problem(
                "warning",
                node.name,
                f"field {field!r} is not understood and is ignored (must_understand: false)",
            )

    def check_chunks(self, array: Any) -> None:
        model = array.metadata_model
        from zarrforge.errors import CodecError

        fmt = array.format
        try:
            stored = list(array.stored_chunks())
        except Exception as exc:  # noqa: BLE001
            self.problem("error", array.name, f"cannot list the stored chunks: {exc}")
            return
        total = len(stored)
        for done, coords in enumerate(stored, 1):
            key = fmt.chunk_key(array.path, model, coords)
            try:
                array.get_chunk(coords)
            except Exception as exc:  # noqa: BLE001  # every failure is a finding
                # the finding names the chunk already: a codec error's text without its place
                text = exc.message if isinstance(exc, CodecError) else str(exc)
                self.problem("error", key, f"cannot be decoded ({type(exc).__name__}): {text}")
            self.report.chunks += 1
            self.progress(array.path, done, total)

    def check_consolidated(self) -> None:
        from zarrforge.abc.metadata import GroupMetadata
        from zarrforge.errors import ZarrforgeError
        from zarrforge.hierarchy_api import NodeDocument

        for root, fmt, models in self.consolidated:
            base = CONSOLIDATED_KEYS.get(fmt.name)
            key = (f"{root}/{base}" if root else base) if base else _node_key(root)
            for relative, model in sorted(models.items()):
                path = f"{root}/{relative}" if root else relative
                try:
                    actual = fmt.read_node(self.store, path)
                except Exception:  # noqa: BLE001  # reported when the node was visited
                    continue
                if actual is None:
                    self.problem(
                        "error", key, f"consolidated metadata lists {_node_key(path)!r}, which does not exist"
                    )
                    continue
                if isinstance(actual, GroupMetadata) and actual.consolidated is not None:
                    actual = dataclasses.replace(actual, consolidated=None)
                if isinstance(model, NodeDocument):  # an entry kept as read
                    try:
                        model = fmt.resolve(model)
                    except ZarrforgeError as exc:
                        self.problem(
                            "error",
                            key,
                            f"consolidated metadata of {_node_key(path)!r} cannot be read: {exc}",
                        )
                        continue
                listed, stored = fmt.document(model), fmt.document(actual)
                if json.dumps(listed, sort_keys=True, default=str) != json.dumps(
                    stored, sort_keys=True, default=str
                ):
                    self.problem(
                        "error",
                        key,
                        f"consolidated metadata of {_node_key(path)!r} differs from the node's own metadata",
                    )
            below = {p for p in self.seen if p != root and (not root or p.startswith(root + "/"))}
            for path in sorted(below):
                relative = path[len(root) + 1 :] if root else path
                if relative not in models:
                    self.problem(
                        "error", key, f"{_node_key(path)!r} is missing from the consolidated metadata"
                    )


@click.command()
@click.argument("url")
@path_option
@click.option("--deep", is_flag=True, help="Also read and decode every stored chunk.")
@click.option(
    "--repair", is_flag=True, help="Delete the chunks stored outside an array's shape (nothing else)."
)
@click.option(
    "--progress",
    "progress_mode",
    type=click.Choice(MODES),
    default="none",
    show_default=True,
    help="Progress of --deep on standard error.",
)
@storage.flags()
@json_option
def check(
    url: str,
    path: str,
    deep: bool,
    repair: bool,
    progress_mode: str,
    as_json: bool,
    storage_options: dict[str, Any],
) -> None:
    """Check that every node's metadata is valid and every extension it names is
    installed; with --deep, that every stored chunk decodes and its checksums match.

    Also reports writes killed before they finished (their unfinished-write markers) and
    chunks stored outside an array's shape; --repair deletes those chunks.

    Lists every problem with its store key. Exit code 1 when there is an error.
    """
    from zarrforge.hierarchy_api import paths, resolve_store

    store = resolve_store(
        url, read_only=not repair, storage_options=storage.for_url(url, storage_options, "--storage-option")
    )
    with reporter(progress_mode, "check", sizer=lambda _: (None, "chunks")) as progress:
        report = Checker(store, deep=deep, progress=progress, repair=repair).run(paths.normalize_path(path))
    if as_json:
        click.echo(
            json.dumps(
                {
                    "nodes": report.nodes,
                    "chunks": report.chunks,
                    "errors": report.errors,
                    "warnings": report.warnings,
                    "problems": [dataclasses.asdict(p) for p in report.problems],
                    "repaired": [dataclasses.asdict(p) for p in report.repaired],
                },
                indent=2,
            )
        )
    else:
        for problem in [*report.problems, *report.repaired]:
            click.echo(str(problem))
        checked = f"{report.nodes} node{'s' * (report.nodes != 1)}"
        if deep:
            checked += f" and {report.chunks} chunk{'s' * (report.chunks != 1)}"
        if report.problems:
            click.echo(
                f"checked {checked}: {report.errors} error{'s' * (report.errors != 1)}, "
                f"{report.warnings} warning{'s' * (report.warnings != 1)}"
            )
        else:
            click.echo(f"checked {checked}: no problems")
    if report.errors:
        click.get_current_context().exit(1)
