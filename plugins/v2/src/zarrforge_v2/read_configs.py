"""The numcodecs configurations a v2 array was read with, where its codecs cannot state them.

Most v2 codec configurations become a codec that writes the same
configuration back. One does not: numcodecs' blosc ``shuffle: -1`` (auto) is
resolved when read (byte or bit shuffle, by item size) into the v3 ``blosc``
codec, which records only the result. So the format keeps the configuration
as read in the model's ``format_data`` under its name (the contract is
:mod:`zarrforge.abc.metadata`'s; :mod:`.mapping` files and fetches it), and
writing the ``.zarray`` back gives it again.

Each entry holds the very codec it describes and is found by identity: codecs
compare by configuration (equal codecs may come from different v2
configurations), and holding the codec keeps its ``id`` from being reused. A
codec a model's ``replace`` put in has no entry and is written from its own
configuration.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from zarrforge.plugin_api.formats import Codec


@dataclasses.dataclass(frozen=True)
class ReadConfigs:
    """``(codec, the numcodecs configuration it was read from)`` pairs."""

    entries: tuple[tuple[Codec, dict[str, Any]], ...] = ()

    def config_of(self, codec: Codec) -> dict[str, Any] | None:
        """A copy of the configuration ``codec`` was read from, or None."""
        return next((dict(config) for known, config in self.entries if known is codec), None)
