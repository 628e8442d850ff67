"""``zarrforge.array-statistics``: bounds and a write count kept up to date on every write.

Metadata (arrays of integer and float data types only)::

    {"name": "zarrforge.array-statistics", "must_understand": false,
     "configuration": {"min": -3, "max": 1023, "count": 4096,
                       "recent_updates": ["1f0c2a9e4b7d", ...]}}

What the numbers mean ("correct"):

* ``min`` / ``max`` bound every value written through zarrforge while the
  extension was present: each written value ``v`` satisfies ``min <= v <=
  max``. They are bounds over writes, not over the current contents:
  overwriting or deleting values never shrinks them, and elements never
  written (which read as the fill value) are not included. NaN is ignored;
  infinities are values and are written as ``"Infinity"`` / ``"-Infinity"``
  (JSON has no number for them). Both are ``null`` until a non-NaN value has
  been written.
* ``count`` is the number of element writes: the size of every written
  selection, added up (overwrites count again, duplicate points of a
  coordinate selection count once per occurrence, NaN counts).
* ``recent_updates`` (optional; other readers may ignore it) lists the ids of
  the last updates, so a writer can check that its update was not replaced
  by a concurrent one (below).

Updating. After every write (``ArrayStatistics.after_write``) the writer
summarises the written values, then, holding a lock per (store, array path)
in this process and, for local-directory stores, an advisory file lock shared
by the processes of this machine:

1. reads the stored document (not the in-memory copy, which may be stale);
2. merges its summary into the stored statistics, adds a fresh update id, and
   writes the document back (other fields as stored, so concurrent attribute
   changes by other processes are kept);
3. reads the document again; if its update id is missing, a concurrent writer
   replaced the document with one computed from an older version, so it
   goes back to 1 (at most ``MAX_ATTEMPTS`` times, with a short randomised
   pause, then :class:`StatisticsUpdateError`).

Writers in one process, and processes of one machine sharing a local store,
are fully serialised by the locks, so their statistics are exact. What
remains (documented in docs/extensions.md): writers on other machines, or on
stores without a local path, rely on step 3 alone, which cannot see a
replacement that lands after its verifying read; and a writer without this
plugin (which keeps the entry verbatim because of ``must_understand: false``)
updates data without updating the statistics.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import math
import os
import random
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import numpy as np

from zarrforge.abc.extension import Extension
from zarrforge.errors import MetadataError, ReadOnlyError, ZarrforgeError

NAME = "zarrforge.array-statistics"
# fmin/fmax skip NaN unless all are NaN; typed loosely: numpy 2.5's stubs take no array of
# an unknown float dtype in ufunc.reduce
_FMIN: Any = np.fmin
_FMAX: Any = np.fmax
SUPPORTED_KINDS = "iuf"  # numpy kinds: signed and unsigned integers, floats
MAX_ATTEMPTS = 8
RECENT_UPDATES = 32


class UnsupportedDataTypeError(ZarrforgeError, TypeError):
    """Statistics were asked for an array whose data type is not an integer or float type."""


class StatisticsUpdateError(ZarrforgeError, RuntimeError):
    """The statistics could not be merged into the stored document (concurrent writers)."""


@dataclasses.dataclass(frozen=True)
class Statistics:
    """``min`` and ``max`` (``None`` before any non-NaN value) and ``count``."""

    min: int | float | None
    max: int | float | None
    count: int

    def merged(self, other: Statistics) -> Statistics:
        # min and max are None together (from_json refuses one without the other)
        if self.min is None or self.max is None:
            low, high = other.min, other.max
        elif other.min is None or other.max is None:
            low, high = self.min, self.max
        else:
            low, high = min(self.min, other.min), max(self.max, other.max)
        return Statistics(low, high, self.count + other.count)


EMPTY = Statistics(None, None, 0)


def summarize(values: np.ndarray) -> Statistics:
    """The statistics of one write of ``values``."""
    values = np.asarray(values)
    count = int(values.size)
    if count == 0:
        return EMPTY
    kind = values.dtype.kind
    if kind in "iu":
        return Statistics(int(values.min()), int(values.max()), count)
    if kind == "f":
        low = _FMIN.reduce(values.reshape(-1))
        if np.isnan(low):
            return Statistics(None, None, count)
        return Statistics(float(low), float(_FMAX.reduce(values.reshape(-1))), count)
    raise UnsupportedDataTypeError(f"{NAME} supports integer and float data types, not {values.dtype}")


# --- JSON -----------------------------------------------------------------------------------


def _bound_to_json(value: float | None) -> Any:
    if isinstance(value, float) and math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def _bound_from_json(value: Any, field: str) -> int | float | None:
    if value is None or (
        isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    ):
        return value
    if value == "Infinity":
        return math.inf
    if value == "-Infinity":
        return -math.inf
    raise MetadataError(
        f'expected a number, null, "Infinity" or "-Infinity", got {value!r}', field=field, value=value
    )


class ArrayStatistics(Extension):
    """The ``zarrforge.array-statistics`` extension entry."""

    name = NAME
    node_types = frozenset({"array"})

    def __init__(self, statistics: Statistics = EMPTY, recent_updates: tuple[str, ...] = ()) -> None:
        self.statistics = statistics
        self.recent_updates = tuple(recent_updates)

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> ArrayStatistics:
        if configuration is None:
            raise MetadataError(
                f"{name} needs a configuration with min, max and count", field="configuration", value=None
            )
        unknown = sorted(set(configuration) - {"min", "max", "count", "recent_updates"})
        if unknown:
            raise MetadataError(
                f"unknown configuration key(s) {unknown}; valid: ['count', 'max', 'min', 'recent_updates']",
                field="configuration",
                value=configuration,
            )
        low = _bound_from_json(configuration.get("min"), "configuration.min")
        high = _bound_from_json(configuration.get("max"), "configuration.max")
        if (low is None) != (high is None):
            raise MetadataError(
                f"min and max must both be null or both be set, got {low!r} and {high!r}",
                field="configuration",
                value=configuration,
            )
        if low is not None and high is not None and low > high:
            raise MetadataError(
                f"min {low!r} is greater than max {high!r}", field="configuration.min", value=low
            )
        count = configuration.get("count")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise MetadataError(
                f"count must be a non-negative integer, got {count!r}",
                field="configuration.count",
                value=count,
            )
        updates = configuration.get("recent_updates", [])
        if not isinstance(updates, list) or not all(isinstance(u, str) for u in updates):
            raise MetadataError(
                f"recent_updates must be a list of strings, got {updates!r}",
                field="configuration.recent_updates",
                value=updates,
            )
        return cls(Statistics(low, high, count), tuple(updates))

    def to_json(self) -> dict[str, Any]:
        s = self.statistics
        configuration: dict[str, Any] = {
            "min": _bound_to_json(s.min),
            "max": _bound_to_json(s.max),
            "count": s.count,
        }
        if self.recent_updates:
            configuration["recent_updates"] = list(self.recent_updates)
        return {"name": self.name, "configuration": configuration}

    def check(self, dtype: np.dtype, *, where: str = "configuration") -> None:
        """Raise ``MetadataError`` if the entry does not fit an array of ``dtype``."""
        if dtype.kind not in SUPPORTED_KINDS:
            raise MetadataError(
                f"{NAME} applies to integer and float data types, not {dtype}",
                field=where,
                value=self.to_json().get("configuration"),
            )
        if dtype.kind in "iu":
            for bound in ("min", "max"):
                value = getattr(self.statistics, bound)
                if value is not None and not isinstance(value, int):
                    raise MetadataError(
                        f"{bound} must be an integer for the {dtype} data type, got {value!r}",
                        field=f"{where}.{bound}",
                        value=value,
                    )

    def validate(self, metadata: Any) -> None:
        """The node-level check: the core calls it on open and before writing."""
        self.check(metadata.data_type.numpy_dtype)

    def after_write(self, array: Any, selection: Any, kind: str, values: Any) -> None:
        """The Extension contract: merge the written values into the stored statistics."""
        record_write(array, summarize(values))

    def updated(self, delta: Statistics, update_id: str) -> ArrayStatistics:
        entry = ArrayStatistics(
            self.statistics.merged(delta), ((*self.recent_updates, update_id))[-RECENT_UPDATES:]
        )
        entry.must_understand = self.must_understand_mark  # absent, true or false, as it was
        return entry


# --- locks ----------------------------------------------------------------------------------

_locks: dict[tuple[str, str], threading.Lock] = {}
_locks_guard = threading.Lock()


def _identity(array: Any) -> tuple[str, str]:
    root = array.store.local_directory()
    return (f"file:{root}" if root is not None else f"object:{id(array.store)}", array.path)


@contextlib.contextmanager
def _file_lock(array: Any) -> Iterator[None]:
    """An advisory lock shared by the processes of this machine, for local stores."""
    root = array.store.local_directory()
    try:
        import fcntl
    except ImportError:  # not POSIX: the optimistic check is all there is
        fcntl = None  # type: ignore[assignment]
    if root is None or fcntl is None:
        yield
        return
    digest = hashlib.sha256(f"{root}\0{array.path}".encode()).hexdigest()[:32]
    directory = os.path.join(tempfile.gettempdir(), "zarrforge-locks")
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, f"statistics-{digest}.lock"), "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@contextlib.contextmanager
def locked(array: Any) -> Iterator[None]:
    """Serialise statistics updates of one array: threads, then local processes."""
    key = _identity(array)
    with _locks_guard:
        lock = _locks.setdefault(key, threading.Lock())
    with lock, _file_lock(array):
        yield


# --- reading and updating the stored document -----------------------------------------------


def _stored(array: Any) -> tuple[Any, int | None, Any]:
    """The stored metadata model, the index of the statistics entry in it, and the entry."""
    metadata = array.format.read_node(array.store, array.path)
    if metadata is None or metadata.node_type != "array":
        raise MetadataError(f"the array {array.name!r} no longer exists in {array.store!r}")
    for i, entry in enumerate(metadata.extensions):
        if entry.name == NAME:
            return metadata, i, entry
    return metadata, None, None


def _write_entry(array: Any, metadata: Any, index: int | None, entry: ArrayStatistics) -> None:
    """Write ``metadata`` (the stored model) with ``entry`` at ``index`` (or appended)."""
    entries = list(metadata.extensions)
    if index is None:
        entries.append(entry)
    else:
        entries[index] = entry
    # The stored model, not the array's in-memory one: the rest of the document stays as
    # stored. Writing it through the node keeps the in-memory model and consolidated views
    # in step.
    array.replace_metadata(dataclasses.replace(metadata, extensions=tuple(entries)))


def record_write(array: Any, delta: Statistics) -> None:
    """Merge ``delta`` into the array's stored statistics (the after-write protocol)."""
    if delta.count == 0:
        return
    with locked(array):
        for attempt in range(MAX_ATTEMPTS):
            metadata, index, entry = _stored(array)
            if not isinstance(entry, ArrayStatistics):
                return  # removed meanwhile (or no longer understood): nothing to keep up to date
            update_id = uuid.uuid4().hex[:12]
            _write_entry(array, metadata, index, entry.updated(delta, update_id))
            _, _, check = _stored(array)
            if not isinstance(check, ArrayStatistics) or update_id in check.recent_updates:
                return
            time.sleep(random.uniform(0, 0.002 * 2**attempt))
    raise StatisticsUpdateError(
        f"the statistics of {array.name!r} were replaced by concurrent writers {MAX_ATTEMPTS} "
        f"times in a row; the data was written but {NAME} does not include this write "
        f"({delta}). Rebuild it with enable_statistics(array, reset=True, scan=True)."
    )


# --- the public helpers ---------------------------------------------------------------------


def _check_type(array: Any) -> None:
    if array.dtype.kind not in SUPPORTED_KINDS:
        raise UnsupportedDataTypeError(
            f"{NAME} supports integer and float data types; the array {array.name!r} has "
            f"data type {array.data_type.to_json()!r} (numpy {array.dtype})"
        )


def _scan(array: Any) -> Statistics:
    grid = array.metadata_model.chunk_grid
    result = EMPTY
    for coords in array.stored_chunks():
        extent = grid.chunk_extent(coords)
        chunk = array.get_chunk(coords)[tuple(slice(0, e) for e in extent)]
        result = result.merged(summarize(chunk))
    return Statistics(result.min, result.max, 0)


def enable_statistics(
    array: Any, *, must_understand: bool = False, scan: bool = False, reset: bool = False
) -> Statistics:
    """Add ``zarrforge.array-statistics`` to ``array`` and return its statistics.

    Arrays of integer and float data types only (else
    :class:`UnsupportedDataTypeError`). The entry is written with
    ``must_understand: false`` unless asked otherwise. If the array has the
    entry already it is kept as it is, unless ``reset`` is true. ``scan``
    reads every stored chunk once to start ``min``/``max`` from the values
    stored now (their in-bounds elements, including fill values inside written
    chunks); ``count`` always starts at 0.
    """
    _check_type(array)
    if array.read_only:
        raise ReadOnlyError(
            f"the array {array.name!r} is open read-only; open it with mode='r+' to enable {NAME}"
        )
    with locked(array):
        metadata, index, entry = _stored(array)
        if isinstance(entry, ArrayStatistics) and not reset:
            return entry.statistics
        start = _scan(array) if scan else EMPTY
        new = ArrayStatistics(start)
        new.must_understand = must_understand
        _write_entry(array, metadata, index, new)
        return start


def statistics(array: Any) -> Statistics | None:
    """The array's stored statistics (one read of its metadata document, no chunk reads),
    or ``None`` when it has none."""
    _, _, entry = _stored(array)
    if entry is None:
        return None
    if not isinstance(entry, ArrayStatistics):
        raise MetadataError(f"{NAME} of {array.name!r} could not be resolved")
    return entry.statistics
