"""Which codecs may run arbitrary code when they decode, and the opt-in rule.

Contract: metadata is untrusted input, so a codec whose *decode* can execute
code embedded in the stored bytes is refused with
:class:`~zarrforge.errors.UnsafeCodecError` unless its full name (e.g.
``"numcodecs.pickle"``) is in ``zarrforge.config.get().allow_unsafe_codecs``.
The check runs when the codec is built from metadata and again before every
decode, so leaving a ``zarrforge.config.set(...)`` block withdraws the
permission.

This module holds the only deny list in the package.
"""

from __future__ import annotations

from typing import Any

from zarrforge.errors import UnsafeCodecError
from zarrforge.plugin_api.codecs import config

# The deny list. Keep every entry justified:
#
# * numcodecs.pickle -- ``numcodecs.Pickle.decode`` is ``pickle.loads`` on the
#   chunk bytes. A pickle stream can name any importable callable and its
#   arguments (``os.system``, ...), which run while unpickling: whoever can
#   write a chunk can run code on every reader.
#
# Object codecs that were checked and are *not* listed: vlen-utf8, vlen-bytes,
# vlen-array (length-prefixed buffers), json2 (``json.loads``), msgpack2
# (``msgpack.unpackb`` without ext hooks), categorize (label lookup).
UNSAFE_CODECS: dict[str, str] = {
    "numcodecs.pickle": "it unpickles the stored bytes (pickle.loads)",
}


def _pickle_classes() -> tuple[type, ...]:
    try:
        from numcodecs.pickles import Pickle
    except ImportError:  # pragma: no cover - every supported numcodecs has it
        return ()
    return (Pickle,)


def unsafe_reason(name: str, numcodec: Any = None) -> str | None:
    """Why the codec ``name`` (wrapping ``numcodec``, if built) is unsafe, or ``None``.

    Besides the names listed above, any numcodecs codec built on numcodecs'
    ``Pickle`` class counts, whatever id it is registered under.
    """
    if name in UNSAFE_CODECS:
        return UNSAFE_CODECS[name]
    if numcodec is not None and isinstance(numcodec, _pickle_classes()):
        return "it is built on numcodecs' Pickle codec and unpickles the stored bytes"
    return None


def is_allowed(name: str) -> bool:
    return name in config.get().allow_unsafe_codecs


def require_allowed(name: str, numcodec: Any = None) -> None:
    """Raise :class:`UnsafeCodecError` if ``name`` is unsafe and not explicitly allowed."""
    if unsafe_reason(name, numcodec) is not None and not is_allowed(name):
        raise UnsafeCodecError(
            f"codec {name!r} can execute code when it decodes; allow it explicitly with "
            f"zarrforge.config.set(allow_unsafe_codecs={{{name!r}}})"
        )
