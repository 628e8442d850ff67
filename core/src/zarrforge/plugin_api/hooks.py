"""The surface of a hook plugin (the ``zarrforge.plugins`` entry points, run by pluggy).

Contract: the hook specifications, :mod:`zarrforge.hookspecs` (every hook name starts
with ``zarrforge_``); a plugin marks its implementations with :func:`hookimpl`. A store
hook (``zarrforge_resolve_store``, ``zarrforge_adapt_store``) returns a :class:`Store`.

Engine services (the engine's own pluggy manager, which no plugin can hold itself):

* :func:`plugin_manager`: the manager, for a plugin that adds hook specifications of
  its own;
* :func:`hook_plugins`: the installed hook plugins with their distributions, and why
  any failed to load;
* :func:`declared_hooks`: the names every specification declares (what the
  conformance kit checks a hook plugin's implementations against).

Examples
--------
A hook plugin marks its implementations with :data:`hookimpl`; here a manager of its
own runs one (an installed plugin is registered in :func:`plugin_manager`'s):

>>> class NodeLogger:
...     @hookimpl
...     def zarrforge_node_opened(self, node):
...         print("opened", node)
>>> import pluggy
>>> from zarrforge import hookspecs
>>> manager = pluggy.PluginManager("zarrforge")
>>> manager.add_hookspecs(hookspecs)
>>> manager.register(NodeLogger(), name="node-logger")
'node-logger'
>>> manager.hook.zarrforge_node_opened(node="a node")
opened a node
[]

The hook returns no value, so the list of answers is empty.
"""

from __future__ import annotations

from ..abc.store import Store
from ..registries.hooks import declared_hooks, hook_plugins, hookimpl, plugin_manager

__all__ = ["Store", "declared_hooks", "hook_plugins", "hookimpl", "plugin_manager"]
