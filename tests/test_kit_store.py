"""The conformance kit stands on its own: it imports no plugin (its scratch hierarchies
live in its own :class:`~zarrforge.testing.kit_store.KitMemoryStore`), and that store
passes the kit's store and conditional-write suites like any store."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import zarrforge.testing
from zarrforge.testing import ConditionalWriteConformance, StoreConformance
from zarrforge.testing.kit_store import KitMemoryStore

CORE = Path(__file__).resolve().parent.parent / "core" / "src" / "zarrforge"


class TestKitMemoryStore(StoreConformance, ConditionalWriteConformance):
    def make_store(self, tmp_path):
        return KitMemoryStore()

    def make_read_only_store(self, store):
        return store.read_only_view()


def test_no_core_module_imports_a_plugin():
    """Read with ast, the kit included: core depends on no zarrforge_* distribution."""
    offenders = []
    for path in CORE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            offenders += [
                f"{path.relative_to(CORE)}:{node.lineno} {n}" for n in names if n.startswith("zarrforge_")
            ]
    assert offenders == []


def test_every_kit_module_imports_with_no_plugin_importable():
    """In a fresh interpreter where importing any zarrforge_* module fails, the kit's modules
    import and its store works."""
    modules = [f"zarrforge.testing.{m.name}" for m in pkgutil.iter_modules(zarrforge.testing.__path__)]
    program = (
        "import sys, importlib.abc\n"
        "class NoPlugins(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name.startswith('zarrforge_'):\n"
        "            raise ImportError(f'{name} is blocked: the kit must not need it')\n"
        "sys.meta_path.insert(0, NoPlugins())\n"
        f"for name in {modules!r}:\n"
        "    __import__(name)\n"
        "from zarrforge.testing.kit_store import KitMemoryStore\n"
        "s = KitMemoryStore(); s.set('a', b'1'); assert s.get('a') == b'1'\n"
        "print('ok', len(sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok")
