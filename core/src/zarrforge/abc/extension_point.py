"""What the contract of every extension point declares: :class:`ExtensionPoint`, the base
of ``DataType``, ``ChunkGrid``, ``ChunkKeyEncoding``, ``MemoryLayout``, ``Codec``,
``StorageTransformer``, ``Extension``, ``Store``, ``Format`` and ``URLAdapter``.

* ``claims(name)``: asked of an implementation installed as a *family* (an entry point
  whose name ends in ``*``, such as ``numcodecs.*``) for each name the family covers;
  ``False`` declines the name, and the lookup goes on to a shorter family, then to
  "unknown" (:mod:`zarrforge.registry`). Default: every name the family covers. An
  adapter of another library's extensions (the catch-all ``*``) answers for the names
  that library has.
* ``plugin_note()``: a short text about how this implementation was installed, shown
  after "ok" by ``zarrforge.plugins()`` and ``zarrforge plugins`` (an optional speed-up
  not built, a fallback in use), or ``None`` (the default). A note that raises is left out.
"""

from __future__ import annotations

from abc import ABC


class ExtensionPoint(ABC):  # noqa: B024  # the common base of the ABCs, which declare the abstract methods
    @classmethod
    def claims(cls, name: str) -> bool:
        """Does this implementation, installed as a family, answer for ``name``?

        Parameters
        ----------
        name : str
            A name the family's entry point covers (``numcodecs.zstd`` for ``numcodecs.*``).

        Returns
        -------
        bool
            ``True`` (the default) to answer for it, ``False`` to decline it.
        """
        return True

    @classmethod
    def plugin_note(cls) -> str | None:
        """What ``zarrforge plugins`` should say of this implementation beside "ok".

        Returns
        -------
        str | None
            A short text a user can act on (the local store: whether its batches of small
            files run in C), or ``None`` (the default) for nothing.
        """
        return None
