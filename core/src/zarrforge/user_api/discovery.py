"""``zarrforge.plugins()``: what is installed, where it comes from, and whether it loads.

Each row names an extension point, a name, the distribution and version that
provide it (``None`` for in-process registrations), the entry point, and a
status: ``"ok"``, ``"conflict: ..."`` when several distributions provide the
name, or ``"error: ..."`` when importing it fails. A registration that takes a
name away from another provider says so: ``"ok (overrides 'numcodecs.*' of
zarrforge-numcodecs)"`` for an exact name installed beside another
distribution's family, ``"ok (in-process, overrides 'zstd' of ...)"`` for an
in-process registration of an installed name. A name provided twice shows
one row per provider. Checking the status imports the implementation, so this
is a diagnostic call, not one for hot paths. A format is also tried: its detection
is run on an empty memory store and on a small hierarchy of the default format (and
on a path with nothing), and a format that raises anything but a zarrforge error
there, or failed that way earlier in this process, is ``"error: ..."``: the library
treats its answer as "none of mine" (:mod:`zarrforge.nodes.hierarchy`), but it cannot find
its own nodes. Any other plugin the library left out in this process after it failed
unexpectedly (:mod:`zarrforge.registries.plugin_failures`: a family's ``claims``, a data type
asked for a numpy dtype, a hook) is ``"error: ..."`` too.

A loaded extension may say more about how it was installed: its ``plugin_note()``
(:class:`~zarrforge.abc.extension_point.ExtensionPoint`'s, ``None`` by default), a short
text the row's ``"ok"`` carries in brackets, such as the local store saying whether
zarrforge-batch-io's C helper was built. A note that fails is left out: it never turns a
working extension into an error.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from ..abc.extension_point import ExtensionPoint
from ..errors import PluginConflictError, ZarrforgeError
from ..nodes import hierarchy
from ..registries import hooks, plugin_failures, registry
from ..storing.storage import resolve_store
from .creation import create_array, create_group


@dataclasses.dataclass(frozen=True)
class PluginRow:
    point: str
    name: str
    distribution: str | None
    version: str | None
    value: str
    status: str


class PluginReport(list):
    """A list of :class:`PluginRow` that prints as a table."""

    def __str__(self) -> str:
        headers = ("extension point", "name", "distribution", "version", "status")
        cells = [headers] + [
            (r.point, r.name, r.distribution or "(in-process)", r.version or "", r.status) for r in self
        ]
        widths = [max(len(str(row[i])) for row in cells) for i in range(len(headers))]
        return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells)


def _status(reg: registry.Registry, name: str) -> str:
    try:
        reg.get(name)
    except PluginConflictError as exc:
        return f"conflict: {exc}"
    except (ZarrforgeError, ImportError) as exc:
        return f"error: {exc}"
    return "ok"


@functools.cache
def _probe() -> Any:
    """A memory store holding a group and an array of the default format (made once)."""
    store = resolve_store(None)
    create_group(store, "g")
    create_array(store, "g/a", shape=(2,), dtype="int8")
    return store


def _probes() -> list[tuple[str, Any, str]]:
    """``(what, store, path)``: where each format's detection is tried."""
    probes = [("an empty store", resolve_store(None), "")]
    try:
        store = _probe()
    except Exception:  # noqa: BLE001  # no default format to make it with (its row says why)
        return probes
    return (
        probes
        + [("another format's node", store, path) for path in ("", "g", "g/a")]
        + [("a path with nothing", store, "missing")]
    )


def _format_failure(name: str) -> str | None:
    """How the format ``name`` fails to look for nodes, or ``None`` if it does not."""
    try:
        fmt = registry.formats.get(name)()
    except Exception as exc:  # noqa: BLE001  # the point: a plugin's bug, reported
        return f"building it raises {type(exc).__name__}: {exc}"
    for what, store, path in _probes():
        try:
            fmt.detect(store, path)
            fmt.read_document(store, path)
        except ZarrforgeError:
            continue  # a refusal it names is an answer
        except Exception as exc:  # noqa: BLE001  # the point: a plugin's bug, reported
            return (
                f"its detection raises {type(exc).__name__}: {exc} on {what} at "
                f"{'/' + path!r}; zarrforge treats that as none of its own"
            )
    if name in hierarchy.failed_formats():
        return "failed while looking for its nodes earlier in this process (see its warning)"
    return None


def _note(reg: registry.Registry, name: str) -> list[str]:
    """The extension's ``plugin_note()`` (:class:`ExtensionPoint`), if it answers with text."""
    implementation = reg.get(name)
    if not (isinstance(implementation, type) and issubclass(implementation, ExtensionPoint)):
        return []
    try:
        text = implementation.plugin_note()
    except Exception:  # noqa: BLE001  # a diagnostic's diagnostic: a failing note is left out
        return []
    return [text] if isinstance(text, str) and text else []


def _left_out(point: str, name: str) -> str | None:
    if name in plugin_failures.failed(point):
        return "failed unexpectedly earlier in this process and was left out (see its PluginFailureWarning)"
    return None


def plugins() -> PluginReport:
    """Every registered name of every extension point, and the hook plugins.

    Returns
    -------
    zarrforge.user_api.discovery.PluginReport
        One :class:`zarrforge.user_api.discovery.PluginRow` per name and hook plugin, with its
        distribution, version and status.
    """
    rows = PluginReport()
    for attr, reg in registry.REGISTRIES.items():
        for entry in reg.entries():
            status = "ok" if entry.source == "in-process" else _status(reg, entry.name)
            if attr == "formats" and status.startswith("ok") and entry.name in hierarchy.installed_formats():
                failure = _format_failure(entry.name)
                status = f"error: {failure}" if failure else status
            elif status.startswith("ok"):
                failure = _left_out(reg.point, entry.name)
                status = f"error: {failure}" if failure else status
            hidden = reg.shadowed_by(entry.name, entry.source)
            if status.startswith("ok"):
                notes = ["in-process"] if entry.source == "in-process" else []
                if hidden:
                    notes.append(f"overrides {', '.join(hidden)}")
                notes += _note(reg, entry.name)
                status = f"ok ({', '.join(notes)})" if notes else "ok"
            rows.append(PluginRow(attr, entry.name, entry.distribution, entry.version, entry.value, status))
    installed = {plugin.name: plugin for plugin in hooks.hook_plugins()}
    for plugin in installed.values():
        error = plugin.error or _left_out("hook", plugin.name)
        rows.append(
            PluginRow(
                "hooks",
                plugin.name,
                plugin.distribution,
                plugin.version,
                plugin.value,
                f"error: {error}" if error else "ok",
            )
        )
    for name, module in hooks.plugin_manager().list_name_plugin():
        if module is None or name in installed:
            continue
        rows.append(
            PluginRow(
                "hooks",
                name,
                None,
                None,  # registered in-process
                getattr(module, "__name__", repr(module)),
                "ok (in-process)",
            )
        )
    return rows
