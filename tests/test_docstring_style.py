"""The public docstrings follow the NumPy style (numpydoc) the documentation site renders.

Every function of ``zarrforge.__all__``, ``zarrforge.asyncio.__all__`` and
``zarrforge.plugin_api.__all__``, and every abstract member of the contracts the plugin API
exports, has a ``Parameters`` section naming each parameter (when it has any; ``*args`` and
``**kwargs`` as written) and a ``Returns`` or ``Yields`` section (when it returns something)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import pytest

import zarrforge
import zarrforge.asyncio
import zarrforge.plugin_api as plugin_api


def _functions(module: Any) -> dict[str, Callable[..., Any]]:
    """The functions (not classes, not markers) among ``module.__all__``, by qualified name."""
    return {
        f"{module.__name__}.{name}": getattr(module, name)
        for name in module.__all__
        if inspect.isfunction(getattr(module, name))
    }


def _abstract_members() -> dict[str, Callable[..., Any]]:
    """Each abstract member of each exported contract, by ``Class.member``; a property by
    its getter, a classmethod by its function."""
    members: dict[str, Callable[..., Any]] = {}
    for name in plugin_api.__all__:
        cls = getattr(plugin_api, name)
        if not inspect.isclass(cls):
            continue
        for member in sorted(getattr(cls, "__abstractmethods__", ())):
            raw = inspect.getattr_static(cls, member)
            if isinstance(raw, property):
                assert raw.fget is not None
                function = raw.fget
            elif isinstance(raw, (classmethod, staticmethod)):
                function = raw.__func__
            else:
                function = raw
            members[f"zarrforge.plugin_api.{name}.{member}"] = function
    return members


USER_FUNCTIONS = {**_functions(zarrforge), **_functions(zarrforge.asyncio)}
FUNCTIONS = _functions(plugin_api)
ABSTRACT_MEMBERS = _abstract_members()


def _section(doc: str, title: str) -> list[str] | None:
    """The lines of the section ``title`` (its underline a line of dashes), up to the next
    section or the end; ``None`` when the docstring has no such section."""
    lines = doc.splitlines()
    for i in range(len(lines) - 1):
        if lines[i].strip() == title and re.fullmatch(r"-{3,}", lines[i + 1].strip()):
            body: list[str] = []
            for j in range(i + 2, len(lines)):
                if j + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[j + 1].strip()) and lines[j].strip():
                    break
                body.append(lines[j])
            return body
    return None


def _documented_parameters(doc: str) -> set[str]:
    """The names the ``Parameters`` section documents (``name : type`` or ``name`` lines at the
    section's own indentation; ``*args`` and ``**kwargs`` as written)."""
    body = _section(doc, "Parameters") or []
    names: set[str] = set()
    for line in body:
        if not line or line[0].isspace():
            continue
        for name in line.split(" : ")[0].split(","):
            names.add(name.strip())
    return names


def _expected_parameters(function: Callable[..., Any]) -> set[str]:
    names = set()
    for parameter in inspect.signature(function).parameters.values():
        if parameter.name in ("self", "cls"):
            continue
        if parameter.kind is parameter.VAR_POSITIONAL:
            names.add(f"*{parameter.name}")
        elif parameter.kind is parameter.VAR_KEYWORD:
            names.add(f"**{parameter.name}")
        else:
            names.add(parameter.name)
    return names


def _returns_something(function: Callable[..., Any]) -> bool:
    annotation = inspect.signature(function).return_annotation
    return annotation not in (None, "None", inspect.Signature.empty)


ALL = {**USER_FUNCTIONS, **FUNCTIONS, **ABSTRACT_MEMBERS}
WITH_PARAMETERS = sorted(name for name, function in ALL.items() if _expected_parameters(function))
RETURNING = sorted(name for name, function in ALL.items() if _returns_something(function))


def test_the_lists_cover_the_public_functions() -> None:
    assert len(_functions(zarrforge)) >= 40
    assert len(_functions(zarrforge.asyncio)) >= 6
    assert len(FUNCTIONS) >= 40
    assert len(ABSTRACT_MEMBERS) >= 60
    assert "zarrforge.open_array" in WITH_PARAMETERS
    assert "zarrforge.asyncio.open_array" in RETURNING


def test_the_checks_tell_a_missing_section() -> None:
    def undocumented(a: int, *args: int, b: str = "", **kwargs: Any) -> int:
        """One line, no sections."""
        return a

    def documented(a: int, *args: int, b: str = "", **kwargs: Any) -> int:
        """One line.

        Parameters
        ----------
        a : int
            A.
        *args : int
            More.
        b : str
            B.
        **kwargs : Any
            The rest.

        Returns
        -------
        int
            ``a``.
        """
        return a

    assert _expected_parameters(undocumented) == {"a", "*args", "b", "**kwargs"}
    assert _documented_parameters(inspect.getdoc(undocumented) or "") == set()
    assert _section(inspect.getdoc(undocumented) or "", "Returns") is None
    assert _documented_parameters(inspect.getdoc(documented) or "") == {"a", "*args", "b", "**kwargs"}
    assert _section(inspect.getdoc(documented) or "", "Returns") == ["int", "    ``a``."]
    assert _returns_something(documented)


@pytest.mark.parametrize("qualname", WITH_PARAMETERS)
def test_parameters_section_names_every_parameter(qualname: str) -> None:
    function = ALL[qualname]
    expected = _expected_parameters(function)
    doc = inspect.getdoc(function) or ""
    assert _section(doc, "Parameters") is not None, f"{qualname}: no Parameters section"
    missing = expected - _documented_parameters(doc)
    assert not missing, f"{qualname}: Parameters does not name {sorted(missing)}"


@pytest.mark.parametrize("qualname", RETURNING)
def test_returns_or_yields_section_when_it_returns_something(qualname: str) -> None:
    function = ALL[qualname]
    doc = inspect.getdoc(function) or ""
    assert _section(doc, "Returns") is not None or _section(doc, "Yields") is not None, (
        f"{qualname}: returns {inspect.signature(function).return_annotation!r} but has no "
        "Returns or Yields section"
    )
