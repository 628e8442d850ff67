"""Every tool of ``zarrforge.plugin_api`` (its names that are not contracts of
:mod:`zarrforge.abc`) is documented with what it raises and an example, and the examples
run (issue #50).

The documentation of a name is its docstring (a function, a class, a module); for an
instance that carries none of its own (``registry``, ``hookimpl``, ``REMOVED``), the
docstring of the ``plugin_api`` module exporting it, whose example must use the name. A
docstring says what the tool raises in a numpydoc ``Raises`` section, or says it
"raises nothing". The examples are doctests, run here with the names of
``zarrforge.plugin_api``, ``numpy`` as ``np`` and ``zarrforge`` at hand.
"""

from __future__ import annotations

import doctest
import inspect
import re
import types

import numpy as np
import pytest

import zarrforge
import zarrforge.abc as contracts
import zarrforge.plugin_api as surface

TOOLS = sorted(set(surface.__all__) - set(contracts.__all__))


def _own_docstring(obj: object) -> bool:
    return isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, type, types.ModuleType)) or (
        callable(obj) and inspect.getdoc(obj) is not inspect.getdoc(type(obj)) and hasattr(obj, "__wrapped__")
    )


def documentation(name: str) -> tuple[str, str]:
    """``(where, docstring)`` documenting ``name``."""
    obj = getattr(surface, name)
    if _own_docstring(obj):
        return f"{getattr(obj, '__module__', None) or obj.__name__}.{name}", inspect.getdoc(obj) or ""
    homes = [m for m in surface.EXTENSION_POINT_MODULES if name in m.__all__]
    return homes[0].__name__, "\n\n".join(inspect.getdoc(m) or "" for m in homes)


@pytest.mark.parametrize("name", TOOLS)
def test_each_tool_says_what_it_raises_and_shows_an_example(name):
    where, doc = documentation(name)
    examples = doctest.DocTestParser().get_examples(doc)
    assert examples, f"{name} ({where}): no example (a '>>>' doctest) in its documentation"
    if not _own_docstring(getattr(surface, name)):
        assert any(re.search(rf"\b{re.escape(name)}\b", e.source) for e in examples), (
            f"{name} ({where}): the module's examples never use it"
        )
        return
    assert re.search(r"^Raises\n-{6}", doc, re.M) or "raises nothing" in doc.lower(), (
        f"{name} ({where}): its docstring does not say what it raises (a 'Raises' section, or 'raises nothing')"
    )


@pytest.mark.parametrize("name", TOOLS)
def test_the_examples_run(name):
    where, doc = documentation(name)
    test = doctest.DocTestParser().get_doctest(
        doc, {**vars(surface), "np": np, "zarrforge": zarrforge}, name, where, 0
    )
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
