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
is a diagnostic call, not one for hot paths.
"""

from __future__ import annotations

import dataclasses

from . import hooks, registry
from .errors import PluginConflictError, ZarrforgeError


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
        cells = [headers] + [(r.point, r.name, r.distribution or "(in-process)", r.version or "",
                              r.status) for r in self]
        widths = [max(len(str(row[i])) for row in cells) for i in range(len(headers))]
        return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip()
                         for row in cells)


def _status(reg: registry.Registry, name: str) -> str:
    try:
        reg.get(name)
    except PluginConflictError as exc:
        return f"conflict: {exc}"
    except (ZarrforgeError, ImportError) as exc:
        return f"error: {exc}"
    return "ok"


def plugins() -> PluginReport:
    """Every registered name of every extension point, and the hook plugins."""
    rows = PluginReport()
    for attr, reg in registry.REGISTRIES.items():
        for entry in reg.entries():
            status = "ok (in-process)" if entry.source == "in-process" else _status(reg, entry.name)
            hidden = reg.shadowed_by(entry.name, entry.source)
            if hidden and status.startswith("ok"):
                inside = "in-process, " if entry.source == "in-process" else ""
                status = f"ok ({inside}overrides {', '.join(hidden)})"
            rows.append(PluginRow(attr, entry.name, entry.distribution, entry.version,
                                  entry.value, status))
    installed = {plugin.name: plugin for plugin in hooks.hook_plugins()}
    for plugin in installed.values():
        rows.append(PluginRow("hooks", plugin.name, plugin.distribution, plugin.version,
                              plugin.value, f"error: {plugin.error}" if plugin.error else "ok"))
    for name, plugin in hooks.plugin_manager().list_name_plugin():
        if plugin is None or name in installed:
            continue
        rows.append(PluginRow("hooks", name, None, None,  # registered in-process
                              getattr(plugin, "__name__", repr(plugin)), "ok (in-process)"))
    return rows
