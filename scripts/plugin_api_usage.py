"""Which plugins use each tool of the plugin surface (:mod:`zarrforge.plugin_api`).

A tool is a name of ``zarrforge.plugin_api`` that is not a contract of
:mod:`zarrforge.abc`. A plugin is a source tree under ``plugins/*/src`` or
``examples/*/src``; the conformance kit (``zarrforge.testing``, counted as ``kit``) uses
the surface as they do (plugin authors run it with the core alone, so what it needs
cannot come from a plugin). A user uses a tool when one of its modules imports the name from
``zarrforge.plugin_api`` or one of its modules, or reads it as an attribute of such a
module imported under a name (``from zarrforge import plugin_api as c``: ``c.tool``).
Read from the source with :mod:`ast`; nothing of the plugins is imported.

The rule (``tests/test_plugin_api_surface.py``): a tool is used by at least two plugins,
or is an engine service (:data:`ENGINE_SERVICES`), or is a type of another tool's
arguments or results (:data:`SIGNATURE_TYPES`), which goes wherever that tool goes.

Run ``python scripts/plugin_api_usage.py`` for the table: tool, count, plugins, and why a
tool with fewer than two users stays.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_SOURCES = (
    sorted(ROOT.glob("plugins/*/src"))
    + sorted(ROOT.glob("examples/*/src"))
    + sorted(ROOT.glob("examples/zep-playground/*/src"))
)
CORE_SOURCE = ROOT / "core" / "src"
KIT = CORE_SOURCE / "zarrforge" / "testing"
SURFACE = "zarrforge.plugin_api"

#: tools the engine offers whichever plugins use them: only the engine can provide them
ENGINE_SERVICES: dict[str, str] = {
    "map_parallel": "the engine's thread pool, on the threads of the call in progress",
    "current_chunk": "the engine's chunk context: the chunk being encoded",
    "encoding_chunk": "the engine's chunk context, set for the sub-chunks a codec encodes",
    "all_equal_fill": "the engine's empty-chunk test (write_empty_chunks=False)",
    "check_allocation": "the engine's resource limits (max_chunk_bytes, max_request_bytes)",
    "remembered_indexes": "the engine's caching service: indexes partial codecs read (config.index_cache)",
    "read_modify_write": "the engine's optimistic concurrency, its metadata updates nest in it",
    "normalize_basic_selection": "a selection exactly as the engine reads it (map_selection)",
    "resolve": "the registries' resolution, a failing plugin reported as the engine reports it",
    "CreationMemo": "the registries' resolution remembered across creations (by their generation)",
    "plugin_manager": "the engine's pluggy manager",
    "hook_plugins": "the engine's pluggy manager: the hook plugins it loaded",
    "declared_hooks": "the engine's hook specifications (what the conformance kit checks)",
    "dump_document_parts": "the engine's document writer as pieces, for Store.set_parts",
    "registry": "the engine's registries (a facade)",
    "config": "the engine's settings",
    "check_reference": "the engine's rule for what a document may refer to (reference_targets)",
    "ReferenceReader": "the engine's reads of referenced data, under the reference_targets setting",
}
#: types of another tool's arguments or results: they stay with that tool
SIGNATURE_TYPES: dict[str, str] = {
    "DocumentExtensions": "extensions_from_document",
    "SkippedCodec": "codec_from_json",
    "UnknownExtension": "extension_from_json",
    "ExtensionRef": "resolve",
    "EditedMembers": "RawMembers",
    "REMOVED": "RawMembers",
    "EntryLayout": "IndexedEntries",
    "ListedContent": "NodeDocument",
}


def tools() -> list[str]:
    import zarrforge.abc as contracts
    import zarrforge.plugin_api as surface

    return sorted(set(surface.__all__) - set(contracts.__all__))


def _surface_modules() -> frozenset[str]:
    import zarrforge.plugin_api as surface

    return frozenset({SURFACE, *(m.__name__ for m in surface.EXTENSION_POINT_MODULES)})


def _surface_module(name: str) -> bool:
    return name in _surface_modules()


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    return ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))


def names_used(path: Path, package: str = "") -> set[str]:
    """The names of the surface one module (of ``package``, for relative imports) uses."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    used: set[str] = set()
    aliases: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or node.level):
            module = _absolute(node, package)
            if _surface_module(module):
                for alias in node.names:
                    if _surface_module(f"{module}.{alias.name}"):
                        aliases.add(alias.asname or alias.name)  # a module of the surface
                    else:
                        used.add(alias.name)
            elif module == "zarrforge":
                aliases.update(
                    alias.asname or alias.name for alias in node.names if alias.name == "plugin_api"
                )
        elif isinstance(node, ast.Import):
            aliases.update(
                alias.asname for alias in node.names if alias.asname and _surface_module(alias.name)
            )
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            used.add(node.attr)
    return used


def usage() -> dict[str, list[str]]:
    """Each tool with the plugins (by directory name) and the kit (``kit``) that use it."""
    by_plugin = {
        root.parent.name: set().union(*(names_used(p) for p in root.rglob("*.py"))) for root in PLUGIN_SOURCES
    }
    by_plugin["kit"] = set().union(
        *(names_used(p, ".".join(p.relative_to(CORE_SOURCE).parent.parts)) for p in KIT.rglob("*.py"))
    )
    return {tool: sorted(plugin for plugin, names in by_plugin.items() if tool in names) for tool in tools()}


def why_it_stays(tool: str, users: list[str]) -> str | None:
    """``None`` when ``tool`` breaks the rule, else why it is on the surface."""
    if len(users) >= 2:
        return ""
    if tool in ENGINE_SERVICES:
        return f"engine service: {ENGINE_SERVICES[tool]}"
    if tool in SIGNATURE_TYPES:
        return f"type of {SIGNATURE_TYPES[tool]}"
    return None


def main() -> int:
    table = usage()
    broken = 0
    for tool, users in table.items():
        reason = why_it_stays(tool, users)
        broken += reason is None
        note = "BREAKS THE RULE" if reason is None else reason
        print(f"{tool:32} {len(users)}  {', '.join(users) or '-':48} {note}")
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
