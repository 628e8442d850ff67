"""Telling transient faults from answers, retrying them, and naming failures.

* :func:`is_missing`: the key does not exist (``FileNotFoundError`` and the
  directory errors a path-based filesystem raises for a key that is a
  prefix). Reads answer ``None``; never retried. A missing *bucket*
  (:func:`missing_bucket`: S3's ``NoSuchBucket``, which s3fs also reports as a
  ``FileNotFoundError``) is no missing key: every operation fails with a
  StoreError naming the bucket and the URL, so that opening a node there does not
  say "no array or group".
* :func:`is_invalid_range`: the server refused a byte range because it starts
  at or past the end of the value (HTTP 416, S3 ``InvalidRange``). Reads
  answer ``b""``; never retried.
* :func:`is_refused`: the endpoint refused the connection (nothing listens at
  its address: a wrong ``endpoint_url`` or port, a server that is not running).
  Never retried, by the store or by botocore (:func:`end_botocore_retries_on_refusal`),
  so it is reported at once rather than as a missed deadline.
* :func:`is_transient`: worth trying again: timeouts (ours and the
  backend's), connection failures (reset, closed, DNS), throttling
  and server-side faults (HTTP 408/429/500/502/503/504, S3 ``SlowDown`` and
  the other throttling codes). The exception and its causes are inspected
  without importing any backend library: classes are matched by name so
  this module works whichever of aiohttp, botocore or gcsfs is installed.
  Everything else (permissions, bad requests, bugs) fails at once.
* :func:`retry_async` / :func:`retry_sync` run one request with the bounded
  exponential backoff of :class:`~zarrforge_fsspec.options.StoreSettings`
  and raise :class:`GaveUp` (carrying the last error and the number of
  attempts) when the request cannot succeed.
* A :class:`~zarrforge.errors.ZarrforgeError` a request raises (a read refused by
  its limit: :mod:`zarrforge.abc.store`, "Bounded reads") is an answer, not a fault:
  raised as it is, never retried nor wrapped.
* :data:`ENVIRONMENTAL_ERRORS`: the classes of the filesystems' libraries that mean the
  environment failed (network, credentials, the service's answer), which this
  distribution's stores and ``zip:`` adapter declare as their ``environmental_errors``
  (:mod:`zarrforge.abc.store`): the engine then names the URL in a StoreError rather
  than blaming the plugin.
* :func:`store_error` turns a :class:`GaveUp` into the
  :class:`~zarrforge.errors.StoreError` users see, naming the operation, the
  key and the URL (and, for a refused connection, the refusal and the address
  that refused). The error keeps ``key``, ``url`` and ``attempts`` attributes and
  chains the backend's exception as its cause.
"""

from __future__ import annotations

import asyncio
import errno
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

from zarrforge.errors import StoreError, ZarrforgeError

from .options import StoreSettings

T = TypeVar("T")

TRANSIENT_STATUS = frozenset({408, 429, 500, 502, 503, 504})
TRANSIENT_CODES = frozenset(
    {
        "SlowDown",
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "RequestThrottled",
        "RequestLimitExceeded",
        "TooManyRequests",
        "TooManyRequestsException",
        "ProvisionedThroughputExceededException",
        "RequestTimeout",
        "RequestTimeoutException",
        "InternalError",
        "ServiceUnavailable",
        "PriorRequestNotComplete",
        "408",
        "429",
        "500",
        "502",
        "503",
        "504",
    }
)
# Exception classes of aiohttp, botocore, urllib3 and http.client that mean
# "the connection or the transfer failed", matched by name anywhere in the MRO.
TRANSIENT_CLASS_NAMES = frozenset(
    {
        "ClientConnectionError",
        "ClientConnectorError",
        "ServerDisconnectedError",
        "ServerTimeoutError",
        "ClientPayloadError",
        "ConnectionTimeoutError",
        "SocketTimeoutError",
        "HTTPClientError",
        "EndpointConnectionError",
        "ConnectionClosedError",
        "ReadTimeoutError",
        "ConnectTimeoutError",
        "ProxyConnectionError",
        "ResponseStreamingError",
        "IncompleteRead",
        "RemoteDisconnected",
        "ResponseParserError",
        "ProtocolError",
    }
)
# Base classes, by dotted name so that none is imported: botocore's (BotoCoreError:
# NoCredentialsError, EndpointConnectionError...; ClientError: the service's answer),
# aiohttp's, google-auth's (DefaultCredentialsError, RefreshError) and azure-core's.
# requests' errors are OSErrors, environmental to the engine already.
ENVIRONMENTAL_ERRORS = (
    "botocore.exceptions.BotoCoreError",
    "botocore.exceptions.ClientError",
    "aiohttp.ClientError",
    "google.auth.exceptions.GoogleAuthError",
    "azure.core.exceptions.AzureError",
)
TRANSIENT_ERRNOS = frozenset(
    {
        errno.ETIMEDOUT,
        errno.ECONNRESET,
        errno.ECONNREFUSED,
        errno.ECONNABORTED,
        errno.EPIPE,
        errno.EHOSTUNREACH,
        errno.ENETUNREACH,
        errno.ENETDOWN,
        errno.EAGAIN,
        errno.EBUSY,
    }
)
TRANSIENT_MESSAGES = (
    "SlowDown",
    "reduce your request rate",
    "Too Many Requests",
    "Service Unavailable",
    "ServiceUnavailable",
    "Throttl",
)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception, then its causes and contexts, each once."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        todo.extend([current.__cause__, current.__context__])


def _status(exc: BaseException) -> int | None:
    """An HTTP status carried by the exception (aiohttp, botocore, gcsfs, requests)."""
    for attr in ("status", "status_code", "code"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and not isinstance(value, bool) and 100 <= value < 600:
            return value
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        value = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if isinstance(value, int):
            return value
    elif response is not None:
        value = getattr(response, "status_code", None) or getattr(response, "status", None)
        if isinstance(value, int):
            return value
    return None


def _error_code(exc: BaseException) -> str | None:
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        code = response.get("Error", {}).get("Code")
        return str(code) if code is not None else None
    return None


def _text(exc: BaseException) -> str:
    """``str(exc)``, even for exceptions whose ``__str__`` fails."""
    try:
        return str(exc)
    except Exception:  # noqa: BLE001
        return repr(exc)


def missing_bucket(exc: BaseException) -> str | None:
    """The bucket (or container) that does not exist, when the service said so (S3's
    ``NoSuchBucket``, which s3fs turns into a ``FileNotFoundError``); ``""`` when it said
    so without naming it; else ``None``."""
    for link in _chain(exc):
        if _error_code(link) in ("NoSuchBucket", "ContainerNotFound"):
            response = getattr(link, "response", None)
            name = response.get("Error", {}).get("BucketName") if isinstance(response, dict) else None
            return str(name) if name else ""
    return None


def is_missing(exc: BaseException) -> bool:
    """The key does not exist (not: its bucket does not, :func:`missing_bucket`)."""
    return (
        isinstance(exc, (FileNotFoundError, IsADirectoryError, NotADirectoryError))
        and missing_bucket(exc) is None
    )


def is_invalid_range(exc: BaseException) -> bool:
    for link in _chain(exc):
        if _status(link) == 416 or _error_code(link) in ("InvalidRange", "416"):
            return True
    return False


def is_refused(exc: BaseException) -> bool:
    """Whether the endpoint refused the connection (``ECONNREFUSED`` anywhere in the chain:
    aiohttp's ``ClientConnectorError``, botocore's ``EndpointConnectionError`` wrapping it)."""
    for link in _chain(exc):
        if isinstance(link, ConnectionRefusedError):
            return True
        if isinstance(link, OSError) and link.errno == errno.ECONNREFUSED:
            return True
    return False


def refused_address(exc: BaseException) -> str | None:
    """The address that refused the connection, where the exceptions tell it: the
    endpoint URL botocore names, else aiohttp's host and port."""
    for link in _chain(exc):
        kwargs = getattr(link, "kwargs", None)
        if isinstance(kwargs, dict) and isinstance(kwargs.get("endpoint_url"), str):
            endpoint: str = kwargs["endpoint_url"]
            return endpoint
    for link in _chain(exc):
        host, port = getattr(link, "host", None), getattr(link, "port", None)
        if isinstance(host, str) and isinstance(port, int):
            return f"{host}:{port}"
    return None


def end_botocore_retries_on_refusal(caught_exception: BaseException | None = None, **_: Any) -> None:
    """A botocore ``needs-retry`` handler (registered first) that ends botocore's own
    retries of a refused connection by raising it: botocore would otherwise try a
    refused endpoint five times with growing pauses, about 5 s per request."""
    if caught_exception is not None and is_refused(caught_exception):
        raise caught_exception


def is_transient(exc: BaseException) -> bool:
    if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError)):
        return False
    if is_refused(exc):
        return False
    for link in _chain(exc):
        if isinstance(link, (TimeoutError, ConnectionError)):
            return True
        if TRANSIENT_CLASS_NAMES.intersection(cls.__name__ for cls in type(link).__mro__):
            return True
        if _status(link) in TRANSIENT_STATUS or _error_code(link) in TRANSIENT_CODES:
            return True
        if isinstance(link, OSError) and link.errno in TRANSIENT_ERRNOS:
            return True
        message = _text(link)
        if any(marker in message for marker in TRANSIENT_MESSAGES):
            return True
    return False


class DeadlineExceeded(TimeoutError):
    """A request's attempts ran past the store's ``deadline``: not retried."""

    def __init__(self, deadline: float | None) -> None:
        super().__init__(
            f"no answer within the deadline of {deadline} s for one request, "
            "retries included (store setting deadline)"
        )


class GaveUp(Exception):
    """A request failed for good: ``error`` is the last failure, after ``attempts`` tries."""

    def __init__(self, error: BaseException, attempts: int, transient: bool) -> None:
        super().__init__(error)
        self.error = error
        self.attempts = attempts
        self.transient = transient


async def retry_async(settings: StoreSettings, request: Callable[[], Awaitable[T]]) -> T:
    """Run ``request()`` (a new coroutine per attempt) with bounded retries."""
    for attempt in range(1, settings.attempts + 1):
        try:
            return await request()
        except ZarrforgeError:
            raise  # an answer zarrforge made (a read refused by its limit): never retried
        except Exception as exc:  # classified below
            if isinstance(exc, DeadlineExceeded):
                raise GaveUp(exc, attempt, True) from exc
            if isinstance(exc, TimeoutError) and not _text(exc) and settings.request_timeout:
                exc = TimeoutError(f"no answer within request_timeout={settings.request_timeout}s")
            transient = is_transient(exc)
            if not transient or attempt == settings.attempts:
                raise GaveUp(exc, attempt, transient) from exc
        await asyncio.sleep(settings.backoff(attempt))
    raise AssertionError("unreachable")  # pragma: no cover


def retry_sync(settings: StoreSettings, request: Callable[[], T]) -> T:
    """Run ``request()`` with retries (no per-attempt timeout: it cannot be interrupted)."""
    for attempt in range(1, settings.attempts + 1):
        try:
            return request()
        except ZarrforgeError:
            raise  # an answer zarrforge made (a read refused by its limit): never retried
        except Exception as exc:  # classified below
            transient = is_transient(exc)
            if not transient or attempt == settings.attempts:
                raise GaveUp(exc, attempt, transient) from exc
        time.sleep(settings.backoff(attempt))
    raise AssertionError("unreachable")  # pragma: no cover


def store_error(failure: GaveUp, *, operation: str, key: str, url: str) -> StoreError:
    """The :class:`StoreError` for a request that gave up."""
    error = failure.error
    text = _text(error)
    detail = f"{type(error).__name__}: {text}" if text else type(error).__name__
    bucket = missing_bucket(error)
    if bucket is not None:
        named = f"the bucket {bucket!r}" if bucket else "its bucket"
        reason = (
            f"{named} does not exist ({detail}); check the bucket's name in the URL "
            "(and the endpoint), or create the bucket"
        )
    elif is_refused(error):
        address = refused_address(error)
        by = f" by {address}" if address else ""
        reason = (
            f"the connection was refused{by} ({detail}): nothing accepts connections "
            "at that address; check the endpoint (storage option endpoint_url) and "
            "that its server is running"
        )
    elif failure.transient:
        tries = "attempt" if failure.attempts == 1 else "attempts"
        reason = f"gave up after {failure.attempts} {tries}, last error {detail}"
    else:
        reason = detail
    result = StoreError(
        f"cannot {operation} {key!r} at {url!r}: {reason}", key=key, url=url, attempts=failure.attempts
    )
    result.__cause__ = error
    return result
