"""The import structure the architecture promises (docs/architecture.md, "Layers").

Read from the source with :mod:`ast`, nothing imported:

* core has no import cycle, counting imports inside functions (a function-local
  import is still a dependency) and those under ``if TYPE_CHECKING:`` (a cycle a
  type checker follows is still a cycle);
* no core module imports :mod:`zarrforge.user_api.api` (the top of the core) except the
  package's ``__init__``, :mod:`zarrforge.user_api.zarr_api` (zarr-python's functions on
  it), :mod:`zarrforge.asyncio.api` (its functions as coroutines) and zarr-python's module
  paths :mod:`zarrforge.api.synchronous` and :mod:`zarrforge.api.asynchronous`, and no core
  module imports another core module inside a function (such
  imports only ever served to hide a cycle);
* the metadata documents (:mod:`zarrforge.metadata`) import nothing of the core
  but the errors and the settings (two leaves): they are the lowest layer above them;
* :mod:`zarrforge.plugin_api` is the bottom layer of the plugin surface: what it
  imports, followed all the way down, is the declared :data:`BOTTOM_LAYER` and
  nothing above it (no module that opens nodes, builds arrays or resolves stores);
  its modules, one per extension point (:data:`PLUGIN_API_MODULES`), likewise, each
  on its own;
* plugins come in two tiers (docs/architecture.md, "Two tiers of plugins"), and
  each imports from the core only its tier's surface: an extension-point plugin
  ``zarrforge.abc.*``, ``zarrforge.errors``, ``zarrforge.plugin_api`` and
  ``zarrforge.testing.*``; an application plugin the user API ``zarrforge`` and its
  asyncio face ``zarrforge.asyncio`` (the packages, not their modules),
  ``zarrforge.abc.*``, ``zarrforge.errors`` and ``zarrforge.hierarchy_api``. Both
  may take ``__version__`` from ``zarrforge``;
* no plugin (``plugins/*/src``, ``examples/*/src``) has an import cycle among its own
  modules, counted the same way;
* the conformance kit (``zarrforge.testing``), which plugin authors run with nothing but
  the core installed, imports from the core only public surfaces (:data:`KIT_SURFACE`:
  both tiers' together, as it tries extension points in whole hierarchies) and reaches
  the registries only through the facade, like a plugin.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "core" / "src" / "zarrforge"
PLUGIN_SOURCES = (
    sorted(ROOT.glob("plugins/*/src"))
    + sorted(ROOT.glob("examples/*/src"))
    + sorted(ROOT.glob("examples/zep-playground/*/src"))
)
# Plugins that work on whole hierarchies, as users do; every other plugin (and the
# examples' third-party plugin) provides extension points.
APPLICATION_PLUGINS = frozenset({"cli", "serve", "xarray", "zom"})
EXTENSION_SURFACE = (
    "zarrforge._version",
    "zarrforge.abc",
    "zarrforge.errors",
    "zarrforge.plugin_api",
    "zarrforge.testing",
)
APPLICATION_SURFACE = (
    "zarrforge",
    "zarrforge._version",
    "zarrforge.abc",
    "zarrforge.asyncio",
    "zarrforge.errors",
    "zarrforge.hierarchy_api",
)
# The conformance kit sits on top: it tries extension points (plugin_api) in hierarchies
# it builds as a user does (zarrforge, hierarchy_api); its own modules are its own.
KIT_SURFACE = (
    "zarrforge",
    "zarrforge._version",
    "zarrforge.abc",
    "zarrforge.errors",
    "zarrforge.plugin_api",
    "zarrforge.hierarchy_api",
    "zarrforge.testing",
)
KIT = CORE / "testing"
# Surface entries that are user-facing packages: the package itself, none of its modules.
PACKAGE_ONLY = ("zarrforge", "zarrforge.asyncio")
# The plugin surface's modules, one per extension point (the package re-exports them all).
PLUGIN_API_MODULES = frozenset(
    {
        "zarrforge.plugin_api.chunk_grids",
        "zarrforge.plugin_api.codecs",
        "zarrforge.plugin_api.data_types",
        "zarrforge.plugin_api.extensions",
        "zarrforge.plugin_api.formats",
        "zarrforge.plugin_api.hooks",
        "zarrforge.plugin_api.memory_layouts",
        "zarrforge.plugin_api.storage_transformers",
        "zarrforge.plugin_api.stores",
    }
)
# What zarrforge.plugin_api stands on, all the way down (docs/architecture.md, "Layers").
BOTTOM_LAYER = PLUGIN_API_MODULES | frozenset(
    {
        "zarrforge.abc",
        "zarrforge.abc.chunk_grid",
        "zarrforge.abc.chunk_key_encoding",
        "zarrforge.abc.codec",
        "zarrforge.abc.data_type",
        "zarrforge.abc.extension",
        "zarrforge.abc.extension_point",
        "zarrforge.abc.format",
        "zarrforge.abc.memory_layout",
        "zarrforge.abc.metadata",
        "zarrforge.abc.read_limits",
        "zarrforge.abc.storage_transformer",
        "zarrforge.abc.store",
        "zarrforge.abc.store_values",
        "zarrforge.abc.url_adapter",
        "zarrforge.engine.chunk_context",
        "zarrforge.engine.chunk_helpers",
        "zarrforge.engine.codec_arguments",
        "zarrforge.engine.codec_chain",
        "zarrforge.engine.index_memory",
        "zarrforge.config",
        "zarrforge.config_keys",
        "zarrforge.errors",
        "zarrforge.registries.hooks",
        "zarrforge.hookspecs",
        "zarrforge.engine.indexing",
        "zarrforge.engine.indexing.indexers",
        "zarrforge.engine.indexing.normalize",
        "zarrforge.engine.indexing.pieces",
        "zarrforge.engine.indexing.values",
        "zarrforge.engine.layout_codec",
        "zarrforge.storing.listing",
        "zarrforge.metadata.document",
        "zarrforge.metadata.extension_def",
        "zarrforge.metadata.extension_entries",
        "zarrforge.metadata.indexed_view",
        "zarrforge.metadata.raw_members",
        "zarrforge.metadata.json_io",
        "zarrforge.metadata.must_understand",
        "zarrforge.metadata.parse_memo",
        "zarrforge.metadata.raw_json",
        "zarrforge.metadata.raw_reading",
        "zarrforge.metadata.replacing",
        "zarrforge.storing.optimistic",
        "zarrforge.storing.references",
        "zarrforge.engine.parallel",
        "zarrforge.registries.plugin_failures",
        "zarrforge.registries.creation_memo",
        "zarrforge.metadata.paths",
        "zarrforge.registries.registry",
        "zarrforge.registries.resolution",
        "zarrforge.storing.versions",
        "zarrforge.registries.entry_points",
        "zarrforge.registries.known_providers",
        "zarrforge.registries.registry_facade",
    }
)
# Imports outside a plugin's tier that are allowed, each with its reason.
TIER_EXCEPTIONS = {
    # the deprecated zarrforge_cli_commands hook (goes in 0.3) asks the hook plugins itself
    ("plugins/cli/src/zarrforge_cli/legacy_hook.py", "zarrforge.plugin_api.hooks"),
}
# Function-local imports of the core that are allowed, each with its reason.
DEFERRED_IMPORTS = {
    # the deprecation shim for names moved to the application tier (goes in 0.3): the
    # bottom layer must not import the hierarchy at module level
    ("zarrforge.plugin_api", "zarrforge.hierarchy_api"),
}


def module_name(path: Path, source_root: Path) -> str:
    parts = list(path.relative_to(source_root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def core_modules() -> dict[str, Path]:
    return {module_name(p, CORE.parent): p for p in CORE.rglob("*.py")}


def imports(path: Path, module: str, known: set[str]) -> list[tuple[str, bool, int]]:
    """``(imported module, inside a function?, line)`` for every import of ``path``.

    ``from package import name`` counts as importing ``package.name`` when that is a
    module of ``known``, else as importing ``package``.
    """
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, bool, int]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.Import):
            found.extend((alias.name, in_function, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                if target == "zarrforge" and alias.name == "__version__":
                    found.append(("zarrforge._version", in_function, node.lineno))
                    continue
                candidate = f"{target}.{alias.name}"
                found.append((candidate if candidate in known else target, in_function, node.lineno))
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(tree, False)
    return found


def core_graph() -> dict[str, set[str]]:
    modules = core_modules()
    known = set(modules)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for target, _, _ in imports(path, name, known):
            # importing a.b.c runs a and a.b first; a package's own __init__ is not a
            # dependency of its modules in the sense that matters here, so keep modules only
            if target in known and target != name and target != "zarrforge":
                graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                cycle = walk(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = walk(node)
            if cycle:
                return cycle
    return None


def test_the_checker_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_core_has_no_import_cycle() -> None:
    graph = core_graph()
    # subpackages import their modules; a package's __init__ is a node like any other
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def package_graph(source_root: Path) -> dict[str, set[str]]:
    """The imports among the modules under ``source_root``, as :func:`core_graph` reads
    them (imports inside functions and under ``if TYPE_CHECKING:`` included)."""
    modules = {module_name(p, source_root): p for p in source_root.rglob("*.py")}
    known = set(modules)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        top = name.partition(".")[0]
        for target, _, _ in imports(path, name, known):
            # as in core_graph: the top package's __init__ (which gathers the modules for
            # users) is not a dependency of the modules it gathers
            if target in known and target != name and target != top:
                graph[name].add(target)
    return graph


@pytest.mark.parametrize("source_root", PLUGIN_SOURCES, ids=lambda p: p.parent.name)
def test_plugins_have_no_import_cycle(source_root: Path) -> None:
    graph = package_graph(source_root)
    assert graph, f"no modules under {source_root}"
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_the_plugin_cycle_check_counts_hidden_imports(tmp_path: Path) -> None:
    package = tmp_path / "plugin"
    package.mkdir()
    (package / "__init__.py").write_text("from .a import f\n")
    (package / "a.py").write_text("def f():\n    from .b import g\n    return g()\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\n"
    )
    assert find_cycle(package_graph(tmp_path)) == ["plugin.a", "plugin.b", "plugin.a"]


# Above zarrforge.user_api.api: the package, zarr-python's convenience functions built on the API,
# the asyncio API's functions (the blocking ones, run off the event loop) and zarr-python's
# module names for them all (zarrforge.api.synchronous; zarrforge.api.asynchronous, which
# makes coroutines of the convenience functions).
ABOVE_THE_API = (
    "zarrforge",
    "zarrforge.user_api.zarr_api",
    "zarrforge.asyncio.api",
    "zarrforge.api.synchronous",
    "zarrforge.api.asynchronous",
)


def test_no_core_module_imports_the_api() -> None:
    modules = core_modules()
    importers = sorted(
        name
        for name, path in modules.items()
        if name not in ABOVE_THE_API
        and any(
            t in ("zarrforge.user_api.api", "zarrforge.user_api.zarr_api")
            for t, _, _ in imports(path, name, set(modules))
        )
    )
    assert importers == []


def test_no_core_module_imports_core_inside_a_function() -> None:
    modules = core_modules()
    local = sorted(
        f"{name}:{line} imports {target}"
        for name, path in modules.items()
        for target, in_function, line in imports(path, name, set(modules))
        if in_function
        and (target == "zarrforge" or target.startswith("zarrforge."))
        and (name, target) not in DEFERRED_IMPORTS
    )
    assert local == []


def closure(start: str) -> set[str]:
    """The core modules ``start`` imports, followed all the way down (the deferred imports
    of :data:`DEFERRED_IMPORTS` aside)."""
    modules = core_modules()
    known = set(modules)
    below, todo = set(), [start]
    while todo:
        name = todo.pop()
        for target, in_function, _ in imports(modules[name], name, known):
            if in_function and (name, target) in DEFERRED_IMPORTS:
                continue
            if target in known and target not in below and target not in ("zarrforge", name):
                below.add(target)
                todo.append(target)
    return below


def test_the_plugin_api_stands_on_the_bottom_layer_only() -> None:
    below = closure("zarrforge.plugin_api")
    assert sorted(below - BOTTOM_LAYER) == []
    assert sorted(BOTTOM_LAYER - below) == [], "a module left the bottom layer: update BOTTOM_LAYER"


def test_the_plugin_api_modules_are_all_declared() -> None:
    found = {name for name in core_modules() if name.startswith("zarrforge.plugin_api.")}
    assert found == PLUGIN_API_MODULES


@pytest.mark.parametrize("module", sorted(PLUGIN_API_MODULES))
def test_each_plugin_api_module_stands_on_the_bottom_layer_only(module: str) -> None:
    """A module of the surface imports neither the package that gathers them nor another
    of them: each stands on its own, on the bottom layer."""
    below = closure(module)
    assert sorted(below - BOTTOM_LAYER) == []
    assert sorted(below & (PLUGIN_API_MODULES | {"zarrforge.plugin_api"})) == []


# What importing the package itself adds to the bottom layer: the package, its version,
# and the packages (layer folders) holding the bottom layer's modules, which import nothing.
PACKAGES = frozenset(
    {
        "zarrforge",
        "zarrforge._version",
        "zarrforge.abc",
        "zarrforge.metadata",
        "zarrforge.registries",
        "zarrforge.storing",
        "zarrforge.engine",
    }
)


def test_the_package_init_imports_the_bottom_layer_only() -> None:
    """``zarrforge/__init__.py`` loads the user API lazily (a module ``__getattr__``):
    every import it makes at module level is of the bottom layer."""
    modules = core_modules()
    eager = {
        target
        for target, in_function, _ in imports(modules["zarrforge"], "zarrforge", set(modules))
        if not in_function and target.startswith("zarrforge.")
    }
    assert eager and sorted(eager - BOTTOM_LAYER - PACKAGES) == []


@pytest.mark.parametrize(
    "surface",
    [
        "zarrforge.plugin_api",
        *sorted(PLUGIN_API_MODULES),
        "zarrforge.abc.codec",
        "zarrforge.errors",
        "zarrforge",
    ],
)
def test_importing_a_plugin_surface_loads_the_bottom_layer_only(surface: str) -> None:
    """Run time, not only the source: in a fresh interpreter, importing a surface a plugin
    imports (the package ``__init__`` included, which Python runs first) loads no module of
    the engine, the nodes or the user API."""
    code = f"import sys, {surface}\nprint('\\n'.join(m for m in sys.modules if m.startswith('zarrforge')))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    loaded = set(done.stdout.split())
    allowed = BOTTOM_LAYER | PACKAGES | {"zarrforge.plugin_api"}
    assert surface in loaded and sorted(loaded - allowed) == []


def test_the_user_api_is_there_when_asked_for() -> None:
    code = (
        "import zarrforge as zf\n"
        "a = zf.create_array(None, shape=(2,), dtype='int8', fill_value=3)\n"
        "assert a[...].tolist() == [3, 3] and isinstance(a, zf.Array)\n"
        "assert zf.user_api.__name__ == 'zarrforge.user_api'\n"
        "assert set(zf.__all__) <= set(dir(zf))\n"
        "try:\n    zf.no_such_name\nexcept AttributeError as exc:\n"
        "    print(exc)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "module 'zarrforge' has no attribute 'no_such_name'"


def test_names_moved_to_the_hierarchy_api_still_resolve_with_a_warning() -> None:
    import zarrforge.hierarchy_api as hierarchy_api
    import zarrforge.plugin_api as plugin_api

    moved = sorted(plugin_api._MOVED_TO_HIERARCHY_API)
    assert moved and set(moved) <= set(hierarchy_api.__all__)
    for name in moved:
        with pytest.warns(DeprecationWarning, match=f"zarrforge.hierarchy_api.{name}"):
            assert getattr(plugin_api, name) is getattr(hierarchy_api, name)
    with pytest.raises(AttributeError, match="no_such_name"):
        plugin_api.no_such_name


# The core's layers, bottom up (docs/architecture.md, "Layers"), each a folder (or, for the
# leaves and the faces, named modules): a module imports modules of its own layer and of
# the layers below, never above. Every core module belongs to exactly one layer.
LAYERS = (
    ("leaves", ("zarrforge._version", "zarrforge.errors", "zarrforge.config", "zarrforge.config_keys")),
    ("documents", ("zarrforge.metadata",)),
    ("contracts", ("zarrforge.abc", "zarrforge.hookspecs")),
    ("registries", ("zarrforge.registries",)),
    ("storing", ("zarrforge.storing",)),
    ("engine", ("zarrforge.engine",)),
    ("nodes", ("zarrforge.nodes",)),
    ("user API", ("zarrforge.user_api",)),
    (
        "faces",
        (
            "zarrforge",
            "zarrforge.api",
            "zarrforge.asyncio",
            "zarrforge.codecs",
            "zarrforge.hierarchy_api",
            "zarrforge.plugin_api",
            "zarrforge.storage",
            "zarrforge.testing",
        ),
    ),
)


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of the layer holding ``module`` (the longest prefix)."""
    best, found = -1, -1
    for index, (_, roots) in enumerate(LAYERS):
        for root in roots:
            if (module == root or module.startswith(root + ".")) and len(root) > best:
                best, found = len(root), index
    return found


def test_every_core_module_is_in_a_layer_and_imports_none_above_it() -> None:
    modules = core_modules()
    unplaced = sorted(name for name in modules if layer_of(name) < 0)
    assert unplaced == []
    upward = sorted(
        f"{name} ({LAYERS[layer_of(name)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
        for name, path in modules.items()
        for target, in_function, _ in imports(path, name, set(modules))
        if target in modules and layer_of(target) > layer_of(name) and (name, target) not in DEFERRED_IMPORTS
    )
    assert upward == []


def test_the_layer_check_sees_an_upward_import() -> None:
    assert layer_of("zarrforge.engine.pipeline") > layer_of("zarrforge.storing.optimistic")
    assert layer_of("zarrforge.user_api.arrays") > layer_of("zarrforge.nodes.node")
    assert layer_of("zarrforge") == layer_of("zarrforge.testing.formats") == len(LAYERS) - 1
    assert layer_of("zarrforge.metadata.paths") == 1 and layer_of("elsewhere") == -1


def test_each_layer_folder_states_what_it_may_import() -> None:
    for _, roots in LAYERS:
        for root in roots:
            folder = CORE.parent.joinpath(*root.split("."))
            if folder.is_dir() and root != "zarrforge":
                doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
                assert "may import" in doc, f"{root}/__init__.py does not say what it may import"


def test_metadata_documents_are_the_leaf_layer() -> None:
    modules = core_modules()
    outside = sorted(
        f"{name} imports {target}"
        for name, path in modules.items()
        if name.startswith("zarrforge.metadata")
        for target, _, _ in imports(path, name, set(modules))
        if target.startswith("zarrforge")
        and not target.startswith("zarrforge.metadata")
        and target not in ("zarrforge.errors", "zarrforge.config")
    )
    assert outside == []


def _allowed(target: str, surface: tuple[str, ...]) -> bool:
    return any(
        target == allowed or (allowed not in PACKAGE_ONLY and target.startswith(allowed + "."))
        for allowed in surface
    )


def surface_of(source_root: Path) -> tuple[str, ...]:
    return APPLICATION_SURFACE if source_root.parent.name in APPLICATION_PLUGINS else EXTENSION_SURFACE


@pytest.mark.parametrize("source_root", PLUGIN_SOURCES, ids=lambda p: p.parent.name)
def test_plugins_import_only_their_tiers_surface(source_root: Path) -> None:
    known = set(core_modules())
    assert known, "the core's modules were not found"
    surface = surface_of(source_root)
    outside = []
    for path in sorted(source_root.rglob("*.py")):
        name = module_name(path, source_root)
        for target, _, line in imports(path, name, known):
            if (
                (target == "zarrforge" or target.startswith("zarrforge."))
                and not _allowed(target, surface)
                and (str(path.relative_to(ROOT)), target) not in TIER_EXCEPTIONS
            ):
                outside.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert outside == []


def test_the_conformance_kit_imports_only_public_surfaces() -> None:
    """The kit ran against internals (``zarrforge.nodes.hierarchy``, ``zarrforge.storing.storage``,
    ``zarrforge.registries.resolution``, the registry module...), so it moved with them and could not
    stand for what a plugin may rely on."""
    modules = core_modules()
    kit = sorted(name for name in modules if name.startswith("zarrforge.testing"))
    assert "zarrforge.testing.formats" in kit, "the kit's modules were not found"
    outside = sorted(
        f"{name}:{line} imports {target}"
        for name in kit
        for target, _, line in imports(modules[name], name, set(modules))
        if (target == "zarrforge" or target.startswith("zarrforge.")) and not _allowed(target, KIT_SURFACE)
    )
    assert outside == []


def test_the_conformance_kit_reaches_the_registries_only_through_the_facade() -> None:
    found = [hit for path in sorted(KIT.rglob("*.py")) for hit in registry_internals_used(path)]
    assert found == []


def test_every_application_plugin_exists() -> None:
    assert APPLICATION_PLUGINS <= {root.parent.name for root in PLUGIN_SOURCES}


def test_the_surface_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    plugin = tmp_path / "myplugin"
    plugin.mkdir()
    (plugin / "__init__.py").write_text(
        "from zarrforge import registry\n"
        "from zarrforge.plugin_api import CodecChain\n"
        "def f():\n    from zarrforge.engine.codec_chain import CodecChain\n"
        "from zarrforge.hierarchy_api import open_node\n"
        "import zarrforge\n"
        "from zarrforge import __version__\n"
        "import zarrforge.asyncio\n"
        "from zarrforge.asyncio.offload import run_blocking\n"
    )
    known = set(core_modules())
    targets = [t for t, _, _ in imports(plugin / "__init__.py", "myplugin", known)]
    # zarrforge.registry is the package's attribute (the module lives in zarrforge.registries)
    assert targets == [
        "zarrforge",
        "zarrforge.plugin_api",
        "zarrforge.engine.codec_chain",
        "zarrforge.hierarchy_api",
        "zarrforge",
        "zarrforge._version",
        "zarrforge.asyncio",
        "zarrforge.asyncio.offload",
    ]
    assert [_allowed(t, EXTENSION_SURFACE) for t in targets] == [
        False,
        True,
        False,
        False,
        False,
        True,
        False,
        False,
    ]
    assert [_allowed(t, APPLICATION_SURFACE) for t in targets] == [
        True,
        False,
        False,
        True,
        True,
        True,
        True,
        False,
    ]


def registry_internals_used(path: Path) -> list[str]:
    """``registry.<name>`` (or ``zarrforge.registry.<name>``) where ``<name>`` is not on the
    facade plugins get (``plugin_api.registry``): the registry module's internals."""
    from zarrforge.plugin_api import registry as facade

    public = set(dir(facade))
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if not isinstance(node, ast.Attribute):
            continue
        value = node.value
        through_name = isinstance(value, ast.Name) and value.id == "registry"
        through_package = (
            isinstance(value, ast.Attribute)
            and value.attr == "registry"
            and isinstance(value.value, ast.Name)
            and value.value.id in ("zarrforge", "zf")
        )
        if (through_name or through_package) and node.attr not in public:
            found.append((node.lineno, f"{path.relative_to(ROOT)}:{node.lineno} registry.{node.attr}"))
    return [hit for _, hit in sorted(found)]


@pytest.mark.parametrize("source_root", PLUGIN_SOURCES, ids=lambda p: p.parent.name)
def test_plugins_reach_the_registries_only_through_the_facade(source_root: Path) -> None:
    found = [hit for path in sorted(source_root.rglob("*.py")) for hit in registry_internals_used(path)]
    assert found == []


def test_the_facade_check_sees_registry_internals(tmp_path: Path) -> None:
    module = tmp_path / "plugin.py"
    module.write_text(
        "from zarrforge.plugin_api import registry\n"
        "registry.codecs.get('zstd')\n"
        "registry.KNOWN_PROVIDERS['codec']\n"
        "import zarrforge\nzarrforge.registry.FAMILY_SUFFIX\n"
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert [hit.split(" ")[1] for hit in registry_internals_used(module)] == [
            "registry.KNOWN_PROVIDERS",
            "registry.FAMILY_SUFFIX",
        ]
    finally:
        ROOT = saved


def test_every_abstract_method_of_the_contracts_states_its_contract() -> None:
    """``help(Format.write_node)`` says something: each abstract method in ``zarrforge.abc``
    has a docstring of its own."""
    import inspect

    import zarrforge.abc as contracts

    silent = set()
    for name in contracts.__all__:
        cls = getattr(contracts, name)
        if not inspect.isclass(cls):
            continue
        for method in getattr(cls, "__abstractmethods__", ()):
            function = inspect.getattr_static(cls, method)
            function = getattr(function, "__func__", function)
            function = getattr(function, "fget", function)
            if not (function.__doc__ or "").strip():
                silent.add(function.__qualname__)
    assert sorted(silent) == []


def test_the_names_array_and_group_are_free_for_functions() -> None:
    """zarr-python's ``array()`` and ``group()`` functions need these top-level names, so the
    node classes live in ``zarrforge.user_api.arrays`` and ``zarrforge.user_api.groups``."""
    import importlib.util

    import zarrforge

    assert importlib.util.find_spec("zarrforge.array") is None
    assert importlib.util.find_spec("zarrforge.group") is None
    assert zarrforge.Array.__module__ == "zarrforge.user_api.arrays"
    assert zarrforge.Group.__module__ == "zarrforge.user_api.groups"
