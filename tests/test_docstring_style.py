"""The public functions' docstrings follow the NumPy style (numpydoc) the documentation site renders.

For every function of ``zarrforge.__all__`` and ``zarrforge.asyncio.__all__``: one that takes
parameters has a ``Parameters`` section naming each of them (``*args`` and ``**kwargs`` as
written), and one whose signature returns something other than ``None`` has a ``Returns`` (or
``Yields``) section.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import pytest

import zarrforge
import zarrforge.asyncio

_HEADER_RULE = re.compile(r"^\s*-{3,}\s*$")


def _functions(module: Any) -> dict[str, Callable[..., Any]]:
    """The functions (not classes, not markers) among ``module.__all__``, by qualified name."""
    found: dict[str, Callable[..., Any]] = {}
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isfunction(obj):
            found[f"{module.__name__}.{name}"] = obj
    return found


FUNCTIONS: dict[str, Callable[..., Any]] = {**_functions(zarrforge), **_functions(zarrforge.asyncio)}


def _sections(doc: str) -> dict[str, list[str]]:
    """The docstring's NumPy sections: each header (a line followed by a line of dashes) -> its lines."""
    lines = doc.splitlines()
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    index = 0
    while index < len(lines):
        if index + 1 < len(lines) and lines[index].strip() and _HEADER_RULE.match(lines[index + 1]):
            current = sections.setdefault(lines[index].strip(), [])
            index += 2
            continue
        if current is not None:
            current.append(lines[index])
        index += 1
    return sections


def _documented_parameters(section: list[str]) -> set[str]:
    """The names a Parameters section documents: its unindented ``name : type`` (or ``a, b : type``) lines."""
    names: set[str] = set()
    for line in section:
        if not line.strip() or line[:1].isspace():
            continue
        head = line.split(" : ", 1)[0].strip()
        names.update(part.strip().replace("\\", "") for part in head.split(","))
    return names


def _signature_parameters(function: Callable[..., Any]) -> list[str]:
    names = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.name in ("self", "cls"):
            continue
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            names.append(f"*{parameter.name}")
        elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
            names.append(f"**{parameter.name}")
        else:
            names.append(parameter.name)
    return names


def _returns_something(function: Callable[..., Any]) -> bool:
    annotation = inspect.signature(function).return_annotation
    return annotation not in (inspect.Signature.empty, None, "None")


WITH_PARAMETERS = sorted(name for name, function in FUNCTIONS.items() if _signature_parameters(function))
RETURNING = sorted(name for name, function in FUNCTIONS.items() if _returns_something(function))


def test_the_lists_cover_the_public_functions() -> None:
    assert "zarrforge.open_array" in WITH_PARAMETERS
    assert "zarrforge.asyncio.open_array" in RETURNING
    assert len(_functions(zarrforge)) >= 40
    assert len(_functions(zarrforge.asyncio)) >= 6


@pytest.mark.parametrize("name", WITH_PARAMETERS)
def test_parameters_section_names_every_parameter(name: str) -> None:
    function = FUNCTIONS[name]
    sections = _sections(inspect.getdoc(function) or "")
    assert "Parameters" in sections, f"{name}: no Parameters section"
    missing = [
        p for p in _signature_parameters(function) if p not in _documented_parameters(sections["Parameters"])
    ]
    assert not missing, f"{name}: Parameters does not name {missing}"


@pytest.mark.parametrize("name", RETURNING)
def test_returns_or_yields_section_when_returning_something(name: str) -> None:
    sections = _sections(inspect.getdoc(FUNCTIONS[name]) or "")
    assert "Returns" in sections or "Yields" in sections, f"{name}: no Returns or Yields section"
