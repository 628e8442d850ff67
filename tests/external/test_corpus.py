"""zarrforge reads every node of the vendored corpus of other implementations' data.

Each array and group under ``data/`` (see ``_corpus``) is opened with
zarrforge from the vendored files (no network) and compared with the
reference summary in ``expected.json`` (shape, data type, SHA-256 of the
values; attributes and member names for groups), recorded by
``record_expected.py`` from the writing implementation or the peer closest to it.

A case zarrforge cannot read today is listed in ``manifest.json``
``known_refusals`` with the reason, the store key and the metadata field its
error must name. For those cases the test asserts that the refusal is a
``ZarrforgeError`` naming that key and field; when zarrforge starts reading
one, the test fails and asks for the entry to be removed, so the manifest
(and the table in ``docs/interop.md``) always says what zarrforge refuses.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

import _corpus
import numpy as np
import pytest
from _summary import summarize_array, summarize_group

import zarrforge as zf
from zarrforge.errors import ZarrforgeError

NODES = _corpus.discover()
MANIFEST = _corpus.load(_corpus.MANIFEST)
EXPECTED = _corpus.load(_corpus.EXPECTED)
REFUSALS = {entry["case"]: entry for entry in MANIFEST["known_refusals"]}
SOURCES = {source["id"]: source for source in MANIFEST["sources"]}
PEERS = ("zarr-python-2.18", "zarr-python-3", "tensorstore")
MAX_CORPUS_BYTES = 5 * 1024 * 1024
REGENERATE = "run `make zarr2-venv && .venv/bin/python tests/external/record_expected.py`"


def read_with_zarrforge(node: _corpus.Node) -> dict[str, Any]:
    if node.kind == "array":
        array = zf.open_array(str(node.store), node.path, mode="r")
        return summarize_array(array[...])
    group = zf.open_group(str(node.store), node.path, mode="r")
    return summarize_group(dict(group.attrs), group.keys())


# --------------------------------------------------------------------------------------------
# the corpus, the manifest and expected.json agree


def test_corpus_has_every_source_kind():
    # guards against an empty or half-copied data directory passing vacuously
    assert {n.source for n in NODES} == set(SOURCES)
    kinds = {(n.kind, n.zarr_format) for n in NODES}
    assert kinds == {("array", 2), ("group", 2), ("array", 3), ("group", 3)}


def test_expected_values_cover_exactly_the_corpus():
    found, recorded = {n.case for n in NODES}, set(EXPECTED)
    assert not found - recorded, f"nodes without expected values ({REGENERATE}): {sorted(found - recorded)}"
    assert not recorded - found, (
        f"expected values for nodes no longer vendored ({REGENERATE}): {sorted(recorded - found)}"
    )
    for node in NODES:
        entry = EXPECTED[node.case]
        assert (entry["kind"], entry["zarr_format"]) == (node.kind, node.zarr_format), node.case
        assert set(entry["peers"]) <= set(PEERS), node.case


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_source_is_recorded_with_commit_and_licence(source):
    entry = SOURCES[source]
    assert entry["repository"].startswith("https://github.com/")
    assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"])
    assert entry["licence"] and entry["licence_files"] and entry["paths"] and entry["writers"]
    root = _corpus.DATA / source
    for notice in entry["licence_files"]:
        assert (root / notice).is_file(), f"licence notice {notice} of {source} is not vendored"
    vendored = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    for path in entry["paths"]:
        assert any(v == path or v.startswith(path + "/") for v in vendored), (
            f"{source}: {path} listed, not vendored"
        )
    listed = [*entry["paths"], *entry["licence_files"]]
    stray = sorted(v for v in vendored if not any(v == p or v.startswith(p + "/") for p in listed))
    assert not stray, f"{source}: vendored files not listed in manifest.json paths: {stray[:5]}"


def test_corpus_stays_small():
    size = sum(p.stat().st_size for p in _corpus.DATA.rglob("*") if p.is_file())
    assert size < MAX_CORPUS_BYTES, f"the vendored corpus is {size} bytes"


def test_known_refusals_are_corpus_cases_with_reasons():
    cases = {n.case for n in NODES}
    assert len(REFUSALS) == len(MANIFEST["known_refusals"]), "a case is listed twice in known_refusals"
    for case, entry in REFUSALS.items():
        assert case in cases, f"known_refusals names {case!r}, which is not in the corpus"
        assert entry["reason"] and entry["key"] and entry["field"], case
        assert entry["kind"] in MANIFEST["refusal_kinds"], case


# --------------------------------------------------------------------------------------------
# zarrforge against the reference, node by node


@pytest.mark.parametrize("node", NODES, ids=[n.case for n in NODES])
def test_zarrforge_reads_node(node):
    refusal = REFUSALS.get(node.case)
    recorded = EXPECTED[node.case]
    try:
        summary = read_with_zarrforge(node)
    except ZarrforgeError as exc:
        if refusal is None:
            reader = recorded["reference"] or "no peer"
            raise AssertionError(
                f"zarrforge refuses {node.case} ({reader} reads it); fix zarrforge, "
                f"or list the case in manifest.json known_refusals"
            ) from exc
        message = str(exc)
        assert refusal["key"] in message and refusal["field"] in message, (
            f"{node.case}: the refusal must name key {refusal['key']!r} and field {refusal['field']!r}: "
            f"{message}"
        )
        return
    except Exception as exc:  # noqa: BLE001  # the point is to catch what is not a ZarrforgeError
        pytest.fail(
            f"{node.case}: zarrforge failed with a bare {type(exc).__name__} ({exc}); "
            f"a refusal must be a ZarrforgeError naming the key and the field"
        )
    if refusal is not None:
        pytest.fail(
            f"{node.case} is listed in tests/external/manifest.json known_refusals "
            f"({refusal['reason']}) but zarrforge now reads it: remove the entry from the manifest "
            f"and update the corpus table in docs/interop.md"
        )
    expected = recorded["expected"]
    assert expected is not None, (
        f"zarrforge reads {node.case} but no peer did when expected.json was recorded, so there is "
        f"nothing to compare with; {REGENERATE} in an environment where a peer reads it"
    )
    assert summary == expected, f"{node.case}: zarrforge differs from {recorded['reference']}"


# --------------------------------------------------------------------------------------------
# the recorded references agree with what the writers say they wrote


def _writer_cases(rule: dict[str, Any]) -> list[str]:
    return [
        case
        for case in sorted(EXPECTED)
        if any(fnmatch.fnmatchcase(case, pattern) for pattern in rule["cases"])
        and not any(fnmatch.fnmatchcase(case, pattern) for pattern in rule["except"])
    ]


@pytest.mark.parametrize("rule", MANIFEST["writer_values"], ids=lambda rule: rule["cases"][0])
def test_reference_matches_the_writers_own_values(rule):
    values = rule["values"]
    written = np.arange(values["arange"]).astype(values["dtype"]).reshape(values["shape"])
    cases = _writer_cases(rule)
    assert cases, f"no case matches {rule['cases']}"
    for case in cases:
        assert EXPECTED[case]["expected"] == summarize_array(written), (
            f"{case}: reference differs from {rule['from']}"
        )


# --------------------------------------------------------------------------------------------
# the corpus table in docs/interop.md says what the manifest says


DOCS = _corpus.HERE.parents[1] / "docs" / "interop.md"


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_docs_table_counts_match_the_manifest(source):
    rows = [
        line
        for line in DOCS.read_text(encoding="utf-8").splitlines()
        if line.startswith("| [") and f"]({SOURCES[source]['repository']})" in line
    ]
    assert len(rows) == 1, (
        f"docs/interop.md needs one corpus table row linking {SOURCES[source]['repository']}"
    )
    nodes = [n for n in NODES if n.source == source]
    refused = sum(n.case in REFUSALS for n in nodes)
    cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", rows[0])]  # "\\|" is a pipe inside a cell
    count = lambda kind, fmt: sum(n.kind == kind and n.zarr_format == fmt for n in nodes)  # noqa: E731
    assert cells[3] == f"{count('array', 2)} / {count('array', 3)}", f"{source}: arrays v2 / v3"
    assert cells[4] == f"{count('group', 2)} / {count('group', 3)}", f"{source}: groups v2 / v3"
    assert cells[5] == f"{len(nodes) - refused} of {len(nodes)}", (
        f"{source}: docs/interop.md says zarrforge reads {cells[5]}; the manifest says "
        f"{len(nodes) - refused} of {len(nodes)}: update the table"
    )


def test_docs_corpus_total_matches_the_manifest():
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    read = len(NODES) - len(REFUSALS)
    assert f"zarrforge reads {read} of the {len(NODES)} nodes" in text
    assert f"holds {len(NODES)} arrays and groups" in text
