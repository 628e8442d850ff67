"""Turning failures inside compression libraries into zarrforge errors.

Contract: code run inside :func:`decoding` either succeeds or raises a
:class:`~zarrforge.errors.CorruptChunkError` (or a subclass such as
:class:`~zarrforge.errors.ChecksumError`) whose message names the codec and
the underlying reason, chained to the original exception with ``from``.
zarrforge errors raised inside pass through unchanged (an
:class:`~zarrforge.errors.UnsafeCodecError` is a refusal, not corruption).
:func:`encoding` does the same for encoding, raising
:class:`~zarrforge.errors.CodecError`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from zarrforge.errors import CodecError, CorruptChunkError, ZarrforgeError


def _reason(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@contextlib.contextmanager
def decoding(codec: str) -> Iterator[None]:
    try:
        yield
    except ZarrforgeError:
        raise
    except MemoryError as exc:
        raise CorruptChunkError(
            f"codec {codec!r} could not decode the chunk: decoding needed more memory than "
            "is available, so the stored data is most likely corrupt"
        ) from exc
    except Exception as exc:
        raise CorruptChunkError(
            f"codec {codec!r} could not decode the chunk ({_reason(exc)}); the stored data "
            "is truncated, corrupt or was not written by this codec"
        ) from exc


@contextlib.contextmanager
def encoding(codec: str) -> Iterator[None]:
    try:
        yield
    except ZarrforgeError:
        raise
    except Exception as exc:
        raise CodecError(f"codec {codec!r} could not encode the chunk: {_reason(exc)}") from exc
