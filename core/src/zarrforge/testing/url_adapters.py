"""The URL adapter conformance suite (the ``url_adapters`` extension point).

Subclass :class:`URLAdapterConformance` and set:

* ``scheme``: the adapter's scheme, as registered (lower case);
* ``place``: ``"after"`` for an adapter that works on what the segments before it name
  (a format segment, ``zip:``), ``"root"`` for one that starts a pipeline (``file:``,
  ``s3:``);
* ``pipelines(self, tmp_path)``: a method returning :class:`PipelineCase` objects, URL
  pipelines that use the scheme and must resolve, with the ``storage_options`` they need.
  Each case must name the same place whenever it is resolved (``memory:NAME``, not
  ``memory:``, which is a new store each time). For an adapter that cannot write
  (``writable = False``) each case also names arrays
  already stored there (``arrays``: ``{path below the pipeline: values}``), which the
  method writes first; for a writable one the suite writes its own;
* ``writable`` (default ``True``): whether the adapter's stores can be written;
* ``invalid_bodies``: bodies (the text after ``scheme:``) the adapter must refuse with a
  :class:`~zarrforge.errors.URLPipelineError` naming the segment; at least one;
* ``base`` (default ``"memory:"``): what an ``"after"`` adapter is put behind in the
  placement and generated checks;
* ``keeps_base_path`` (default ``True`` for ``"after"``): whether the adapter keeps the
  path the segments before it chose (checked with the first case's last segment, which
  must be the adapter's, put after ``base|zarr:outer``) (format segments do; ``zip:`` opens the key at that
  path instead, so says ``False``);
* ``max_examples`` (default 50) and ``shrink`` (default ``True``) for hypothesis.

What it checks, against :mod:`zarrforge.abc.url_adapter`: the scheme resolves through
the installed ``zarrforge.url_adapters`` registry to a :class:`URLAdapter` whose ``name``
is the scheme; put where it does not belong (first, or after a store) it raises a
``URLPipelineError`` naming the segment; each case resolves to a
:class:`~zarrforge.abc.url_adapter.PipelineState` with a normalised path, read-only when
asked to be (and, if the adapter cannot write, refuses ``read_only=False`` with an error
saying to open with ``mode="r"``); through a real array, what is written through the
pipeline reads back the same after reopening read-only, and ``path=`` below the pipeline
names the same node as a further ``|zarr:`` segment; an ``"after"`` adapter that keeps
the base path does; the invalid bodies are refused naming the segment; and for
hypothesis-generated bodies (any text, and the special ones: empty, ``%``, ``%7C``,
``%00``, ``..``, ``a//b``, ``?q``, ``#f``, NUL, non-ASCII, very long), resolving
read-only gives a state or a zarrforge error, never another exception. Each failure
names the pipeline and the property, in a sentence.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

import zarrforge as zf

from ..abc.url_adapter import PipelineState, URLAdapter
from ..errors import PluginFailureError, URLPipelineError, ZarrforgeError
from ..hierarchy_api import resolve_pipeline
from ..plugin_api import registry
from ._common import hypothesis_settings
from .scaffolding import KitScaffolding

SPECIAL_BODIES = [
    "",
    "%",
    "%7C",
    "%00",
    "%ZZ",
    "%2F",
    "..",
    "a/../b",
    "a//b",
    "/",
    "./a",
    "?q",
    "a?b=1",
    "#f",
    "\x00",
    "a\\b",
    "é/ü",
    " a ",
    "a" * 300,
    "@",
    "@x/y",
]


@dataclasses.dataclass
class PipelineCase:
    """A URL pipeline that must resolve; ``arrays`` are stored below it beforehand (for
    adapters that cannot write)."""

    url: str
    storage_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    arrays: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)


class URLAdapterConformance(KitScaffolding):
    scheme: str = ""
    place: str = "after"
    writable = True
    invalid_bodies: ClassVar[list[str]] = []
    base = "memory:"
    keeps_base_path: bool | None = None
    max_examples = 50
    shrink = True

    def pipelines(self, tmp_path: Path) -> list[PipelineCase]:
        raise NotImplementedError(
            "return the PipelineCase objects of URL pipelines using the scheme that must resolve"
        )

    # --- helpers ----------------------------------------------------------------------------

    def _scheme(self) -> str:
        assert self.scheme, "set scheme to the adapter's scheme"
        assert self.place in ("after", "root"), (
            f"place is {self.place!r}; set 'after' (works on a base) or 'root'"
        )
        return self.scheme

    def _cases(self, tmp_path: Path) -> list[PipelineCase]:
        cases = self.pipelines(tmp_path)
        assert cases, "pipelines() returned no case"
        for case in cases:
            assert "|" in case.url, (
                f"{case.url!r} is not a URL pipeline (a string without '|' keeps its old "
                "meaning, a path or an fsspec URL): end a root with '|zarr:'"
            )
        return cases

    def _settings(self) -> Any:
        return hypothesis_settings(self.max_examples, self.shrink)

    def _pipeline(self, body: str) -> str:
        segment = f"{self.scheme}:{body}"
        return f"{self.base}|{segment}" if self.place == "after" else f"{segment}|zarr:"

    # --- the tests --------------------------------------------------------------------------

    def test_scheme_resolves_to_the_registered_adapter(self):
        scheme = self._scheme()
        assert scheme == scheme.lower(), f"{scheme!r}: schemes are registered in lower case"
        adapter = registry.url_adapters.get(scheme)
        assert isinstance(adapter, type) and issubclass(adapter, URLAdapter), (
            f"{scheme!r}: the registry gives {adapter!r}, not a URLAdapter subclass"
        )
        assert getattr(adapter, "name", None) == scheme, (
            f"{scheme!r}: the adapter's name is {getattr(adapter, 'name', None)!r}; it must be "
            "the scheme it is registered under"
        )

    def test_out_of_place_it_is_refused_naming_the_segment(self, tmp_path):
        scheme = self._scheme()
        if self.place == "after":
            url, segment = f"{scheme}:x", f"{scheme}:x"
            where = "as the first segment"
        else:
            root = self._cases(tmp_path)[0].url.split("|")[0]
            url, segment = f"memory:|{root}", root
            where = "after another segment"
        try:
            resolve_pipeline(url, read_only=True)
        except URLPipelineError as exc:
            assert segment in str(exc), (
                f"{url!r}: the error for '{scheme}:' {where} does not name the segment {segment!r}: {exc}"
            )
        except Exception as exc:  # the point is to name what escaped
            raise AssertionError(
                f"{url!r}: '{scheme}:' {where} raised {type(exc).__name__} ({exc}), not a URLPipelineError"
            ) from exc
        else:
            raise AssertionError(
                f"{url!r}: '{scheme}:' {where} was accepted; an adapter "
                f"placed where it does not work must raise a URLPipelineError"
            )

    def test_cases_resolve_to_a_state_read_only_when_asked(self, tmp_path):
        for case in self._cases(tmp_path):
            for read_only in (False, True):  # writing first: it may create the resource
                if not read_only and not self.writable:
                    self._check_refuses_writing(case)
                    continue
                try:
                    state = resolve_pipeline(
                        case.url, read_only=read_only, storage_options=case.storage_options
                    )
                except ZarrforgeError as exc:
                    raise AssertionError(
                        f"{case.url!r} (read_only={read_only}): did not resolve: {type(exc).__name__}: {exc}"
                    ) from exc
                assert isinstance(state, PipelineState), (
                    f"{case.url!r}: resolved to {state!r}, not a PipelineState"
                )
                path = state.path
                assert path == path.strip("/") and "//" not in path, (
                    f"{case.url!r}: the state's path {path!r} is not normalised (no leading, "
                    "trailing or doubled '/')"
                )
                assert state.store.read_only == read_only or (read_only is False and not self.writable), (
                    f"{case.url!r}: resolved with read_only={read_only}, its store is "
                    f"{'read-only' if state.store.read_only else 'writable'}"
                )

    def _check_refuses_writing(self, case: PipelineCase) -> None:
        try:
            resolve_pipeline(case.url, read_only=False, storage_options=case.storage_options)
        except ZarrforgeError as exc:
            assert "mode" in str(exc) and "'r'" in str(exc).replace('"', "'"), (
                f"{case.url!r}: the refusal to write does not tell to open with mode='r': {exc}"
            )
        except Exception as exc:
            raise AssertionError(
                f"{case.url!r}: read_only=False raised {type(exc).__name__} ({exc}), not a zarrforge error"
            ) from exc
        else:
            raise AssertionError(
                f"{case.url!r}: writable = False, but it resolved with "
                "read_only=False; refuse it, saying to open with mode='r'"
            )

    def test_a_real_array_round_trips_through_each_case(self, tmp_path):
        rng = np.random.default_rng(0)
        for n, case in enumerate(self._cases(tmp_path)):
            options = case.storage_options
            if self.writable:
                values = rng.integers(-1000, 1000, size=(7, 5)).astype("int32")
                path = f"conformance{n}/a"
                created = zf.create_array(
                    case.url,
                    path,
                    shape=values.shape,
                    chunks=(3, 2),
                    dtype="int32",
                    fill_value=0,
                    storage_options=options,
                )
                created[...] = values
                arrays = {path: values}
            else:
                arrays = case.arrays
                assert arrays, (
                    f"{case.url!r}: writable = False, so the case must name the "
                    "arrays stored below it (PipelineCase.arrays)"
                )
            for path, values in arrays.items():
                try:
                    again = zf.open_array(case.url, path, mode="r", storage_options=options)
                    got = again[...]
                except ZarrforgeError as exc:
                    raise AssertionError(
                        f"{case.url!r}: the array at {path!r} does not reopen "
                        f"read-only: {type(exc).__name__}: {exc}"
                    ) from exc
                assert np.array_equal(got, values), (
                    f"{case.url!r}: the array at {path!r} reads back other values than were written"
                )
                nested = zf.open_array(f"{case.url}|zarr:{path}", mode="r", storage_options=options)
                assert nested.path == again.path and np.array_equal(nested[...], values), (
                    f"{case.url!r}: path={path!r} names {again.path!r} but a further "
                    f"'|zarr:{path}' names {nested.path!r}; the pipeline's path and path= join"
                )

    def test_an_after_adapter_keeps_the_base_path(self, tmp_path):
        keeps = self.place == "after" if self.keeps_base_path is None else self.keeps_base_path
        if self.place != "after" or not keeps:
            return
        case = self._cases(tmp_path)[0]
        own = case.url.split("|")[-1]
        assert own.startswith(f"{self._scheme()}:"), (
            f"{case.url!r}: the first case must end with the '{self.scheme}:' segment"
        )
        url = f"{self.base}|zarr:outer|{own}"
        state = resolve_pipeline(url, read_only=False, storage_options=case.storage_options)
        assert state.path.split("/")[:1] == ["outer"], (
            f"{url!r}: resolved to the path {state.path!r}, which lost 'outer', the path the "
            "segments before it chose (join them: zarrforge.abc.url_adapter.join_path)"
        )

    def test_invalid_bodies_are_refused_naming_the_segment(self):
        scheme = self._scheme()
        assert self.invalid_bodies, (
            "set invalid_bodies to bodies the adapter must refuse with a URLPipelineError naming the segment"
        )
        for body in self.invalid_bodies:
            url = self._pipeline(body)
            segment = f"{scheme}:{body}"
            try:
                resolve_pipeline(url, read_only=True)
            except URLPipelineError as exc:
                assert segment in str(exc) or repr(segment) in str(exc), (
                    f"{url!r}: the error does not name the segment {segment!r}: {exc}"
                )
            except Exception as exc:
                own = exc.__cause__ if isinstance(exc, PluginFailureError) else exc
                raise AssertionError(
                    f"{url!r}: raised {type(own).__name__} ({exc}), not a URLPipelineError naming the segment"
                ) from exc
            else:
                raise AssertionError(f"{url!r}: the invalid body {body!r} was accepted")

    def test_generated_bodies_resolve_or_raise_a_zarrforge_error(self):
        from hypothesis import given
        from hypothesis import strategies as st

        self._scheme()
        bodies = st.one_of(
            st.sampled_from(SPECIAL_BODIES), st.text(max_size=40).filter(lambda t: "|" not in t)
        )

        @self._settings()
        @given(bodies)
        def check(body: str) -> None:
            url = self._pipeline(body)
            try:
                state = resolve_pipeline(url, read_only=True)
            except PluginFailureError as exc:  # the engine naming the adapter's own bug
                raise AssertionError(
                    f"{url!r}: the adapter failed unexpectedly ({exc}); bad "
                    "input must be a zarrforge error naming the segment"
                ) from exc
            except ZarrforgeError:
                return
            except Exception as exc:
                raise AssertionError(
                    f"{url!r}: raised {type(exc).__name__} ({exc}); bad input "
                    "must be a zarrforge error naming the segment"
                ) from exc
            assert isinstance(state, PipelineState) and state.store.read_only, (
                f"{url!r}: resolved read-only to {state!r}"
            )

        check()
