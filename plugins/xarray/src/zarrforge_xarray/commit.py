"""Marking an xarray write unfinished, and taking a failed one back: :func:`plan`.

A write of a Dataset into a group is one of three kinds, each told apart from finished
data when it fails or its process is killed:

* It creates its group (``mode="w-"``, or ``"a"`` where there is none) or replaces it
  (``"w"``): the group carries the unfinished-write marker (operation ``"to_zarr"``)
  for the whole call, put down before anything is erased
  (:mod:`zarrforge.storing.unfinished`); a failure takes out what the call created.
* It adds variables to an existing group (``"a"``, ``"a-"``, an append or a region
  write in mode ``"a"`` that brings a variable the group lacks): the group carries the
  marker, its operation naming the variables (``"to_zarr adding 'x', 'y'"``), and a
  failure removes the variables the call created, their keys and their entries in the
  consolidated views (:func:`zarrforge_xarray.undo.remove_written`). So a new variable
  is there whole, or not at all, or (a killed process) marked.
* It writes into existing variables only (in place, appends, regions): not marked;
  appends commit their longer shapes last (``writer._commit_growth``).

Any write into an existing group first reads the marker there (one read): a killed
write's marker is refused with :class:`~zarrforge.errors.UnfinishedWriteError` naming
the interrupted operation, except for the same addition run again, which creates the
variables it names anew (:attr:`Plan.replacing`) and takes the marker down when it ends.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Hashable
from contextlib import AbstractContextManager
from typing import Any

import xarray as xr

import zarrforge
from zarrforge.hierarchy_api import marking_unfinished, paths

from .store import stored_name
from .undo import keys_below, remove_written

OPERATION = "to_zarr"
PREFIX = f"{OPERATION} adding "


def adding(names: list[str]) -> str:
    """The marker's operation for a write that adds the variables ``names``."""
    return PREFIX + ", ".join(repr(name) for name in names)


@dataclasses.dataclass
class Plan:
    """How one ``to_zarr`` call is marked (:meth:`marked`) and taken back on failure
    (:meth:`take_back`). ``new``: the variables it adds to an existing group;
    ``replacing``: those a killed run of the same addition left, to be created anew."""

    store: Any
    path: str
    creates_group: bool
    mode: str
    new: list[str]
    replacing: frozenset[str]
    before: dict[str, set[str]] = dataclasses.field(default_factory=dict)

    def marked(self) -> AbstractContextManager[Any]:
        """The marker over the call (none for a write into existing variables only)."""
        if self.creates_group:
            return marking_unfinished(self.store, self.path, OPERATION, refuse_leftovers=self.mode != "w")
        if not self.new:
            return contextlib.nullcontext()
        for name in self.new:  # keys of others below a new variable's path stay on failure
            if name not in self.replacing:
                self.before[name] = _keys_at(self.store, paths.join(self.path, name))
        return marking_unfinished(self.store, self.path, adding(self.new))

    def take_back(self) -> None:
        """After a failure: remove the variables this call added (best effort)."""
        for name in self.new:
            remove_written(self.store, paths.join(self.path, name), self.before.get(name, set()))


def plan(
    store: Any, path: str, target: zarrforge.Group | None, dataset: xr.Dataset, mode: str, region: Any
) -> Plan:
    """The :class:`Plan` of writing ``dataset`` at ``path`` of ``store``: ``target`` is the
    existing group written into (``None``: the call creates or replaces it). Raises
    :class:`~zarrforge.errors.UnfinishedWriteError` when a killed write left its marker
    in ``target`` and this call is not the same addition run again."""
    if target is None:
        return Plan(store, path, True, mode, [], frozenset())
    stored = {name for name, node in target.members() if isinstance(node, zarrforge.Array)}
    skipped: set[Hashable] = set(dataset.indexes) if region is not None else set()
    new = sorted(
        stored_name(k) for k in dataset.variables if k not in skipped and stored_name(k) not in stored
    )
    left = zarrforge.unfinished_write(store, path)
    if mode == "r+":
        new = []  # refused by the writer, before anything is written
    if left is None:
        return Plan(store, path, False, mode, new, frozenset())
    written = {stored_name(k) for k in dataset.variables if k not in skipped} & stored
    leftovers = _named(left.operation, written)
    if new or leftovers:
        if left.operation == adding(sorted(set(new) | leftovers)):  # the same addition again
            return Plan(store, path, False, mode, sorted(set(new) | leftovers), frozenset(leftovers))
    again = (
        "Run the same to_zarr call again to write the variables it was adding anew, or pass"
        if left.operation and left.operation.startswith(PREFIX)
        else "Pass"
    )
    raise zarrforge.errors.UnfinishedWriteError(
        f"{'/' + path!r} holds what {left.describe()} left: its variables may be incomplete. "
        f"{again} mode='w' to replace the dataset; zarrforge.unfinished_write(store, path) "
        "reads the marker",
        unfinished=left,
    )


def _named(operation: str | None, candidates: set[str]) -> set[str]:
    """Those of ``candidates`` that a marker's operation names as variables it was adding."""
    if not operation or not operation.startswith(PREFIX):
        return set()
    named = operation[len(PREFIX) :].split(", ")
    return {name for name in candidates if repr(name) in named}


def _keys_at(store: Any, path: str) -> set[str]:
    try:
        return keys_below(store, path)
    except zarrforge.errors.ZarrforgeError:
        return set()
