"""The plugin manager: created once, on first use, from ``zarrforge.plugins``.

``import zarrforge`` does not create it, so importing the package imports no
plugin. :func:`plugin_manager` loads the installed hook plugins the first time
something needs a hook; :func:`register` adds an in-process plugin object.

Hook specifications come from :mod:`zarrforge.hookspecs` and from the
entry-point group ``zarrforge.hookspecs`` (a module or class of ``@hookspec``
functions: how a plugin that hosts hooks, such as the command line, declares
them), all added before any hook plugin is registered, so that every
implementation can be checked against them.

Each entry point is loaded on its own: one that fails to import, whose hook
implementations do not match their specifications, or that implements a hook
no specification declares (a misspelled ``zarrforge_*`` name would otherwise
never be called) is left out with a :class:`~zarrforge.errors.PluginLoadWarning`
naming its distribution and entry point, and shown as an error row by
``zarrforge.plugins()`` (see :func:`hook_plugins`); every other plugin, and
every call that does not need it, works as before. An implementation marked
``@hookimpl(optionalhook=True)`` may name a hook nobody declares. In-process
:func:`register` raises :class:`~zarrforge.errors.PluginLoadError` for the same
faults.

The engine calls its hooks through :func:`first_result` and :func:`broadcast`,
one implementation at a time: an implementation failing unexpectedly (anything
but a zarrforge error) is taken to answer ``None`` ("not mine": a URL or store
object it does not recognise, a node it has nothing to do with), with one
:class:`~zarrforge.errors.PluginFailureWarning` per plugin per process naming its
distribution and entry point (``zarrforge.registries.plugin_failures``), and the other
implementations are called as if it were not installed.
"""

from __future__ import annotations

import dataclasses
import difflib
import threading
import warnings
import weakref
from typing import Any

import pluggy

from .. import hookspecs
from ..errors import PluginLoadError, PluginLoadWarning
from . import entry_points, plugin_failures

ENTRY_POINT_GROUP = "zarrforge.plugins"
HOOKSPEC_GROUP = "zarrforge.hookspecs"

hookimpl = pluggy.HookimplMarker("zarrforge")

_manager: pluggy.PluginManager | None = None
_lock = threading.Lock()


@dataclasses.dataclass(frozen=True)
class HookPlugin:
    """One installed hook plugin: its entry point and, if it could not be loaded, why."""

    name: str
    distribution: str | None
    version: str | None
    value: str
    error: str | None = None


# What each manager loaded from the entry points (a manager made afresh reads them again).
_installed: weakref.WeakKeyDictionary[pluggy.PluginManager, list[HookPlugin]] = weakref.WeakKeyDictionary()


def plugin_manager() -> pluggy.PluginManager:
    """zarrforge's pluggy plugin manager, made on first use: zarrforge's hook
    specifications, those of the ``zarrforge.hookspecs`` entry points and the hook
    plugins of the ``zarrforge.plugins`` entry points (one that fails to load is recorded,
    see :func:`hook_plugins`).

    It raises nothing: an entry point that fails to load is left out with a
    :class:`~zarrforge.errors.PluginLoadWarning`.

    Returns
    -------
    pluggy.PluginManager
        The process's one plugin manager.

    Examples
    --------
    >>> manager = plugin_manager()
    >>> manager is plugin_manager(), manager.project_name
    (True, 'zarrforge')
    >>> manager.hook.zarrforge_resolve_store.spec is not None  # a declared hook
    True
    """
    global _manager
    if _manager is None:
        with _lock:
            if _manager is None:
                manager = pluggy.PluginManager("zarrforge")
                manager.add_hookspecs(hookspecs)
                specs = _load_hookspecs(manager)
                _installed[manager] = specs + _load_entry_points(manager)
                _manager = manager
    return _manager


def _who(dist_name: str | None, version: str | None) -> str:
    return f"distribution {dist_name!r} {version}" if dist_name else "an unknown distribution"


def _load_hookspecs(manager: pluggy.PluginManager) -> list[HookPlugin]:
    """Add the specifications of the ``zarrforge.hookspecs`` entry points; one that fails
    is reported as a hook plugin row with its error."""
    failed: list[HookPlugin] = []
    for ep in entry_points.installed(HOOKSPEC_GROUP):
        dist = ep.dist
        dist_name, version = (dist.name, dist.version) if dist is not None else (None, None)
        try:
            namespace = ep.load()
            new = [
                name
                for name in dir(namespace)
                if manager.parse_hookspec_opts(namespace, name) is not None and not _has_spec(manager, name)
            ]
            if new:
                manager.add_hookspecs(namespace)
        except Exception as exc:  # noqa: BLE001  # one broken plugin must not break the rest
            error = PluginLoadError(
                f"hook specifications {ep.name!r}: the entry point {ep.value!r} of "
                f"{_who(dist_name, version)} (group {HOOKSPEC_GROUP!r}) failed to load, and is "
                f"left out: {type(exc).__name__}: {exc}"
            )
            warnings.warn(str(error), PluginLoadWarning, stacklevel=4)
            failed.append(HookPlugin(ep.name, dist_name, version, ep.value, str(error)))
    return failed


def _has_spec(manager: pluggy.PluginManager, name: str) -> bool:
    caller = vars(manager.hook).get(name)  # the relay's attributes are its hook callers
    return caller is not None and caller.spec is not None


def _declared(manager: pluggy.PluginManager) -> list[str]:
    return sorted(name for name in vars(manager.hook) if _has_spec(manager, name))


def declared_hooks() -> list[str]:
    """The names of every hook a specification declares (zarrforge's and those of the
    ``zarrforge.hookspecs`` entry points), sorted. It raises nothing (a plugin that
    fails to load is left out with a :class:`~zarrforge.errors.PluginLoadWarning`).

    Returns
    -------
    list[str]
        The hook names, sorted.

    Examples
    --------
    >>> hooks = declared_hooks()
    >>> "zarrforge_resolve_store" in hooks, hooks == sorted(hooks)
    (True, True)
    """
    return _declared(plugin_manager())


def undeclared_hooks(manager: pluggy.PluginManager, plugin: Any) -> list[str]:
    """The hooks ``plugin`` implements that no specification declares (and that it did
    not mark ``optionalhook``), each with a suggestion when a declared name is close."""
    declared = _declared(manager)
    problems = []
    for caller in manager.get_hookcallers(plugin) or []:
        if caller.spec is not None:
            continue
        for impl in caller.get_hookimpls():
            if impl.plugin is plugin and not impl.optionalhook:
                close = difflib.get_close_matches(caller.name, declared, n=1, cutoff=0.8)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                problems.append(f"{caller.name!r}{hint}")
    return problems


def _undeclared_error(manager: pluggy.PluginManager, plugin: Any, label: str) -> str | None:
    problems = undeclared_hooks(manager, plugin)
    if not problems:
        return None
    return (
        f"{label} implements {', '.join(problems)}, which no hook specification "
        "declares, so it would never be called; declared hooks: "
        f"{', '.join(_declared(manager))} "
        "(mark an implementation @hookimpl(optionalhook=True) if it may go uncalled)"
    )


def _load_entry_points(manager: pluggy.PluginManager) -> list[HookPlugin]:
    found: list[HookPlugin] = []
    seen: set[tuple[str, str | None]] = set()
    for ep in entry_points.installed(ENTRY_POINT_GROUP):
        dist = ep.dist
        dist_name, version = (dist.name, dist.version) if dist is not None else (None, None)
        if (ep.name, dist_name) in seen:  # one distribution seen twice on sys.path
            continue
        seen.add((ep.name, dist_name))
        if manager.get_plugin(ep.name) is not None or manager.is_blocked(ep.name):
            continue
        label = (
            f"hook plugin {ep.name!r}: the entry point {ep.value!r} of "
            f"{_who(dist_name, version)} (group {ENTRY_POINT_GROUP!r})"
        )
        try:
            plugin = ep.load()
            manager.register(plugin, name=ep.name)
            undeclared = _undeclared_error(manager, plugin, label)
            if undeclared is not None:
                manager.unregister(plugin)
                raise PluginLoadError(undeclared)
        except Exception as exc:  # noqa: BLE001  # one broken plugin must not break the rest
            detail = (
                str(exc)
                if isinstance(exc, PluginLoadError)
                else f"{label} failed to load: {type(exc).__name__}: {exc}"
            )
            error = PluginLoadError(f"{detail}; it is left out")
            warnings.warn(str(error), PluginLoadWarning, stacklevel=3)
            found.append(HookPlugin(ep.name, dist_name, version, ep.value, str(error)))
            continue
        found.append(HookPlugin(ep.name, dist_name, version, ep.value))
    return found


def hook_plugins() -> list[HookPlugin]:
    """The installed hook plugins (entry points of ``zarrforge.plugins``), loaded or not.

    It raises nothing: a plugin that fails to load is a row with its ``error`` (and a
    :class:`~zarrforge.errors.PluginLoadWarning` when it is first loaded).

    Returns
    -------
    list[HookPlugin]
        One row per plugin (and per ``zarrforge.hookspecs`` entry point that failed to
        load), with its error when it failed.

    Examples
    --------
    >>> rows = hook_plugins()
    >>> all(plugin_manager().get_plugin(row.name) is not None for row in rows if row.error is None)
    True
    >>> sorted(vars(rows[0])) if rows else None  # the fields of a row
    ['distribution', 'error', 'name', 'value', 'version']
    """
    return list(_installed.get(plugin_manager(), ()))


def hook() -> Any:
    return plugin_manager().hook


def _origin(plugin_name: str) -> str:
    for plugin in _installed.get(plugin_manager(), ()):
        if plugin.name == plugin_name:
            return (
                f"entry point {plugin.value!r} of {_who(plugin.distribution, plugin.version)}"
                f" (group {ENTRY_POINT_GROUP!r})"
            )
    return "registered in-process"


def _results(name: str, doing: str, first: bool, kwargs: dict[str, Any]) -> list[Any]:
    caller = vars(hook())[name]  # the relay's attributes are its hook callers
    implementations = caller.get_hookimpls()
    if any(impl.hookwrapper or impl.wrapper for impl in implementations):
        # wrappers see the other implementations' outcome: pluggy must run the call
        result = caller(**kwargs)
        return ([] if result is None else [result]) if first else list(result)
    results = []
    for impl in reversed(implementations):  # pluggy's order: the last registered first
        try:
            result = impl.function(*[kwargs[arg] for arg in impl.argnames])
        except Exception as exc:
            if not plugin_failures.unexpected(exc):
                raise
            plugin_failures.left_out(
                "hook",
                impl.plugin_name,
                _origin(impl.plugin_name),
                exc,
                f"{doing} ({name}); its answer is taken as None",
                stacklevel=5,
            )
            continue
        if result is not None:
            results.append(result)
            if first:
                break
    return results


def first_result(name: str, doing: str, **kwargs: Any) -> Any:
    """The first answer other than ``None`` of the hook ``name`` (a ``firstresult`` hook),
    each implementation isolated (see the module docstring); ``doing`` says what the
    implementations were asked, for the warning."""
    results = _results(name, doing, True, kwargs)
    return results[0] if results else None


def broadcast(name: str, doing: str, **kwargs: Any) -> list[Any]:
    """Every implementation's answer other than ``None`` to the hook ``name``, each
    isolated (see the module docstring)."""
    return _results(name, doing, False, kwargs)


def register(plugin: Any, name: str | None = None) -> None:
    """Register a hook plugin in this process; :class:`~zarrforge.errors.PluginLoadError`
    (and nothing registered) if it implements a hook no specification declares."""
    manager = plugin_manager()
    manager.register(plugin, name=name)
    undeclared = _undeclared_error(manager, plugin, f"the hook plugin {name or plugin!r}")
    if undeclared is not None:
        manager.unregister(plugin)
        raise PluginLoadError(undeclared)


def unregister(plugin: Any) -> None:
    plugin_manager().unregister(plugin)
