"""What the contract of every extension point declares: :class:`ExtensionPoint`, the base
of ``DataType``, ``ChunkGrid``, ``ChunkKeyEncoding``, ``MemoryLayout``, ``Codec``,
``StorageTransformer``, ``Extension``, ``Store``, ``Format`` and ``URLAdapter``.

* ``claims(name)``: asked of an implementation installed as a *family* (an entry point
  whose name ends in ``*``, such as ``numcodecs.*``) for each name the family covers;
  ``False`` declines the name, and the lookup goes on to a shorter family, then to
  "unknown" (:mod:`zarrforge.registry`). Default: every name the family covers. An
  adapter of another library's extensions (the catch-all ``*``) answers for the names
  that library has.
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
