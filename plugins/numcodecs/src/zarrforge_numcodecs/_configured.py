"""The metadata form of this package's codecs whose configuration members are the
keyword arguments of their constructor (``blosc``, ``zstd``, ``gzip``, ``bitround``).

Contract of :class:`KeywordConfigured`, mixed in before the codec's kind
(``class GzipCodec(KeywordConfigured, BytesBytesCodec)``):

* ``from_json(name, configuration)`` checks the configuration object's keys
  against the class's ``_config_keys`` (allowed) and ``_required_keys`` with
  :func:`zarrforge_numcodecs._validate.configuration_object`, then passes the
  members to the constructor as keyword arguments, which validates their values
  (so an absent optional member takes the constructor's default).
* A codec named without configuration (``configuration`` ``None``) is built with
  every default, unless the class sets ``_needs_configuration`` (what the
  configuration must hold, e.g. ``"'keepbits' (an integer >= 1)"``): then it
  is a :class:`~zarrforge.errors.MetadataError` (field ``configuration``),
  ``codec '<name>' needs a configuration with <_needs_configuration>``.
* ``to_json()`` is ``{"name": <name>, "configuration": <_configuration()>}``;
  each class states its members in :meth:`KeywordConfigured._configuration`.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar, Self

from zarrforge.errors import MetadataError

from . import _validate


class KeywordConfigured:
    name: str  # the codec's (Codec.name)
    _config_keys: ClassVar[tuple[str, ...]]  # the members the configuration may hold
    _required_keys: ClassVar[tuple[str, ...]] = ()
    _needs_configuration: ClassVar[str | None] = None  # None: the bare name means the defaults

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> Self:
        if configuration is None:
            if cls._needs_configuration is not None:
                raise MetadataError(
                    f"codec {cls.name!r} needs a configuration with {cls._needs_configuration}",
                    field="configuration",
                    value=None,
                )
            return cls()
        config = _validate.configuration_object(
            cls.name, configuration, allowed=cls._config_keys, required=cls._required_keys
        )
        return cls(**config)

    @abstractmethod
    def _configuration(self) -> dict[str, Any]:
        """The configuration members written for this codec."""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": self._configuration()}
