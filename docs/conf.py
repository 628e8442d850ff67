"""Sphinx configuration of zarrforge's documentation site (``make docs``; output in ``site/``).

The build is strict: ``-W -n`` (every warning fails, every reference must resolve).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Document the sources of this checkout, whichever checkout the environment was installed from
# (a worktree builds its own docstrings); the entry points still come from the installed metadata.
for _src in [ROOT / "core" / "src", *sorted(ROOT.glob("plugins/*/src"))]:
    if str(_src) not in sys.path:
        sys.path.insert(0, str(_src))

project = "zarrforge"
author = "the zarrforge authors"
copyright = "the zarrforge authors"  # noqa: A001  # Sphinx's name for the setting

try:
    from zarrforge import __version__ as release
except ImportError:  # pragma: no cover - the build documents the installed package
    release = "unknown"
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx_click",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# Every reference must resolve (sphinx -n); the ones below name targets that cannot exist here.
nitpicky = True

# MyST: `page.md#a-heading` links resolve to the heading's anchor (GitHub's slugs), as on GitHub.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]

# autodoc: the members in source order, the signatures' annotations in the description, where
# the long unions of the engine's types read better than in the signature line.
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False

nitpick_ignore: list[tuple[str, str]] = []
nitpick_ignore_regex: list[tuple[str, str]] = [
    # The standard library, numpy, pluggy, fsspec, click, dask, xarray: no intersphinx (the build has no
    # network), so their names cannot resolve; they are not zarrforge's to document.
    (
        r"py:.*",
        r"(builtins|typing|typing_extensions|collections|collections\.abc|types|abc|enum|os|io|pathlib|"
        r"concurrent\.futures|threading|asyncio|contextlib|dataclasses|functools|json|warnings|weakref|"
        r"importlib\.metadata)\..*",
    ),
    (r"py:.*", r"(numpy|np|numpy\.typing|npt|pluggy|fsspec|click|dask|dask\.array|xarray)(\..*)?"),
    # typing's names as annotations spell them unqualified
    (r"py:.*", r"(Any|Callable|Iterator|Iterable|Mapping|Sequence|Awaitable|Self|TypeAlias)"),
    # Private names: type variables (``T``, ``_F``) and underscored helpers, which are not documented
    (r"py:.*", r"(.*\.)?_[A-Za-z_]\w*"),
    (r"py:class", r"(zarrforge\.[\w.]*\.)?[A-Z]"),
    # the type variable of the selection views (an Array's or an AsyncArray's selector)
    (r"py:class", r"zarrforge\.user_api\.array_selections\.View"),
]

html_theme = "furo"
html_title = f"zarrforge {release}"


# -- Re-exported names -------------------------------------------------------------------------
# zarrforge documents a name where users import it (``zarrforge.open_array``,
# ``zarrforge.plugin_api.CodecChain``), while its docstrings and annotations name it where it is
# defined (``zarrforge.user_api.api.open_array``) or relative to the module it is re-exported from.
# Python's domain cannot know that two names are one object: a reference no documented name
# matches is imported, and resolved to the documented name of the same object, if there is one.
# Anything else still fails the build.

import pkgutil  # noqa: E402
import re  # noqa: E402
from typing import Any  # noqa: E402

_MISSING = object()
_documented: dict[int, tuple[Any, str]] = {}
_documented_from: list[int] = [0]


def _import_dotted(name: str) -> Any:
    try:
        return pkgutil.resolve_name(name)
    except Exception:  # noqa: BLE001  # a name that resolves to nothing (or whose module fails) names nothing
        return _MISSING


def _identifiable(obj: Any) -> bool:
    # identity says "the same object" only of objects made once: not of numbers, strings, tuples
    return not isinstance(obj, (int, float, complex, str, bytes, tuple, frozenset, type(None)))


def _documented_name(env: Any, obj: Any) -> str | None:
    objects = env.get_domain("py").objects
    if _documented_from[0] != len(objects):
        _documented.clear()
        for fullname in objects:
            found = _import_dotted(fullname)
            if found is not _MISSING and _identifiable(found):
                # the shortest documented name of an object documented twice
                known = _documented.get(id(found))
                if known is None or len(fullname) < len(known[1]):
                    _documented[id(found)] = (found, fullname)
        _documented_from[0] = len(objects)
    known = _documented.get(id(obj))
    return known[1] if known is not None and known[0] is obj else None


def _resolve_reexport(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip(".~")
    module, cls = node.get("py:module"), node.get("py:class")
    candidates = [target]
    if module:
        candidates.insert(0, f"{module}.{target}")
        if cls:
            candidates.insert(0, f"{module}.{cls}.{target}")
            # a docstring names things relative to the module that defines it: a class's own, or
            # that of the base class (a mixin) a member comes from
            documented = _import_dotted(f"{module}.{cls}")
            for base in getattr(documented, "__mro__", ()):
                if base.__module__.startswith("zarrforge"):
                    candidates.append(f"{base.__module__}.{target}")
    for candidate in candidates:
        if not candidate.startswith("zarrforge"):
            continue
        obj = _import_dotted(candidate)
        if obj is _MISSING or not _identifiable(obj):
            continue
        name = _documented_name(env, obj)
        if name is not None:
            return env.get_domain("py").resolve_xref(
                env, node["refdoc"], app.builder, "obj", name, node, contnode
            )
    return None


# A dataclass's generated ``__init__`` keeps its annotations as the strings the module wrote
# (``from __future__ import annotations``), which autodoc shows quoted in the class signature and
# cannot link; unquoted they are parsed, and linked, as every other annotation is. A field's
# ``default_factory`` shows as ``<factory>``, which is not Python and makes Sphinx give up parsing
# the whole signature: it is shown as ``...`` (a default the class makes).
_QUOTED_ANNOTATION = re.compile(r"(?<=: )'([^']*)'")


def _unquote_annotations(
    app: Any,
    what: str,
    name: str,
    obj: Any,
    options: Any,
    signature: str | None,
    return_annotation: str | None,
) -> tuple[str | None, str | None] | None:
    if signature is None or ("'" not in signature and "<factory>" not in signature):
        return None
    return _QUOTED_ANNOTATION.sub(r"\1", signature).replace("= <factory>", "= ...").replace(
        "=<factory>", "=..."
    ), return_annotation


def setup(app: Any) -> None:
    app.connect("missing-reference", _resolve_reexport)
    app.connect("autodoc-process-signature", _unquote_annotations)
