"""The plugin surface per extension point (:mod:`zarrforge.plugin_api`, issue #42).

* every module of the package states its contract (a docstring) and exports only names
  it holds; the package re-exports every module's names and every contract of
  :mod:`zarrforge.abc`, each the same object wherever it is found;
* each tool is used by at least two plugins (the conformance kit counting as one), or is
  an engine service, or a type of another tool's signature
  (``scripts/plugin_api_usage.py`` counts them);
* the tools that left the surface still resolve on the package, with a warning;
* the plugins import the surface through its modules, not the package.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

import zarrforge.abc as contracts
import zarrforge.plugin_api as surface

ROOT = Path(__file__).resolve().parent.parent


def _usage_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "plugin_api_usage", ROOT / "scripts" / "plugin_api_usage.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("plugin_api_usage", module)
    spec.loader.exec_module(module)
    return module


USAGE = _usage_script()


@pytest.mark.parametrize("module", surface.EXTENSION_POINT_MODULES, ids=lambda m: m.__name__)
def test_each_module_states_its_contract_and_exports_what_it_holds(module: ModuleType) -> None:
    assert (module.__doc__ or "").strip().startswith("The surface of")
    assert module.__all__ and len(set(module.__all__)) == len(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is getattr(surface, name), name


def test_the_package_re_exports_every_module_and_every_contract() -> None:
    gathered = {name for module in surface.EXTENSION_POINT_MODULES for name in module.__all__}
    assert set(surface.__all__) == gathered | set(contracts.__all__)
    for name in contracts.__all__:
        assert getattr(surface, name) is getattr(contracts, name)
    homeless = set(contracts.__all__) - gathered
    assert sorted(homeless) == [], "a contract no extension point's module exports"


def test_each_tool_is_shared_or_an_engine_service() -> None:
    table = USAGE.usage()
    assert set(table) == set(surface.__all__) - set(contracts.__all__)
    broken = sorted(
        f"{tool}: {users}" for tool, users in table.items() if USAGE.why_it_stays(tool, users) is None
    )
    assert broken == []
    # the lists of exceptions name tools of the surface, each with fewer than two users
    for listed in (USAGE.ENGINE_SERVICES, USAGE.SIGNATURE_TYPES):
        assert set(listed) <= set(table)
    assert {tool for tool in USAGE.SIGNATURE_TYPES if len(table[tool]) >= 2} == set()
    for tool, holder in USAGE.SIGNATURE_TYPES.items():
        assert holder in table, f"{tool} goes with {holder}, which is not on the surface"


def test_engine_services_say_so() -> None:
    for tool in USAGE.ENGINE_SERVICES:
        homes = [m for m in surface.EXTENSION_POINT_MODULES if tool in m.__all__]
        assert any("ngine service" in (m.__doc__ or "") and tool in (m.__doc__ or "") for m in homes), tool


def test_the_counter_sees_every_form_of_import(tmp_path: Path) -> None:
    module = tmp_path / "plugin.py"
    module.write_text(
        "from zarrforge.plugin_api.codecs import CodecChain\n"
        "from zarrforge.plugin_api import formats as c, map_parallel\n"
        "from zarrforge import plugin_api as p\n"
        "import zarrforge.plugin_api.stores as s\n"
        "c.load_document, p.registry, s.versions\n"
    )
    assert USAGE.names_used(module) == {"CodecChain", "map_parallel", "load_document", "registry", "versions"}
    kit_module = tmp_path / "kit.py"
    kit_module.write_text("from ..plugin_api import declared_hooks\n")
    assert USAGE.names_used(kit_module, "zarrforge.testing") == {"declared_hooks"}


@pytest.mark.parametrize("name", sorted(surface._LEFT_THE_SURFACE))
def test_a_tool_that_left_the_surface_resolves_with_a_warning(name: str) -> None:
    assert name not in surface.__all__
    with pytest.warns(DeprecationWarning, match=f"plugin_api.{name} left the plugin surface"):
        assert getattr(surface, name) is surface._LEFT_THE_SURFACE[name][0]


@pytest.mark.parametrize("source_root", USAGE.PLUGIN_SOURCES, ids=lambda p: p.parent.name)
def test_plugins_import_the_surface_through_its_modules(source_root: Path) -> None:
    modules = {m.__name__.rpartition(".")[2] for m in surface.EXTENSION_POINT_MODULES}
    through_the_package = []
    for path in sorted(source_root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.level:
                continue
            names = {alias.name for alias in node.names}
            if (node.module == "zarrforge.plugin_api" and names - modules) or (
                node.module == "zarrforge" and "plugin_api" in names
            ):
                through_the_package.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert through_the_package == []
