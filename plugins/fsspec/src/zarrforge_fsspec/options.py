"""The settings an :class:`~zarrforge_fsspec.store.FsspecStore` itself takes.

They can be given to the constructor or, when a store is opened from a URL,
inside ``storage_options`` next to the filesystem's own options; the store
takes these names out and hands everything else to fsspec unchanged:

* ``concurrency`` (int, default 32): most requests one store has in flight at
  once, summed over every thread that uses it. ``get_many``, ``set_many``,
  ``delete_many`` and ``erase_prefix`` issue their requests together up to
  this bound.
* ``max_retries`` (int, default 3): how many times a request that failed with
  a transient fault (timeout, connection error, HTTP 429/5xx, S3
  ``SlowDown``) is tried again before the store gives up with a
  :class:`~zarrforge.errors.StoreError`. ``0`` disables retrying.
* ``retry_backoff`` (seconds, default 0.2) and ``retry_max_backoff``
  (seconds, default 5.0): the wait before retry *n* (from 1) is
  ``min(retry_max_backoff, retry_backoff * 2 ** (n - 1))`` scaled by a random
  factor in [0.5, 1] so that many clients do not retry in lockstep.
* ``request_timeout`` (seconds or ``None``, default ``None``): a limit on each
  attempt of each request of an asynchronous filesystem (s3fs, gcsfs, HTTP).
  An attempt that takes longer is abandoned and counts as a transient fault.
  ``None`` leaves timeouts to the filesystem's own settings.

* ``deadline`` (seconds or ``None``, default 25): the most one request of an
  asynchronous filesystem may take, every attempt and pause included (the
  filesystem's own retries too: botocore and s3fs retry on their own). Past it the
  request fails with one :class:`~zarrforge.errors.StoreError` naming the URL,
  instead of a server that answers 503 to everything keeping a call busy for minutes.
  Time a request waits behind others of its batch does not count. For a store
  opened from a URL, setting up the filesystem (credentials) and the first request
  share one deadline, so an unreachable service fails once, within it.

* ``conditional_writes`` (``None``, ``True`` or ``False``; default ``None``):
  whether an ``s3://`` store offers conditional writes (``If-Match`` /
  ``If-None-Match``, :mod:`zarrforge_fsspec.s3_conditional`). ``None`` asks
  the server once per process and bucket whether it honours them (a
  temporary object is written and deleted); ``True`` trusts it without asking;
  ``False`` turns them off. Other protocols have none, whatever the setting.

* ``reference_targets`` (``None``, ``"any"`` or a list of prefixes; default ``None``):
  for ``reference://`` stores, the files a kerchunk reference set may make zarrforge
  read (:mod:`zarrforge_fsspec.references`). Other protocols ignore it.

These retries sit on top of any the filesystem makes itself (botocore and
s3fs retry some faults on their own); see docs/stores.md.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from .references import check_setting

NAMES = ("concurrency", "max_retries", "retry_backoff", "retry_max_backoff", "request_timeout",
         "deadline", "conditional_writes", "reference_targets")


@dataclasses.dataclass(frozen=True)
class StoreSettings:
    concurrency: int = 32
    max_retries: int = 3
    retry_backoff: float = 0.2
    retry_max_backoff: float = 5.0
    request_timeout: float | None = None
    deadline: float | None = 25.0
    conditional_writes: bool | None = None
    reference_targets: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.concurrency, int) or isinstance(self.concurrency, bool) \
                or self.concurrency < 1:
            raise ValueError(f"concurrency must be an int >= 1, got {self.concurrency!r}")
        if not isinstance(self.max_retries, int) or isinstance(self.max_retries, bool) \
                or self.max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {self.max_retries!r}")
        for name in ("retry_backoff", "retry_max_backoff"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a number of seconds >= 0, got {value!r}")
        timeout = self.request_timeout
        if timeout is not None and (not isinstance(timeout, (int, float))
                                    or isinstance(timeout, bool) or timeout <= 0):
            raise ValueError(f"request_timeout must be None or a number of seconds > 0, "
                             f"got {timeout!r}")

        deadline = self.deadline
        if deadline is not None and (not isinstance(deadline, (int, float))
                                     or isinstance(deadline, bool) or deadline <= 0):
            raise ValueError(f"deadline must be None or a number of seconds > 0, got {deadline!r}")
        check_setting(self.reference_targets)
        if self.conditional_writes not in (None, True, False):
            raise ValueError("conditional_writes must be None (ask the server), True or False, "
                             f"got {self.conditional_writes!r}")

    @property
    def attempts(self) -> int:
        return self.max_retries + 1

    def backoff(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first)."""
        delay = min(self.retry_max_backoff, self.retry_backoff * 2 ** (retry - 1))
        return delay * random.uniform(0.5, 1.0)


def split_options(options: dict[str, Any]) -> tuple[StoreSettings, dict[str, Any]]:
    """Separate the store's own settings from the filesystem's options."""
    mine = {name: options[name] for name in NAMES if name in options}
    rest = {name: value for name, value in options.items() if name not in NAMES}
    return StoreSettings(**mine), rest
