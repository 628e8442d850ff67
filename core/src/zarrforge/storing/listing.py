"""A group's children from one listing of its prefix, for a format's ``list_children``.

:func:`child_names` lists the group's prefix once and keeps the sub-prefixes
that are valid node names and that the format, asked through ``is_node``,
holds a node at. It knows stores and paths only, nothing of formats or
documents, so the formats' own layer can use it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..abc.store import Store
from ..errors import InvalidPathError
from ..metadata import paths


def child_names(store: Store, path: str, is_node: Callable[[str], bool]) -> list[str]:
    """Sorted names of the children of ``path`` for which ``is_node(child_path)`` holds:
    the sub-directories of the group's prefix that are valid node names (chunk
    directories such as ``c`` of a root array, or foreign data, are skipped).

    It raises nothing of its own: what ``store.list_dir`` or ``is_node`` raise (a
    :class:`~zarrforge.errors.StoreError`...) is passed on.

    Parameters
    ----------
    store : zarrforge.abc.store.Store
        The store.
    path : str
        The group's path (``""`` for the root).
    is_node : Callable[[str], bool]
        Whether a child path holds a node (of the caller's format).

    Returns
    -------
    list[str]
        The children's names, sorted.

    Examples
    --------
    >>> store = zarrforge.storage.MemoryStore()
    >>> for key in ("b/zarr.json", "a/zarr.json", "c/0"):
    ...     store.set(key, b"{}")
    >>> child_names(store, "", lambda path: store.exists(f"{path}/zarr.json"))
    ['a', 'b']
    """
    prefix = f"{path}/" if path else ""
    names = []
    for child in store.list_dir(prefix).prefixes:
        name = child.rstrip("/")
        try:
            paths.validate_name(name)
        except InvalidPathError:
            continue
        if is_node(paths.join(path, name)):
            names.append(name)
    return sorted(names)
