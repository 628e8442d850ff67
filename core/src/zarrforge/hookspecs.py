"""The pluggy hook specifications of zarrforge (prefix ``zarrforge_``).

Entry points resolve *names* to implementations, and a named extension's
behaviour lives on its object (:class:`~zarrforge.abc.extension.Extension`
methods). Hooks carry *events* that several plugins may join. A plugin module
or object implements any subset of these functions, decorated with
``zarrforge.hookimpl``, and is installed under the entry-point group
``zarrforge.plugins`` (or registered in-process with
``zarrforge.hooks.register(obj)``). A plugin that hosts hooks of its own declares
its specifications through the ``zarrforge.hookspecs`` entry-point group (or adds
them to the same manager with ``plugin_manager().add_hookspecs(module)``).
"""

from __future__ import annotations

from typing import Any, Protocol

import pluggy

from .abc.store import Store

hookspec = pluggy.HookspecMarker("zarrforge")


class OpenedNode(Protocol):
    """What ``zarrforge_node_opened`` receives: an :class:`~zarrforge.Array` or
    :class:`~zarrforge.Group` (declared here by what it offers, so that the hook
    specifications import nothing above them)."""

    @property
    def path(self) -> str: ...

    @property
    def read_only(self) -> bool: ...

    @property
    def metadata(self) -> dict[str, Any]: ...

    @property
    def metadata_model(self) -> Any: ...


@hookspec(firstresult=True)
def zarrforge_resolve_store(url: str, options: dict[str, Any], read_only: bool) -> Store | None:
    """Return a :class:`~zarrforge.abc.store.Store` for ``url``, or ``None``.

    Called before the URL scheme is looked up in the ``zarrforge.stores``
    registry, so a plugin can claim URLs that a scheme alone does not
    identify (chained URLs such as ``zip::s3://...``). Only URLs are offered (a
    string holding ``://`` or ``::``); a plain local path goes to the ``file``
    store directly. The first non-``None`` result wins. ``options`` are the keyword arguments the user passed
    (``storage_options``); ``read_only`` says whether the caller will write.
    """


@hookspec(firstresult=True)
def zarrforge_adapt_store(obj: Any, options: dict[str, Any], read_only: bool) -> Store | None:
    """Return a :class:`~zarrforge.abc.store.Store` that serves ``obj``, or ``None``.

    Called when the user passes as a store an object that is neither a zarrforge
    ``Store`` nor a path, URL or ``None``: another library's store (a zarr-python
    ``Store``, an Icechunk session's store). The first non-``None`` result wins; when
    every plugin answers ``None`` the call fails with a ``TypeError`` naming the type.
    An implementation should recognise the objects it adapts without importing their
    library when it is not already imported (``sys.modules``), so that unrelated calls
    stay cheap.
    """


@hookspec
def zarrforge_node_opened(node: OpenedNode) -> None:
    """Called after an :class:`~zarrforge.Array` or :class:`~zarrforge.Group`
    is opened or created, with the node object.

    Implementations may inspect ``node.metadata`` and attach behaviour, but
    must not write to the store. A zarrforge error raised here
    (:class:`~zarrforge.errors.ZarrforgeError` or a subclass) propagates to the
    caller, who gets no node: that is how an implementation refuses a node. Any
    other exception is a bug in the plugin (:mod:`zarrforge.hooks`, the isolation
    rule): it becomes a :class:`~zarrforge.errors.PluginFailureWarning` naming the
    plugin (once per process), the implementation's answer is taken as ``None``,
    the other implementations still run, and the node is returned.
    """
