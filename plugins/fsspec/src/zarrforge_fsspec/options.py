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

**Unknown options** (:func:`check_filesystem_options`) are refused when the store is
opened, with a :class:`~zarrforge.errors.StoreError` naming the option, the protocol,
the closest valid name and the valid ones, instead of a ``TypeError`` from deep inside
at the first request (``AioSession.__init__() got an unexpected keyword argument``). The
valid names are the parameters of the filesystem class's ``__init__`` (and of its base
classes', as long as each passes ``**kwargs`` on), fsspec's own (instance and listings
caches), and, for the filesystems whose ``**kwargs`` go on to another library
(:data:`PASS_THROUGH`: s3fs to aiobotocore's session, HTTP to aiohttp's requests, sftp to
paramiko's ``connect``), that library's parameters. For other filesystems, whose extra
keyword arguments cannot be told apart, a ``TypeError`` naming one of the options while
the filesystem is made is turned into the same error.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import inspect
import random
import re
from collections.abc import Callable
from typing import Any

from .references import check_setting

# fsspec's own options, taken by every filesystem: the instance cache (its metaclass) and
# the listings cache (DirCache)
FSSPEC_OPTIONS = frozenset({"skip_instance_cache", "use_listings_cache", "listings_expiry_time", "max_paths"})
# filesystem class (module, qualified name) -> where its **kwargs go (module, qualified name
# of a callable whose parameters are then the valid extra options)
# of a callable whose parameters are then the valid extra options, and how many of its
# leading parameters are no options: self, aiohttp's method and URL, paramiko's host)
PASS_THROUGH: dict[tuple[str, str], tuple[str, str, int]] = {
    ("s3fs.core", "S3FileSystem"): ("aiobotocore.session", "AioSession.__init__", 1),
    ("fsspec.implementations.http", "HTTPFileSystem"): ("aiohttp", "ClientSession._request", 3),
    ("fsspec.implementations.sftp", "SFTPFileSystem"): ("paramiko", "SSHClient.connect", 2),
}
# fsspec's base classes: what reaches them is kept or dropped, never refused
_BASES = frozenset({("fsspec.spec", "AbstractFileSystem"), ("fsspec.asyn", "AsyncFileSystem")})
_UNEXPECTED = re.compile(r"unexpected keyword argument '([^']+)'")

NAMES = (
    "concurrency",
    "max_retries",
    "retry_backoff",
    "retry_max_backoff",
    "request_timeout",
    "deadline",
    "conditional_writes",
    "reference_targets",
)


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
        if (
            not isinstance(self.concurrency, int)
            or isinstance(self.concurrency, bool)
            or self.concurrency < 1
        ):
            raise ValueError(f"concurrency must be an int >= 1, got {self.concurrency!r}")
        if (
            not isinstance(self.max_retries, int)
            or isinstance(self.max_retries, bool)
            or self.max_retries < 0
        ):
            raise ValueError(f"max_retries must be an int >= 0, got {self.max_retries!r}")
        for name in ("retry_backoff", "retry_max_backoff"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a number of seconds >= 0, got {value!r}")
        timeout = self.request_timeout
        if timeout is not None and (
            not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0
        ):
            raise ValueError(f"request_timeout must be None or a number of seconds > 0, got {timeout!r}")

        deadline = self.deadline
        if deadline is not None and (
            not isinstance(deadline, (int, float)) or isinstance(deadline, bool) or deadline <= 0
        ):
            raise ValueError(f"deadline must be None or a number of seconds > 0, got {deadline!r}")
        check_setting(self.reference_targets)
        if self.conditional_writes not in (None, True, False):
            raise ValueError(
                "conditional_writes must be None (ask the server), True or False, "
                f"got {self.conditional_writes!r}"
            )

    @property
    def attempts(self) -> int:
        return self.max_retries + 1

    def backoff(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first)."""
        delay = min(self.retry_max_backoff, self.retry_backoff * 2 ** (retry - 1))
        result: float = delay * random.uniform(0.5, 1.0)
        return result


def split_options(options: dict[str, Any]) -> tuple[StoreSettings, dict[str, Any]]:
    """Separate the store's own settings from the filesystem's options."""
    mine = {name: options[name] for name in NAMES if name in options}
    rest = {name: value for name, value in options.items() if name not in NAMES}
    return StoreSettings(**mine), rest


def _keywords(function: Callable[..., Any], positional: int = 0) -> tuple[set[str], bool]:
    """The names ``function`` takes by keyword (after its first ``positional``
    parameters, ``self`` counted), and whether it takes ``**kwargs``."""
    parameters = list(inspect.signature(function).parameters.values())[positional:]
    names = {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return names, any(p.kind == p.VAR_KEYWORD for p in parameters)


def _resolve(module: str, qualified: str) -> Callable[..., Any] | None:
    try:
        target: Any = importlib.import_module(module)
    except ImportError:
        return None
    for part in qualified.split("."):
        target = getattr(target, part, None)
    return target if callable(target) else None


def valid_filesystem_options(fs_class: type) -> frozenset[str] | None:
    """The options ``fs_class`` accepts, or ``None`` when that cannot be told: a class
    outside fsspec takes ``**kwargs`` that :data:`PASS_THROUGH` does not follow."""
    names = set(FSSPEC_OPTIONS)
    for klass in fs_class.__mro__:
        init = klass.__dict__.get("__init__")
        if klass is object or init is None:
            continue
        key = (klass.__module__, klass.__qualname__)
        taken, open_ended = _keywords(init, 1)  # after self
        names |= taken
        if key in _BASES:
            continue  # AsyncFileSystem's loop and batch_size; the rest is kept, not used
        if key in PASS_THROUGH:
            module, qualified, skip = PASS_THROUGH[key]
            target = _resolve(module, qualified)
            if target is None:
                return None
            passed, rest = _keywords(target, skip)
            return None if rest else frozenset(names | passed)
        if not open_ended:
            return frozenset(names)
        if klass.__module__.partition(".")[0] != "fsspec":
            return None  # a third party's **kwargs: where they go cannot be told
    return frozenset(names)


def unknown_option_error(protocol: str, url: str, option: str, valid: frozenset[str] | None) -> ValueError:
    """The message for ``option``, which the ``protocol`` filesystem does not take."""
    settings = ", ".join(NAMES)
    if valid is None:
        return ValueError(
            f"unknown storage option {option!r} for the {protocol!r} store at "
            f"{url!r}: its filesystem does not take it (the store's own "
            f"settings are {settings})"
        )
    everything = sorted(valid | set(NAMES))
    close = difflib.get_close_matches(option, everything, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ValueError(
        f"unknown storage option {option!r} for the {protocol!r} store at "
        f"{url!r}{hint}; valid: {', '.join(repr(n) for n in everything)}"
    )


def check_filesystem_options(protocol: str, url: str, fs_class: type, options: dict[str, Any]) -> None:
    """Refuse the first option of ``options`` (the filesystem's, the store settings taken
    out) that ``fs_class`` does not accept, where that can be told."""
    valid = valid_filesystem_options(fs_class)
    if valid is None:
        return
    for option in sorted(options):
        if option not in valid:
            raise unknown_option_error(protocol, url, option, valid)


def unexpected_option(exc: BaseException, options: dict[str, Any]) -> str | None:
    """The option of ``options`` a ``TypeError`` says was unexpected, if it names one."""
    match = _UNEXPECTED.search(str(exc)) if isinstance(exc, TypeError) else None
    return match.group(1) if match and match.group(1) in options else None
