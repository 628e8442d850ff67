"""A pytest plugin for the peer-suite runs: which items reach zarr-python past its top level.

Loaded with ``-p _classify`` into a run of zarr-python's own tests. For each item it
appends one JSON line to the file named by ``$ZARRFORGE_PEER_CLASSIFY``:
``{"nodeid", "objects", "names"}``, where

* ``objects``: an argument of the test (a fixture's value or a parameter, looked at two
  levels into lists, tuples and dicts) is an object of a zarr-python submodule (a
  ``zarr.storage.MemoryStore``, a ``zarr.dtype.Int16``, a class from ``zarr.codecs``...);
* ``names``: the test function's own source uses a name the module imported from a zarr
  submodule (``from zarr.storage import LocalStore``) or an attribute ``zarr.<name>`` that
  is not in zarr-python's top-level ``__all__``.

An item with neither reaches zarr only through its top-level names. Runs in the peer's
environment; imports nothing of zarrforge.
"""

from __future__ import annotations

import ast
import json
import os
from functools import lru_cache
from typing import Any

import pytest

_OUT = os.environ.get("ZARRFORGE_PEER_CLASSIFY")


@lru_cache(maxsize=1)
def _top_level_names() -> frozenset[str]:
    import zarr

    return frozenset(zarr.__all__)


def _is_zarr_python_object(value: Any, depth: int = 0) -> bool:
    kind = value if isinstance(value, type) else type(value)
    module = getattr(kind, "__module__", "") or ""
    if module.startswith("zarr."):
        return True
    if depth < 2 and isinstance(value, (list, tuple, set, frozenset)):
        return any(_is_zarr_python_object(v, depth + 1) for v in value)
    if depth < 2 and isinstance(value, dict):
        return any(_is_zarr_python_object(v, depth + 1) for v in value.values())
    return False


@lru_cache(maxsize=64)
def _module_facts(path: str) -> tuple[frozenset[str], dict[str, ast.AST]]:
    """Names the module imports from zarr submodules, and its functions by qualified name."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    imported: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("zarr."):
            imported.update(alias.asname or alias.name for alias in node.names)
    functions: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for inner in node.body:
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    functions[f"{node.name}.{inner.name}"] = inner
    return frozenset(imported), functions


def _uses_submodule_names(item: pytest.Item) -> bool:
    path = str(getattr(item, "path", ""))
    name = getattr(item, "originalname", None) or item.name
    if not path.endswith(".py") or not name:
        return False
    imported, functions = _module_facts(path)
    cls = getattr(item, "cls", None)
    function = functions.get(f"{cls.__name__}.{name}" if cls else name)
    if function is None:
        return False
    top = _top_level_names()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id in imported:
            return True
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "zarr"
            and node.attr not in top
        ):
            return True
    return False


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    yield
    if _OUT is None or call.when != "setup":
        return
    funcargs = getattr(item, "funcargs", {}) or {}
    record = {
        "nodeid": item.nodeid,
        "objects": any(_is_zarr_python_object(v) for v in funcargs.values()),
        "names": _uses_submodule_names(item),
    }
    with open(_OUT, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
