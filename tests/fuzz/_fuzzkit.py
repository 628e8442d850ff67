"""The fuzzing harness shared by every target in ``tests/fuzz``.

A *target* is a hypothesis strategy plus a check that runs one drawn case
against zarrforge. Every check obeys one oracle (:func:`expect`):

* the call returns a correct result (each target checks what "correct" means
  for it: a decoded chunk of the promised shape, a valid key, ...), or
* it raises a :class:`~zarrforge.errors.ZarrforgeError` whose message names
  what is involved: a ``MetadataError`` its document's store key and, where it
  has one, the field; a ``CorruptChunkError`` the chunk key;
* anything else fails the case: another exception type (it propagates
  unchanged, so hypothesis shrinks and reports it as it is), a zarrforge error
  that names nothing, an error caused somewhere down its chain by a
  ``MemoryError`` (a huge allocation was attempted and papered over), or a
  case that runs longer than :data:`CASE_SECONDS` (:class:`Hang`, raised by a
  ``SIGALRM`` timer, so it also fires inside C code that returns to Python).

Targets register themselves in :data:`TARGETS` when their module
(``_targets_*.py``) is imported; :func:`load_targets` imports them all. The
pytest modules run every target with a small example budget; ``run_fuzz.py``
(behind ``scripts/fuzz-long``) runs them for a time budget in subprocesses
with an address-space limit.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import os
import signal
import struct
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zarrforge.errors import (
    CorruptChunkError,
    InvalidPathError,
    MetadataError,
    NodeNotFoundError,
    ZarrforgeError,
)

# Wall-clock limit of one case. Generous: the machine may be busy with other work.
CASE_SECONDS = float(os.environ.get("ZARRFORGE_FUZZ_CASE_SECONDS", "20"))
# Growth of the peak RSS one case may cause (a new high-water mark only: cheap, and
# blind to allocations below an earlier peak; run_fuzz.py adds an RLIMIT_AS).
CASE_MEMORY_BYTES = int(os.environ.get("ZARRFORGE_FUZZ_CASE_MEMORY_MB", "256")) * 2**20
# Example budget of each target in the normal (pytest) run.
PYTEST_EXAMPLES = int(os.environ.get("ZARRFORGE_FUZZ_EXAMPLES", "0") or 0)


# Bugs already reported (docs/reliability.md#bugs), recognised by exception type and a
# frame (file suffix, function) of the traceback. In the pytest run a case that hits one
# of them passes, so the suite does not fail at random until they are fixed (each has a
# deterministic test that fails instead, marked known_bug); run_fuzz.py reports them,
# labelled. ZARRFORGE_KNOWN_BUGS=fail turns the tolerance off.
KNOWN_BUG_SIGNATURES: dict[str, list[tuple[str, str, str]]] = {
    # bug: [(exception type name, file suffix or "" for any, function or "" for any)]
    # (B3, B4 and B8 were here until fixed in 8f2819b; B5 and B9 until fixed with
    # the engine's per-chunk limit check and the lazy slice pieces of the indexer.)
}
TOLERATE_KNOWN_BUGS = os.environ.get("ZARRFORGE_KNOWN_BUGS") != "fail"
KNOWN_BUG_HITS: dict[str, int] = {}


def known_bug_of(exc: BaseException) -> str | None:
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    for bug, signatures in KNOWN_BUG_SIGNATURES.items():
        for kind, path, function in signatures:
            if type(exc).__name__ != kind:
                continue
            if not path or any(f.filename.endswith(path) and function in ("", f.name) for f in frames):
                return bug
    return None


class Hang(BaseException):
    """One case ran longer than ``CASE_SECONDS`` (a BaseException: no ``except
    Exception`` inside zarrforge or a codec can swallow it)."""


class Violation(AssertionError):
    """A zarrforge error broke the oracle (names nothing, hides a MemoryError, ...)."""


# --- the oracle ---------------------------------------------------------------------


def _chain(exc: BaseException | None) -> Iterator[BaseException]:
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def check_error(exc: ZarrforgeError, *, key: str | None = None) -> None:
    """Raise :class:`Violation` if ``exc`` is not an acceptable zarrforge error."""
    for inner in _chain(exc):
        if isinstance(inner, MemoryError) and inner is not exc:
            raise Violation(
                f"{type(exc).__name__} hides a MemoryError (a huge allocation was attempted): {exc}"
            ) from exc
    text = str(exc)
    if isinstance(exc, MetadataError):
        # the document's store key always; its field too where the error has one
        if not exc.key:
            raise Violation(f"{type(exc).__name__} does not name the store key: {text!r}") from exc
        missing = [
            n
            for n in (exc.key, exc.field)  # quoted with repr, or as they are
            if n and n not in text and repr(n) not in text
        ]
        if missing:
            raise Violation(
                f"{type(exc).__name__} has key={exc.key!r} field={exc.field!r} "
                f"but its message does not mention {missing}: {text!r}"
            ) from exc
    elif isinstance(exc, CorruptChunkError):
        if key is not None and exc.key is None:
            raise Violation(f"{type(exc).__name__} does not name the chunk key {key!r}: {text!r}") from exc
        if exc.key is not None and exc.key not in text:
            raise Violation(f"{type(exc).__name__} key {exc.key!r} missing from {text!r}") from exc
    elif isinstance(exc, (NodeNotFoundError, InvalidPathError)):
        pass  # these name the path or key in the message by construction
    if not text.strip():
        raise Violation(f"{type(exc).__name__} with an empty message") from exc


@contextlib.contextmanager
def expect(*, key: str | None = None, allow: tuple[type[BaseException], ...] = ()) -> Iterator[list]:
    """Run a block under the oracle; the yielded list receives the zarrforge error, if any.

    ``allow`` lists extra exception types that count as a correct answer
    (rarely needed; each use is commented where it appears).
    """
    caught: list[BaseException] = []
    try:
        yield caught
    except ZarrforgeError as exc:
        check_error(exc, key=key)
        caught.append(exc)
    except allow as exc:
        caught.append(exc)


def _peak_rss() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class _Alarm:
    """A per-case wall-clock limit with SIGALRM (main thread only; elsewhere a no-op)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.fired = False

    def _handler(self, signum: int, frame: Any) -> None:
        self.fired = True
        raise Hang(f"the case ran longer than {self.seconds} s")

    @contextlib.contextmanager
    def guard(self) -> Iterator[None]:
        import threading

        if threading.current_thread() is not threading.main_thread() or self.seconds <= 0:
            yield
            return
        previous = signal.signal(signal.SIGALRM, self._handler)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        if self.fired:
            raise Hang(f"the case ran longer than {self.seconds} s")


# --- targets --------------------------------------------------------------------------


@dataclasses.dataclass
class Target:
    name: str
    strategy: Callable[[], st.SearchStrategy]  # built lazily: some need imports or seeds
    check: Callable[[Any], None]
    examples: int = 100  # budget in the normal pytest run
    memory_sensitive: bool = True
    description: str = ""

    def run_case(self, value: Any) -> None:
        before = _peak_rss()
        alarm = _Alarm(CASE_SECONDS)
        try:
            with alarm.guard():
                self.check(value)
        except (Exception, Hang) as exc:
            bug = known_bug_of(exc)
            if bug is None:
                raise
            if TOLERATE_KNOWN_BUGS:
                KNOWN_BUG_HITS[bug] = KNOWN_BUG_HITS.get(bug, 0) + 1
                return
            exc.add_note(f"this is known bug {bug} (docs/reliability.md)")
            raise
        grown = _peak_rss() - before
        if self.memory_sensitive and grown > CASE_MEMORY_BYTES:
            raise Violation(
                f"one case raised the process' peak memory by {grown >> 20} MiB "
                f"(limit {CASE_MEMORY_BYTES >> 20} MiB): a huge allocation"
            )

    def hypothesis_test(
        self, max_examples: int, *, seed: int | None = None, on_case: Callable[[], None] | None = None
    ) -> Callable[[], None]:
        """A zero-argument callable running ``max_examples`` cases under hypothesis."""

        def case(value: Any) -> None:
            if on_case is not None:
                on_case()
            self.run_case(value)

        test = given(self.strategy())(case)
        test = settings(
            max_examples=max_examples,
            deadline=None,
            database=None,
            derandomize=False,
            print_blob=True,
            suppress_health_check=list(HealthCheck),
        )(test)
        if seed is not None:
            from hypothesis import seed as hseed

            test = hseed(seed)(test)
        return test


TARGETS: dict[str, Target] = {}


def target(
    name: str,
    *,
    strategy: Callable[[], st.SearchStrategy],
    examples: int = 100,
    memory_sensitive: bool = True,
    description: str = "",
) -> Callable:
    def register(check: Callable[[Any], None]) -> Callable[[Any], None]:
        TARGETS[name] = Target(name, strategy, check, examples, memory_sensitive, description)
        return check

    return register


def load_targets() -> dict[str, Target]:
    import _targets_codecs  # noqa: F401
    import _targets_keys  # noqa: F401
    import _targets_metadata  # noqa: F401
    import _targets_sharding  # noqa: F401

    return TARGETS


def pytest_budget(t: Target) -> int:
    return PYTEST_EXAMPLES or t.examples


# --- mutation of JSON documents -------------------------------------------------------

INTERESTING_INTS = [
    0,
    1,
    -1,
    2,
    3,
    7,
    8,
    255,
    256,
    65535,
    2**31 - 1,
    2**31,
    2**32,
    2**48,
    2**53 + 1,
    2**63 - 1,
    2**63,
    2**64 - 1,
    2**64,
    10**30,
    -(2**63),
    -(2**63) - 1,
]
INTERESTING_FLOATS = [0.0, -0.0, 0.5, -1.5, 1e308, -1e308, 5e-324, 3.0, 1e16, 2.0**64]
INTERESTING_STRINGS = [
    "",
    " ",
    "NaN",
    "Infinity",
    "-Infinity",
    "nan",
    "inf",
    "0x7fc00000",
    "0x7ff8000000000000",
    "0x",
    "0xZZ",
    "\x00",
    "..",
    ".",
    "/",
    "a/b",
    "../x",
    "/abs",
    "c",
    "c0",
    "__x",
    "zarr.json",
    "\u00e9",
    "\ud800",
    "\U0001f600",
    "a" * 300,
    # data types of every format
    "|O",
    "<f8",
    ">i2",
    "|b1",
    "|S0",
    "|S4",
    "<U0",
    "<U3",
    "|V3",
    "|V0",
    "<M8[ns]",
    "<m8[s]",
    "<M8",
    "<c16",
    "f8",
    "<i8",
    "|u1",
    "float64",
    "int8",
    "uint64",
    "bool",
    "complex64",
    "float16",
    "r16",
    "r0",
    "r7",
    "r8",
    "r64",
    "r2147483648",
    "string",
    "bytes",
    "numpy.datetime64",
    "fixed_length_utf32",
    "bfloat16",
    "float8_e4m3",
    "variable_length_bytes",
    "zf_example.rgb8",
    # grids, encodings, codecs, layouts, transformers
    "regular",
    "rectilinear",
    "default",
    "v2",
    "gzip",
    "zstd",
    "blosc",
    "crc32c",
    "sharding_indexed",
    "transpose",
    "numcodecs.zlib",
    "numcodecs.pickle",
    "numcodecs.delta",
    "numcodecs.",
    "numcodecs.nope",
    "vlen-utf8",
    "vlen-bytes",
    "zf_example.bitround",
    "C",
    "F",
    "little",
    "big",
    "start",
    "end",
    "inline",
    "array",
    "group",
    "indexed",
    "https://purl.org/zarr/spec/codec/gzip/1.0",
    "https://purl.org/zarr/spec/codec/blosc/1.0",
    "https://purl.org/zarr/spec/codec/endian/1.0",
    "https://purl.org/zarr/spec/codec/transpose/1.0",
    "https://purl.org/zarr/spec/protocol/core/3.0",
    "https://purl.org/zarr/spec/core/3.0",
    "https://purl.org/zarr/spec/core/3.7",
    "https://purl.org/zarr/spec/nope",
    "https://purl.org/zarr/spec/storage_transformers/sharding/1.0",
    "zarrforge.offset",
    "zarrforge.array-statistics",
    "zf_example.units",
]
FIELD_NAMES = [
    "zarr_format",
    "node_type",
    "shape",
    "data_type",
    "chunk_grid",
    "chunk_key_encoding",
    "fill_value",
    "codecs",
    "attributes",
    "storage_transformers",
    "dimension_names",
    "extensions",
    "consolidated_metadata",
    "must_understand",
    "name",
    "configuration",
    "chunk_shape",
    "separator",
    "endian",
    "order",
    "level",
    "checksum",
    "cname",
    "clevel",
    "shuffle",
    "typesize",
    "blocksize",
    "index_codecs",
    "index_location",
    "kind",
    "metadata",
    "chunks",
    "dtype",
    "filters",
    "compressor",
    "dimension_separator",
    "id",
    "zarr_consolidated_format",
    "chunk_memory_layout",
    "type",
    "extension",
    "metadata_encoding",
    "metadata_key_suffix",
    "chunks_per_shard",
    "keepbits",
    "astype",
    "scale",
    "offset",
    "digits",
    "elementsize",
    "_ARRAY_DIMENSIONS",
    "filters",
    "compressor",
    "x",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(INTERESTING_INTS),
    st.integers(-(2**70), 2**70),
    st.integers(-3, 300),
    st.sampled_from(INTERESTING_FLOATS),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(INTERESTING_STRINGS),
    st.text(max_size=12),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=6)), children, max_size=5),
    ),
    max_leaves=16,
)


def _paths(doc: Any, prefix: tuple = ()) -> Iterator[tuple]:
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, (*prefix, i))


def _get(doc: Any, path: tuple) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def _set(doc: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    _get(doc, path[:-1])[path[-1]] = value
    return doc


def _retype(data: Any, value: Any) -> Any:
    """The same information in another JSON type (a favourite source of crashes)."""
    options: list[Any] = [None, [value], {"name": value}, json.dumps(value)]
    if isinstance(value, bool):
        options += [int(value), str(value).lower()]
    elif isinstance(value, int):
        options += [float(value), -value, value + 1, value - 1, str(value), value * 2**40, bool(value)]
    elif isinstance(value, float):
        options += [int(value) if abs(value) < 1e300 else 0, str(value), -value]
    elif isinstance(value, str):
        options += [
            value.upper(),
            value + value,
            value[:-1],
            value + "\x00",
            [value, value],
            {"name": value, "configuration": {}},
        ]
    elif isinstance(value, list):
        options += [
            tuple_free(value[:-1]),
            value + value,
            value[::-1],
            {"0": value},
            value[0] if value else 0,
            [value],
        ]
    elif isinstance(value, dict):
        options += [
            list(value.values()),
            list(value.items()),
            {**value, "must_understand": False},
            dict.fromkeys(value),
            {"name": value.get("name"), "configuration": value},
        ]
    return data.draw(st.sampled_from(options), label="retype")


def tuple_free(x: Any) -> Any:
    return json.loads(json.dumps(x))


def mutate_document(data: Any, doc: Any, *, donors: Sequence[Any] = (), max_mutations: int = 4) -> Any:
    """``doc`` after 1..max_mutations random structural mutations (a fresh copy)."""
    doc = copy.deepcopy(doc)
    for _ in range(data.draw(st.integers(1, max_mutations), label="mutations")):
        paths = list(_paths(doc))
        path = data.draw(st.sampled_from(paths), label="path")
        current = _get(doc, path)
        op = data.draw(
            st.sampled_from(
                [
                    "replace",
                    "interesting",
                    "retype",
                    "delete",
                    "add_key",
                    "splice",
                    "list_edit",
                    "must_understand",
                    "wrap",
                ]
            ),
            label="op",
        )
        if op == "replace":
            doc = _set(doc, path, data.draw(json_values, label="value"))
        elif op == "interesting":
            doc = _set(doc, path, data.draw(scalars, label="value"))
        elif op == "retype":
            doc = _set(doc, path, _retype(data, current))
        elif op == "delete" and path:
            parent = _get(doc, path[:-1])
            del parent[path[-1]]
        elif op == "add_key":
            target_dict = (
                current
                if isinstance(current, dict)
                else (_get(doc, path[:-1]) if path and isinstance(_get(doc, path[:-1]), dict) else None)
            )
            if target_dict is not None:
                name = data.draw(st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=8)), label="key")
                target_dict[name] = data.draw(json_values, label="value")
        elif op == "splice" and donors:
            donor = data.draw(st.sampled_from(donors), label="donor")
            donor_paths = list(_paths(donor))
            piece = _get(donor, data.draw(st.sampled_from(donor_paths), label="donor path"))
            doc = _set(doc, path, copy.deepcopy(piece))
        elif op == "list_edit" and isinstance(current, list):
            edit = data.draw(st.sampled_from(["drop", "dup", "append", "swap", "clear"]), label="edit")
            if edit == "drop" and current:
                del current[data.draw(st.integers(0, len(current) - 1))]
            elif edit == "dup" and current:
                current.append(copy.deepcopy(current[data.draw(st.integers(0, len(current) - 1))]))
            elif edit == "append":
                current.append(data.draw(scalars))
            elif edit == "swap" and len(current) > 1:
                current.reverse()
            elif edit == "clear":
                current.clear()
        elif op == "must_understand" and isinstance(current, dict):
            current["must_understand"] = data.draw(st.sampled_from([False, True, 0, "false", None]))
        elif op == "wrap":
            doc = _set(
                doc, path, {"name": current, "configuration": {}} if data.draw(st.booleans()) else [current]
            )
    return doc


def serialize(data: Any, doc: Any) -> bytes:
    """JSON bytes of ``doc``, sometimes written the way other tools do (ASCII escapes,
    NaN tokens), sometimes damaged at the byte level."""
    style = data.draw(st.sampled_from(["plain", "ascii", "compact", "nan", "bytes"]), label="style")
    if style == "nan" and isinstance(doc, dict) and doc:
        doc = dict(doc)
        doc[data.draw(st.sampled_from(sorted(doc)))] = data.draw(
            st.sampled_from([float("nan"), float("inf"), -float("inf")])
        )
    text = json.dumps(
        doc, indent=None if style == "compact" else 2, ensure_ascii=(style == "ascii"), allow_nan=True
    )
    raw = text.encode("utf-8", "surrogatepass")
    if style == "bytes":
        raw = mutate_bytes(data, raw, max_ops=2)
    return raw


# --- mutation of bytes ------------------------------------------------------------------

_INT_FORMATS = ["<I", "<Q", "<i", "<H", ">I", "<B"]
_INTERESTING_WORDS = [
    0,
    1,
    2,
    4,
    16,
    255,
    0x7FFFFFFF,
    0x80000000,
    0xFFFFFFFF,
    2**48,
    2**63,
    2**64 - 1,
    2**64 - 2,
]


def mutate_bytes(data: Any, raw: bytes, *, max_ops: int = 3) -> bytes:
    """``raw`` after 1..max_ops byte-level mutations (flips, truncation, header words, ...)."""
    buf = bytearray(raw)
    for _ in range(data.draw(st.integers(1, max_ops), label="byte ops")):
        op = data.draw(
            st.sampled_from(
                ["flip", "set", "truncate", "extend", "delete", "dup", "word", "random", "empty", "zero_tail"]
            ),
            label="byte op",
        )
        n = len(buf)
        if op == "flip" and n:
            i = data.draw(st.integers(0, n - 1))
            buf[i] ^= 1 << data.draw(st.integers(0, 7))
        elif op == "set" and n:
            i = data.draw(st.integers(0, n - 1))
            buf[i] = data.draw(st.sampled_from([0, 1, 0x7F, 0x80, 0xFF, data.draw(st.integers(0, 255))]))
        elif op == "truncate":
            del buf[data.draw(st.integers(0, n)) :]
        elif op == "extend":
            buf += data.draw(st.binary(min_size=1, max_size=64))
        elif op == "delete" and n:
            i = data.draw(st.integers(0, n - 1))
            del buf[i : i + data.draw(st.integers(1, 16))]
        elif op == "dup" and n:
            i = data.draw(st.integers(0, n - 1))
            buf[i:i] = buf[i : i + data.draw(st.integers(1, 32))]
        elif op == "word":
            fmt = data.draw(st.sampled_from(_INT_FORMATS))
            size = struct.calcsize(fmt)
            if n >= size:
                i = data.draw(st.integers(0, n - size))
                word = data.draw(st.sampled_from(_INTERESTING_WORDS)) % (1 << (8 * size))
                if fmt in ("<i",):
                    word = word - (1 << 32) if word >= 1 << 31 else word
                struct.pack_into(fmt, buf, i, word)
        elif op == "random":
            buf = bytearray(data.draw(st.binary(max_size=max(64, n))))
        elif op == "empty":
            buf = bytearray()
        elif op == "zero_tail" and n:
            i = data.draw(st.integers(0, n - 1))
            buf[i:] = bytes(n - i)
    return bytes(buf)


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


# --- bugs found by fuzzing, kept as tests --------------------------------------------------


def known_bug(reason: str) -> Any:
    """Mark a test that reproduces a bug found here and not fixed yet.

    It runs and is expected to fail (``xfail(strict=True)``: once the bug is
    fixed it passes, the strict marker turns that into a failure, and the
    marker should be removed). ``ZARRFORGE_KNOWN_BUGS=fail`` drops the marker so
    the tests fail outright, e.g. to check a fix.
    """
    import pytest

    if os.environ.get("ZARRFORGE_KNOWN_BUGS") == "fail":
        return lambda f: f
    return pytest.mark.xfail(strict=True, reason=f"known bug: {reason}")
