"""Extension definitions: the object or short-hand-name form of the v3 spec.

An extension may appear in a document as a name string (``"crc32c"``) or as an
object ``{"name": ..., "configuration": {...}, "must_understand": bool}``.
:func:`parse_extension` validates either form and returns an
:class:`ExtensionRef`, still unresolved (:func:`zarrforge.registries.resolution.resolve`
builds the implementation through a registry). ``must_understand`` defaults to ``True``; the caller decides whether
the extension point allows ``False`` (data types, chunk grids, chunk key
encodings and storage transformers never do: the refusal names the extension
and the field).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..errors import MetadataError


@dataclasses.dataclass(frozen=True)
class ExtensionRef:
    """An extension as a document names it (a name string or an object), validated but
    not resolved: ``parse_extension`` builds it, a registry resolves it.
    It raises nothing.

    Parameters
    ----------
    name : str
        The extension's name.
    configuration : dict[str, Any] or None
        Its ``configuration`` (``None`` when the document gives none).
    must_understand : bool
        Whether a reader that lacks it must refuse the document (``True`` unless the
        entry says ``false``).
    raw : Any
        The document's own value, kept to write an unknown extension back.

    Examples
    --------
    >>> raw = {"name": "x.note", "configuration": {"level": 1}, "must_understand": False}
    >>> ref = ExtensionRef("x.note", raw["configuration"], False, raw)
    >>> ref.name, ref.configuration, ref.mark
    ('x.note', {'level': 1}, False)
    >>> ExtensionRef("crc32c", None, True, "crc32c").mark is None  # the short-hand form says nothing
    True
    """

    name: str
    configuration: dict[str, Any] | None
    must_understand: bool
    raw: Any  # the document's own value, kept to write back unknown extensions

    @property
    def mark(self) -> bool | None:
        """``must_understand`` as written: ``None`` when the entry does not say."""
        return self.raw.get("must_understand") if isinstance(self.raw, dict) else None


def parse_extension(
    value: Any, *, field: str, allow_skip: bool = False, point: str = "this extension point"
) -> ExtensionRef:
    if isinstance(value, str):
        if not value:
            raise MetadataError("an extension name must not be empty", field=field, value=value)
        return ExtensionRef(value, None, True, value)
    if not isinstance(value, dict):
        raise MetadataError(
            f"expected an extension name (string) or an object with 'name', got {value!r}",
            field=field,
            value=value,
        )
    name = value.get("name")
    if not isinstance(name, str) or not name:
        raise MetadataError(
            f"'name' must be a non-empty string, got {name!r}", field=f"{field}.name", value=name
        )
    configuration = value.get("configuration")
    if configuration is not None and not isinstance(configuration, dict):
        raise MetadataError(
            f"'configuration' must be an object, got {configuration!r}",
            field=f"{field}.configuration",
            value=configuration,
        )
    must_understand = value.get("must_understand", True)
    if not isinstance(must_understand, bool):
        raise MetadataError(
            f"'must_understand' must be true or false, got {must_understand!r}",
            field=f"{field}.must_understand",
            value=must_understand,
        )
    if not must_understand and not allow_skip:
        raise MetadataError(
            f"'must_understand: false' is not allowed for {point} ({name!r}): it cannot be "
            "skipped; remove the member or set it to true",
            field=f"{field}.must_understand",
            value=must_understand,
        )
    unexpected = set(value) - {"name", "configuration", "must_understand"}
    if unexpected:
        raise MetadataError(
            f"unexpected member(s) {sorted(unexpected)}; an extension object "
            "has 'name', optional 'configuration' and 'must_understand'",
            field=field,
            value=value,
        )
    return ExtensionRef(name, configuration, must_understand, value)
