"""The pluggy hook specifications of zarrforge (prefix ``zarrforge_``).

Entry points resolve *names* to implementations; hooks carry *events and
behaviours* that several plugins may join. A plugin module or object
implements any subset of these functions, decorated with
``zarrforge.hookimpl``, and is installed under the entry-point group
``zarrforge.plugins`` (or registered in-process with
``zarrforge.hooks.register(obj)``).
"""

from __future__ import annotations

from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("zarrforge")


@hookspec(firstresult=True)
def zarrforge_resolve_store(url: str, options: dict[str, Any], read_only: bool) -> Any:
    """Return a :class:`~zarrforge.abc.store.Store` for ``url``, or ``None``.

    Called before the URL scheme is looked up in the ``zarrforge.stores``
    registry, so a plugin can claim URLs that a scheme alone does not
    identify (chained URLs such as ``zip::s3://...``). The first non-``None``
    result wins. ``options`` are the keyword arguments the user passed
    (``storage_options``); ``read_only`` says whether the caller will write.
    """


@hookspec
def zarrforge_node_opened(node: Any) -> None:
    """Called after an :class:`~zarrforge.Array` or :class:`~zarrforge.Group`
    is opened or created, with the node object.

    Implementations may inspect ``node.metadata`` and attach behaviour, but
    must not write to the store. An exception raised here propagates to the
    caller and the node is not returned.
    """


@hookspec(firstresult=True)
def zarrforge_map_selection(array: Any, extension: Any, selection: Any, kind: str) -> Any:
    """Return the selection to use instead of ``selection``, or ``None`` to leave it.

    Called once for each entry of the array's ``extensions`` (in metadata
    order, each call receiving the previous result) before a selection is
    projected onto chunks, for reads and writes alike. ``kind`` is
    ``"basic"``, ``"orthogonal"``, ``"coordinate"``, ``"mask"`` or ``"block"``.
    Implementations check ``extension.name`` and return ``None`` for
    extensions that are not theirs. They must not read or write data.
    """


@hookspec
def zarrforge_after_write(array: Any, extension: Any, selection: Any, kind: str,
                          values: Any) -> None:
    """Called after ``values`` were written to ``selection`` (already mapped by
    :func:`zarrforge_map_selection`), once for each entry of the array's
    ``extensions``. ``values`` is broadcast to the selection's shape.
    Implementations may update the array's metadata (``array.set_extension``).
    """


@hookspec
def zarrforge_cli_commands() -> list[Any]:
    """Return click commands (``click.Command`` or ``click.Group``) to add to the
    ``zarrforge`` command line (zarrforge-cli); each command's ``name`` is its
    subcommand name. Called only when the command line lists its commands or runs
    a name that is not built in. Built-in names cannot be replaced; a name provided
    twice refuses to run and is reported by ``zarrforge plugins``. Implementations
    must not do I/O.
    """
