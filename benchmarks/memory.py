"""Peak resident memory of this process, per timed section.

Contract: :func:`start_section` resets the kernel's high-water mark of this
process (``/proc/self/clear_refs``, value 5, Linux >= 4.0) and returns the
resident size at that moment; :func:`section_peak` returns the high-water mark
since then (``VmHWM`` of ``/proc/self/status``). Both are in bytes. Where the
reset is not possible the peak falls back to
``resource.getrusage(RUSAGE_SELF).ru_maxrss``, the lifetime peak, and
:func:`method` says so; the driver records which one was used.
"""

from __future__ import annotations

import resource

_CLEAR_REFS = "/proc/self/clear_refs"
_STATUS = "/proc/self/status"
_can_reset: bool | None = None


def _status_kib(field: str) -> int | None:
    try:
        with open(_STATUS) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset() -> bool:
    global _can_reset
    if _can_reset is False:
        return False
    try:
        with open(_CLEAR_REFS, "w") as f:
            f.write("5")
        _can_reset = _status_kib("VmHWM") is not None
    except OSError:
        _can_reset = False
    return _can_reset


def lifetime_peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def current() -> int:
    kib = _status_kib("VmRSS")
    return kib * 1024 if kib is not None else lifetime_peak()


def start_section() -> int:
    """Reset the peak (if possible); the resident size now."""
    _reset()
    return current()


def section_peak() -> int:
    if _can_reset:
        kib = _status_kib("VmHWM")
        if kib is not None:
            return kib * 1024
    return lifetime_peak()


def method() -> str:
    if _can_reset:
        return "VmHWM of /proc/self/status, reset through /proc/self/clear_refs before each repetition"
    return "getrusage(RUSAGE_SELF).ru_maxrss: lifetime peak of the child process"
