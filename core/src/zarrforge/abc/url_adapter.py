"""Contract for URL adapters (the ``url_adapters`` extension point, keyed by URL scheme).

A *URL pipeline* (the url-pipeline standard, ZEP 8) is a ``|``-chained URL read
left to right, outer to inner: ``s3://bucket/data.zip|zip:|zarr3:group/array``.
``zarrforge.storing.url_pipeline`` splits it into :class:`Segment` objects; each
segment's scheme names a :class:`URLAdapter`, found in the entry-point group
``zarrforge.url_adapters`` (entry-point name = the scheme, lower case) or
registered in-process (``zarrforge.register("url_adapters", "myscheme", cls)``).
Nothing else ever picks an adapter: a URL cannot make the engine import code it
names.

An adapter is a class with a ``name`` (its scheme, as the entry point is named)
and one classmethod::

    resolve(base, segment, *, read_only, storage_options) -> PipelineState

* ``base`` is what the segments to the left resolved to (a :class:`PipelineState`:
  a store, a path inside it, the format chosen so far and the URL text of those
  segments), or ``None`` when ``segment`` is the first one (the *root*). An
  adapter that only makes sense in one of the two places raises
  :class:`~zarrforge.errors.URLPipelineError` for the other, naming the segment
  (``not_first`` / ``only_first`` below do this).
* ``segment`` is the adapter's own sub-URL: ``scheme`` (lower case), ``body`` (the
  text after ``scheme:``, exactly as written: percent-escapes undecoded), ``raw``
  and ``position`` (0 for the root). :meth:`Segment.path` decodes a body that is a
  path.
* ``read_only`` is ``True`` when the caller only reads (``mode="r"``); the adapter
  must then return a read-only store (the resolver checks). An adapter whose
  resource cannot be written raises for ``read_only=False`` with a message saying
  to open with ``mode="r"``.
* ``storage_options`` are the caller's ``storage_options``. The root adapter
  hands them to the store it builds (credentials, endpoints); other adapters
  ignore them unless they document keys of their own.

It returns the new state: usually ``dataclasses.replace(base, ...)`` with a new
``store`` (a ``zip:`` archive read from the base), a new ``path`` (a format
segment's path inside the hierarchy) and/or ``zarr_format`` (the name of a
registered format: ``"3"``, ``"2"``, ``"draft-2022"``). The resolver fills in
``url``. The path is ``/``-separated, relative to the store's root, ``""`` for the
root; the API joins it with the caller's ``path=`` argument (pipeline path
first). Errors are zarrforge errors naming the segment; an adapter never lets a
bare exception from deep inside escape for bad input. Optionally, ``environmental_errors``
(as a store's, :mod:`zarrforge.abc.store`) names the classes of the adapter's libraries
that mean the environment failed; a failure of ``resolve`` that is one of them, one the
base store declares, or an ``OSError``, is a StoreError naming the URL, not a bug.

:class:`FormatSegment` is a ready adapter for format segments (``zarr3:``,
``zarr2:``): a subclass sets ``name`` and ``format_name``.
"""

from __future__ import annotations

import dataclasses
import re
from abc import abstractmethod
from typing import Any, ClassVar
from urllib.parse import unquote

from ..errors import URLPipelineError
from .extension_point import ExtensionPoint
from .store import EnvironmentalErrors, Store

_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


@dataclasses.dataclass(frozen=True)
class Segment:
    """One ``|``-separated sub-URL of a pipeline."""

    scheme: str  # lower case; "" for a root that is a bare local path (or an fsspec "::" chain)
    body: str  # the text after "scheme:", undecoded
    raw: str  # the sub-URL as written
    position: int  # 0 for the root
    url: str = ""  # the whole pipeline, for messages

    def error(self, message: str) -> URLPipelineError:
        """A :class:`~zarrforge.errors.URLPipelineError` naming this segment.

        Parameters
        ----------
        message : str
            What is wrong.

        Returns
        -------
        zarrforge.errors.URLPipelineError
            The error, to raise.
        """
        where = f"segment {self.position + 1} {self.raw!r}"
        if self.url:
            where += f" of the URL pipeline {self.url!r}"
        return URLPipelineError(f"{where}: {message}", url=self.url or None, segment=self.raw)

    def path(self) -> str:
        """The body read as a ``/``-separated path: percent-decoded, without leading or
        trailing ``/``; ``""`` for an empty body. A query (``?``), an empty, ``.`` or
        ``..`` component, a backslash or NUL is an error naming the segment.

        Returns
        -------
        str
            The path.

        Raises
        ------
        zarrforge.errors.URLPipelineError
            The body is not such a path (or a malformed percent-escape).
        """
        decoded = self._decoded().strip("/")
        if not decoded:
            return ""
        for part in decoded.split("/"):
            if part in ("", ".", "..") or "\\" in part or "\x00" in part:
                raise self.error(
                    f"the path {decoded!r} has an empty, '.' or '..' component "
                    "or a backslash/NUL; valid: names separated by single '/'"
                )
        return decoded

    def _decoded(self) -> str:
        """The body percent-decoded; a query or a malformed escape is an error."""
        if "?" in self.body:
            raise self.error(
                f"'{self.scheme}:' takes a path and no query ('?'); write a '?' "
                "that belongs to the path as %3F"
            )
        if _ESCAPE.search(self.body):
            raise self.error(
                "a '%' must start a percent-escape of two hex digits (%7C for '|', %25 for '%' itself)"
            )
        try:
            return unquote(self.body, errors="strict")
        except UnicodeDecodeError:
            raise self.error("its percent-escapes do not decode as UTF-8") from None

    def location(self) -> str:
        """The body of a root segment read as a location: as :meth:`path`, but ``.`` and
        ``..`` components are kept, since a root may be relative (``file:../data.zarr``)
        and means what the same path means everywhere else (paths *inside* a store, in
        later segments, never climb out: they use :meth:`path`). Leading ``/`` is kept.

        Returns
        -------
        str
            The location.

        Raises
        ------
        zarrforge.errors.URLPipelineError
            The body holds a query, a malformed percent-escape, a backslash or NUL.
        """
        decoded = self._decoded()
        if "\\" in decoded or "\x00" in decoded:
            raise self.error(f"the location {decoded!r} holds a backslash or NUL")
        return decoded

    def not_first(self, example: str) -> None:
        """Raise unless this segment follows another (adapters that work on a base).

        Parameters
        ----------
        example : str
            A pipeline that uses the scheme rightly, for the error.

        Raises
        ------
        zarrforge.errors.URLPipelineError
            This segment is the root.
        """
        if self.position == 0:
            raise self.error(
                f"'{self.scheme}:' cannot start a pipeline: it works on what "
                f"the segments before it name, e.g. {example!r}"
            )

    def only_first(self, example: str) -> None:
        """Raise unless this segment is the root (adapters that build a store from nothing).

        Parameters
        ----------
        example : str
            A pipeline that uses the scheme rightly, for the error.

        Raises
        ------
        zarrforge.errors.URLPipelineError
            This segment is not the root.
        """
        if self.position != 0:
            raise self.error(
                f"'{self.scheme}:' can only be the first segment of a pipeline, e.g. {example!r}"
            )


@dataclasses.dataclass(frozen=True)
class PipelineState:
    """What a pipeline, or its segments up to one, resolved to."""

    store: Store
    path: str = ""  # inside ``store``; "" for its root
    zarr_format: str | None = None  # a registered format name, chosen by a format segment
    url: str = ""  # the sub-URLs that produced this state, joined by "|"


class URLAdapter(ExtensionPoint):
    """One URL scheme of a pipeline (see the module docstring for the contract)."""

    name: ClassVar[str]
    environmental_errors: ClassVar[EnvironmentalErrors] = ()  # see the module docstring

    @classmethod
    @abstractmethod
    def resolve(
        cls, base: PipelineState | None, segment: Segment, *, read_only: bool, storage_options: dict[str, Any]
    ) -> PipelineState:
        """The state after ``segment``, given the state before it (``None`` at the root).

        Parameters
        ----------
        base : zarrforge.abc.url_adapter.PipelineState or None
            The state the segments before this one resolved to; ``None`` for the root.
        segment : zarrforge.abc.url_adapter.Segment
            This adapter's sub-URL.
        read_only : bool
            The caller only reads: the adapter must return a read-only store.
        storage_options : dict[str, Any]
            The caller's storage options (the root adapter hands them to its store).

        Returns
        -------
        PipelineState
            The new state (the resolver fills in ``url``).

        Raises
        ------
        zarrforge.errors.URLPipelineError
            The segment is invalid here (the error names it).
        """


def join_path(first: str, second: str) -> str:
    """Two ``/``-separated store paths joined (either may be ``""``).

    Parameters
    ----------
    first : str
        The outer path.
    second : str
        The path below it.

    Returns
    -------
    str
        The joined path, without leading or trailing ``/``.
    """
    return "/".join(p for p in (first.strip("/"), second.strip("/")) if p)


class FormatSegment(URLAdapter):
    """A format segment: ``<name>:path/in/hierarchy`` selects the format ``format_name``
    (``None``: detect it when opening) and names a node below the base's path."""

    format_name: ClassVar[str | None] = None

    @classmethod
    def resolve(
        cls, base: PipelineState | None, segment: Segment, *, read_only: bool, storage_options: dict[str, Any]
    ) -> PipelineState:
        segment.not_first(f"memory:|{segment.scheme}:group/array")
        assert base is not None
        return dataclasses.replace(
            base, path=join_path(base.path, segment.path()), zarr_format=cls.format_name
        )
