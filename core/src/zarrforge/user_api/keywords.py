"""Unknown keyword arguments of the opening and creating functions: a ``TypeError`` that
names the keyword and, where a known one is close, that one.

Contract:

* :func:`refuse_unknown` raises, for the first of the ``given`` keywords (in the order
  given) that is not ``known``, ``TypeError("<function>() got an unexpected keyword
  argument 'chunk_shap'; did you mean 'chunk_shape'?")``, the suggestion being the
  closest known keyword by :func:`difflib.get_close_matches` (omitted when none is
  close); it returns when every keyword is known. Callers run it before anything is
  looked up or written.
* :func:`keywords_of` is the names a function takes by keyword: its parameters that are
  neither ``*args`` nor ``**kwargs`` nor positional-only, leaving out names that begin with
  ``_`` (internal ones, not to be suggested).
* zarr-python 2's keywords, which zarr-python 3 still takes: :func:`drop_legacy` takes
  out of a call's keywords those it ignores (:data:`IGNORED_KEYWORDS`, with an
  :class:`~zarrforge.errors.IgnoredKeywordWarning` saying why, when given a value) and
  refuses those whose request zarrforge would betray (:data:`REFUSED_KEYWORDS`, a
  ``TypeError`` saying why); :func:`format_from` reads ``zarr_version`` as
  ``zarr_format`` (a ``ValueError`` when both are given and differ).
* :func:`checked_keywords` wraps a function whose signature is fixed (no ``**kwargs``) so
  that an unknown keyword is refused that way before the function runs: Python's own
  error names no close keyword. The wrapper keeps the function's name, docstring and
  signature.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import warnings
from collections.abc import Callable, Iterable
from typing import Any, ParamSpec, TypeVar

from ..errors import IgnoredKeywordWarning

P = ParamSpec("P")
R = TypeVar("R")

_BY_KEYWORD = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def keywords_of(function: Callable[..., object]) -> frozenset[str]:
    """The names ``function`` takes by keyword (see the module's contract)."""
    parameters = inspect.signature(function).parameters.values()
    return frozenset(p.name for p in parameters if p.kind in _BY_KEYWORD and not p.name.startswith("_"))


def refuse_unknown(function: str, given: Iterable[str], known: Iterable[str]) -> None:
    """Raise a ``TypeError`` for the first of ``given`` not in ``known`` (see the module's
    contract); ``function`` is the name the message gives the call."""
    names = frozenset(known)
    for keyword in given:
        if keyword in names:
            continue
        close = difflib.get_close_matches(keyword, sorted(n for n in names if not n.startswith("_")), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise TypeError(f"{function}() got an unexpected keyword argument {keyword!r}{hint}")


def checked_keywords(function: Callable[P, R]) -> Callable[P, R]:
    """``function``, refusing unknown keywords with the closest known one named (its
    internal ``_`` keywords are accepted, never suggested)."""
    parameters = inspect.signature(function).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        raise TypeError(
            f"checked_keywords: {function.__name__} takes **kwargs; check them where it reads them"
        )
    known = frozenset(p.name for p in parameters if p.kind in _BY_KEYWORD)
    name = function.__name__

    @functools.wraps(function)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        if not known.issuperset(kwargs):
            refuse_unknown(name, kwargs, known)
        return function(*args, **kwargs)

    return checked


#: zarr-python 2 keywords ignored (safely), and why
IGNORED_KEYWORDS = {
    "synchronizer": "writers need no synchronizer: chunk updates are conditional writes on "
    "stores that have them (docs/reliability.md)",
    "meta_array": "arrays are read into numpy arrays",
    "cache_attrs": "a caching hint: attributes are read when the node is opened",
    "cache_metadata": "a caching hint: metadata is read when the node is opened",
}
#: zarr-python 2 keywords refused when given a value (ignoring them would betray the
#: request), and why
REFUSED_KEYWORDS = {
    "chunk_store": "chunks and metadata live in one store; wrap a store to route keys",
    "object_codec": "object arrays are not stored; use dtype='string' for text",
}
#: every zarr-python 2 keyword the functions taking zarr-python's keywords know
LEGACY_KEYWORDS = frozenset(IGNORED_KEYWORDS) | frozenset(REFUSED_KEYWORDS) | {"zarr_version"}


def drop_legacy(function: str, options: dict[str, Any], *, stacklevel: int = 3) -> None:
    """Take zarr-python 2's ignored and refused keywords out of ``options`` (see the
    module's contract; ``zarr_version`` stays, for :func:`format_from`). ``stacklevel``:
    the warning's, pointing at the user's call from the function the user called."""
    for name in list(options):
        if name in IGNORED_KEYWORDS:
            if options.pop(name) is not None:
                warnings.warn(
                    f"zarrforge.{function}(): {name}= is ignored: {IGNORED_KEYWORDS[name]}",
                    IgnoredKeywordWarning,
                    stacklevel=stacklevel,
                )
        elif name in REFUSED_KEYWORDS:
            if options.pop(name) is not None:
                raise TypeError(f"zarrforge.{function}(): {name}= is not supported: {REFUSED_KEYWORDS[name]}")


def format_from(function: str, zarr_format: Any, zarr_version: Any) -> Any:
    """``zarr_format``, or zarr-python 2's ``zarr_version`` in its place."""
    if zarr_version is not None and zarr_format is not None and str(zarr_version) != str(zarr_format):
        raise ValueError(
            f"zarrforge.{function}(): zarr_version={zarr_version!r} and "
            f"zarr_format={zarr_format!r} disagree; give zarr_format only"
        )
    return zarr_format if zarr_format is not None else zarr_version
