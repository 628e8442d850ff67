"""Error messages in the command line's words: hints name flags, not Python arguments.

zarrforge's errors end with advice for a Python caller (``pass overwrite=True (or
mode='w') to replace it``, ``zarrforge.consolidate_metadata(store, 'a')``).
:func:`for_command` rewrites that advice into what the user of the command line
types (``pass --overwrite to replace it``, ``zarrforge consolidate URL --path a``),
and adds the advice a command knows (``copy``: ``--shards none`` when sharding is
what the destination format cannot hold). A message without such advice is
returned as it is.
"""

from __future__ import annotations

import re

# (pattern, replacement) in order; each rewrites one piece of Python advice
_PYTHON_TO_FLAGS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"([Pp])ass overwrite=True \(or mode='w'\)"), r"\1ass --overwrite"),
    (
        re.compile(r"run the same zarrforge\.copy with overwrite=True"),
        "run the same zarrforge copy with --overwrite",
    ),
    (re.compile(r"; zarrforge\.unfinished_write\(store, path\) reads the marker"), ""),
    (
        re.compile(r"zarrforge\.consolidate_metadata\(store, '([^']*)'\)"),
        r"zarrforge consolidate URL --path \1",
    ),
    (re.compile(r"zarrforge\.consolidate_metadata\(\)"), "zarrforge consolidate URL"),
    (re.compile(r"\(zarrforge\.consolidate_metadata\)"), "(zarrforge consolidate URL)"),
    # the command line has no filters option: one --compressor is what it can give
    (
        re.compile(r"pass one compressor \(byte filters such as checksums may go in filters=\)"),
        "pass one --compressor",
    ),
]

SHARDS_NONE = (
    "; pass --shards none to copy it unsharded (its inner chunks become the "
    "chunks, or choose them with --chunks)"
)


def for_command(message: str, command: str | None) -> str:
    """``message`` with its Python advice rewritten into flags, plus ``command``'s own."""
    for pattern, replacement in _PYTHON_TO_FLAGS:
        message = pattern.sub(replacement, message)
    if command == "copy" and "sharding_indexed" in message and "--shards" not in message:
        message += SHARDS_NONE
    return message
