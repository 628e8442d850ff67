"""Batches of local file reads and writes made without holding Python's GIL.

zarrforge's local store (``zarrforge_std.stores.local``) uses this package where it is
installed and its C helper was built (POSIX systems with a C compiler): the whole-value
reads of one ``get_many`` and the writes of one ``set_many`` that fall in one directory
are then made by one call into C, which opens, reads or writes, and renames each file
relative to the directory without holding the GIL. The engine's other threads run
Python meanwhile, so a read or write of many small chunks uses more than one core
(``StoreCapabilities.io_without_gil``). Without it the store does the same in Python.

Contract:

* :data:`AVAILABLE`: whether the helper was built and loads.
* :func:`read_files` ``(directory_fd, names, follow)``: for each name, the whole file of
  that name in the open directory ``directory_fd`` as ``bytes``; ``None`` where there is
  none (absent, below a file, or a directory); an ``int``, the ``errno`` of the failure,
  where anything else failed (the caller reports it: this reports nothing). With
  ``follow`` false a name that is a symbolic link fails (``ELOOP``). Each file is opened
  once and copied once: a file over 64 KiB is read straight into its ``bytes``.
* :func:`write_files` ``(directory_fd, names, temporary_names, values)``: for each item
  in order, a new file ``temporary_names[i]`` (which must not exist) holding
  ``values[i]``, renamed over ``names[i]``; it stops at the first item that fails
  (removing its temporary file) or whose value is not one contiguous buffer, and
  returns how many items it wrote. The caller writes the rest its own way, which
  reports any error.
* Without the helper both raise :class:`RuntimeError`; callers check
  :data:`AVAILABLE` first.
"""

from __future__ import annotations

from collections.abc import Sequence

try:
    from . import _native
except ImportError:  # not built here: not POSIX, or no C compiler when installed
    _native = None  # type: ignore[assignment]

AVAILABLE = _native is not None


def read_files(directory_fd: int, names: list[str], follow: bool) -> list[bytes | int | None]:
    """The whole files ``names`` in the open directory ``directory_fd`` (see the module)."""
    if _native is None:
        raise RuntimeError("zarrforge-batch-io's C helper was not built here")
    return _native.read_files(directory_fd, names, follow)


def write_files(
    directory_fd: int,
    names: list[str],
    temporary_names: list[str],
    values: Sequence[bytes | bytearray | memoryview],
) -> int:
    """Write and rename into place; how many of the items were written (see the module)."""
    if _native is None:
        raise RuntimeError("zarrforge-batch-io's C helper was not built here")
    return _native.write_files(directory_fd, names, temporary_names, list(values))
