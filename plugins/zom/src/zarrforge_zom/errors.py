"""Errors of zarrforge-zom; all are :class:`zarrforge.errors.ZarrforgeError` subclasses."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zarrforge.errors import ZarrforgeError


class ZomError(ZarrforgeError):
    """Base class of the errors raised by zarrforge-zom."""


class SchemaValidationError(ZomError, ValueError):
    """A ZOM document does not follow the ZEP 6 JSON Schema; ``issues`` lists every problem."""

    def __init__(self, issues: Sequence[Any]) -> None:
        self.issues = list(issues)
        lines = "\n".join(f"  {issue}" for issue in self.issues)
        count = len(self.issues)
        super().__init__(
            f"the document does not follow the ZEP 6 schema ({count} issue{'s' * (count != 1)}):\n{lines}"
        )


class SpecError(ZomError, ValueError):
    """A model is internally inconsistent or cannot be represented by its Zarr format.

    ``node`` is the model path (``"/a/b"``) and ``field`` the property involved.
    """

    def __init__(self, message: str, *, node: str = "/", field: str | None = None) -> None:
        self.node = node
        self.field = field
        self.message = message
        where = node + (f" {field}" if field else "")
        super().__init__(f"{where}: {message}")

    def at(self, node: str) -> SpecError:
        """The same error, located at ``node`` (for errors raised by nested helpers)."""
        return SpecError(self.message, node=node, field=self.field)


class UnsupportedFormatError(ZomError, ValueError):
    """The node belongs to a format ZEP 6 defines no object model for (only Zarr v2 and v3)."""
