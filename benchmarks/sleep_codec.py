"""A codec that only sleeps: compute that releases the GIL, without the cores to run it.

``bench.sleep`` (bytes -> bytes) returns its input unchanged after sleeping ``ms``
milliseconds in each ``encode`` and ``decode`` call. ``time.sleep`` releases the GIL,
as zstd and blosc do while they compress, so 16 threads sleeping at once overlap on a
2-core machine: a workload of N calls takes ``N * ms / threads`` if the engine's own
Python work overlaps perfectly, and what it takes beyond that is the engine's serial
work (the simulated many-core benchmark, :mod:`benchmarks.simulated_cores`).

Each instance counts its calls and the most that were running at once
(:class:`CallCounter`), so tests can prove parallelism by counting, never by timing.

Metadata: ``{"name": "bench.sleep", "configuration": {"ms": 4}}``. Registered with
:func:`register` (zarrforge's runtime registration, the path a plugin's entry point also
takes).
"""

from __future__ import annotations

import ctypes
import threading
import time
from typing import Any

import numpy as np

import zarrforge as zf
from zarrforge.abc.codec import BytesBytesCodec
from zarrforge.errors import MetadataError

NAME = "bench.sleep"
#: below this many bytes a copy is made the plain way (it costs less than the hand-off)
GIL_FREE_COPY_BYTES = 64 * 1024


# PyBytes_FromStringAndSize(NULL, n): a bytes object of n bytes, not yet written (what a
# compressor allocates for its output; called through pythonapi, with the GIL held)
_uninitialised_bytes = ctypes.pythonapi.PyBytes_FromStringAndSize
_uninitialised_bytes.restype = ctypes.py_object
_uninitialised_bytes.argtypes = (ctypes.c_void_p, ctypes.c_ssize_t)


def copied_without_the_gil(data: bytes | memoryview) -> bytes:
    """``bytes(data)``, the copy made with the GIL released, as a compressor writes its
    output: the output is allocated unwritten (as zstd's and blosc's Python bindings
    allocate theirs), and ``ctypes.memmove``, a foreign call, releases the GIL while it
    fills it. The page faults of writing a large buffer into fresh memory (about 0.6 ms
    a MiB on the 2-core host) then overlap on threads, as they do in zstd or blosc;
    ``bytes(data)`` would take them with the GIL held, and so would ``bytes(n)``, which
    zeroes its memory (``calloc``; a block the allocator hands out again is cleared with
    the GIL held: 25-240 us a MiB, against 5-25 for an unwritten one). The new object is
    written whole before anything else can see it."""
    view = memoryview(data)
    n = view.nbytes
    if n < GIL_FREE_COPY_BYTES or not view.c_contiguous:
        return bytes(view)
    source = np.frombuffer(view.cast("B"), np.uint8)
    out: bytes = _uninitialised_bytes(None, n)
    ctypes.memmove(ctypes.c_char_p(out), source.ctypes.data, n)
    return out


class CallCounter:
    """Calls made, the most running at once, and how many were running as each call
    started (``at_start``, in the order the calls started), for all instances of the codec."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls = 0
        self.running = 0
        self.peak = 0
        self.at_start: list[int] = []

    def reset(self) -> None:
        with self._lock:
            self.calls = self.running = self.peak = 0
            self.at_start = []

    def __enter__(self) -> None:
        with self._lock:
            self.calls += 1
            self.running += 1
            self.peak = max(self.peak, self.running)
            self.at_start.append(self.running)

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self.running -= 1


COUNTER = CallCounter()


class SleepCodec(BytesBytesCodec):
    name = NAME

    def __init__(self, ms: float) -> None:
        self.ms = ms

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> SleepCodec:
        ms = (configuration or {}).get("ms")
        if isinstance(ms, bool) or not isinstance(ms, (int, float)) or ms < 0:
            raise MetadataError(f"ms must be a non-negative number, got {ms!r}", field="configuration.ms")
        return cls(ms)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"ms": self.ms}}

    def encoded_size(self, decoded_size: int | None) -> int | None:
        return decoded_size

    def _sleep(self, data: bytes | memoryview) -> bytes:
        with COUNTER:
            time.sleep(self.ms / 1000)
        return data if type(data) is bytes else copied_without_the_gil(data)

    def encode(self, data: bytes | memoryview) -> bytes:
        return self._sleep(data)

    def decode(self, data: bytes | memoryview) -> bytes:
        return self._sleep(data)


def register() -> None:
    """Register ``bench.sleep`` in this process (again: a no-op)."""
    if NAME not in zf.registry.codecs:
        zf.register("codecs", NAME, SleepCodec)
