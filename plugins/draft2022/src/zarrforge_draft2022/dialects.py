"""The two dialects of the 2022 draft, and the runtime option that picks one for writing.

``"zarr-python"``
    What zarr-python 2.11-2.18 writes with ``ZARR_V3_EXPERIMENTAL_API=1``:
    entry point ``zarr_format`` ``https://purl.org/zarr/spec/protocol/core/3.0``,
    numpy-style type names (``"<f8"``, ``"bool"``, ``"u1"``) carrying the byte
    order, a single ``compressor`` object ``{"codec": URI, "configuration":
    {...}}``, numcodecs filters under ``attributes["filters"]``, complex and
    datetime types as extension objects, documents as zarr-python dumps them
    (sorted keys, 4-space indent), and the only chunk of a 0-d array at
    ``.../c0``. zarr-python 2.x reads nothing else.

``"editor"``
    The editor's draft of 25 May 2022 (seed 000): entry point ``zarr_format``
    ``https://purl.org/zarr/spec/core/3.0``, spec type names (``"int16"``),
    a ``codecs`` list of ``{"type": URI, "configuration": {...}}`` with the
    endian codec for big-endian data, optional global ``storage_transformers``
    in ``zarr.json``, and a 0-d array's chunk at ``.../c``.

Reading never needs the option: the entry point says which dialect a
hierarchy uses, and array documents of either form are understood in both.

Writing: nodes added to an existing hierarchy always follow its entry point.
The option decides the dialect of a *new* hierarchy (no ``zarr.json`` yet).
Its default is ``"zarr-python"``, because that is what existing readers read.
Set it, in order of precedence:

* per format instance: ``Draft2022Format(dialect="editor")`` passed as
  ``fmt=`` to ``zarrforge.create_array`` / ``create_group``;
* for a block: ``with zarrforge_draft2022.dialect("editor"): ...``;
* for the process: ``zarrforge_draft2022.set_default_dialect("editor")``;
* from the environment: ``ZARRFORGE_DRAFT2022_DIALECT=editor``.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

ZARR_PYTHON = "zarr-python"
EDITOR = "editor"
DIALECTS = (ZARR_PYTHON, EDITOR)
DEFAULT_DIALECT = ZARR_PYTHON
ENV_VAR = "ZARRFORGE_DRAFT2022_DIALECT"

ALIASES = {
    ZARR_PYTHON: ZARR_PYTHON,
    "zarr-python-2": ZARR_PYTHON,
    "zarr_python": ZARR_PYTHON,
    "protocol": ZARR_PYTHON,
    EDITOR: EDITOR,
    "editors-draft": EDITOR,
    "editor's draft": EDITOR,
    "core": EDITOR,
}

# The entry point's zarr_format / metadata_encoding URI of each dialect (minor version 0).
ZARR_FORMAT_URI = {
    ZARR_PYTHON: "https://purl.org/zarr/spec/protocol/core/3.0",
    EDITOR: "https://purl.org/zarr/spec/core/3.0",
}
URI_STEM = {
    ZARR_PYTHON: "https://purl.org/zarr/spec/protocol/core/",
    EDITOR: "https://purl.org/zarr/spec/core/",
}

_lock = threading.Lock()
_default: str | None = None


def normalize_dialect(name: str) -> str:
    """The canonical dialect name for ``name`` (an alias or a canonical name)."""
    if isinstance(name, str):
        found = ALIASES.get(name.strip().lower())
        if found is not None:
            return found
    raise ValueError(
        f"unknown 2022-draft dialect {name!r}; valid: {', '.join(DIALECTS)} "
        f"(aliases: {', '.join(sorted(set(ALIASES) - set(DIALECTS)))})"
    )


def get_default_dialect() -> str:
    """The dialect new hierarchies are written in when nothing else says."""
    with _lock:
        if _default is not None:
            return _default
    env = os.environ.get(ENV_VAR)
    return normalize_dialect(env) if env else DEFAULT_DIALECT


def set_default_dialect(name: str | None) -> None:
    """Set the process-wide default (``None`` goes back to the environment / built-in default)."""
    global _default
    value = None if name is None else normalize_dialect(name)
    with _lock:
        _default = value


@contextlib.contextmanager
def dialect(name: str) -> Iterator[str]:
    """Use dialect ``name`` for new hierarchies inside a ``with`` block."""
    global _default
    value = normalize_dialect(name)
    with _lock:
        previous = _default
        _default = value
    try:
        yield value
    finally:
        with _lock:
            _default = previous
