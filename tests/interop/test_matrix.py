"""The interop matrix: every case of ``_interop.CASES``, both directions, both peers.

``zarrforge`` writes through its API and each peer reads (values bit for bit,
shape, data type, chunk shape, fill value, attributes, dimension names, codecs,
chunk key encoding, and the chunk keys in the store); then each peer writes
through its own API and zarrforge reads. Where a peer cannot express a case
exactly, ``_interop.expectation`` names the documented deviation and
``_interop.check_deviations`` asserts the peer's actual behaviour.
"""

from __future__ import annotations

import _interop as X
import numpy as np
import pytest

import zarrforge as zf


@pytest.mark.parametrize("peer", X.PEERS)
@pytest.mark.parametrize("case", X.CASES, ids=X.case_id)
def test_zarrforge_writes_peer_reads(tmp_path, case, peer):
    data = X.make_data(case.dtype, case.shape)
    X.write_zarrforge(tmp_path, case, data)
    X.check_keys(tmp_path, case)
    X.check_view(X.READERS[peer](tmp_path), case, data, writer="zarrforge")
    X.check_deviations(tmp_path, case, "zarrforge", X.expectation(case, "zarrforge", peer))


@pytest.mark.parametrize("peer", X.PEERS)
@pytest.mark.parametrize("case", X.CASES, ids=X.case_id)
def test_peer_writes_zarrforge_reads(tmp_path, case, peer):
    data = X.make_data(case.dtype, case.shape, seed=1)
    X.WRITERS[peer](tmp_path, case, data)
    X.check_keys(tmp_path, case)
    X.check_view(X.read_zarrforge(tmp_path), case, data, writer=peer)
    X.check_zarrforge_selections(tmp_path, case, data, writer=peer)
    X.check_deviations(tmp_path, case, peer, X.expectation(case, peer, "zarrforge"))
    X.check_document(tmp_path)


@pytest.mark.parametrize("peer", X.PEERS)
@pytest.mark.parametrize("case", X.CASES, ids=X.case_id)
def test_zarrforge_updates_peer_array_peer_reads(tmp_path, case, peer):
    """A peer's array, partly overwritten by zarrforge (chunks read, merged and re-encoded)
    and with an attribute added by zarrforge (the document rewritten), reads in the peer."""
    data = X.make_data(case.dtype, case.shape, seed=2)
    X.WRITERS[peer](tmp_path, case, data)
    a = zf.open_array(str(tmp_path), X.ARRAY, mode="r+")
    new = X.make_data(case.dtype, case.shape, seed=3)
    region = X.update_region(case)
    a[region] = np.asfortranarray(new[region])  # any memory layout of the values
    a.attrs["updated_by"] = "zarrforge"
    X.check_view(
        X.READERS[peer](tmp_path),
        case,
        data,
        writer=peer,
        update=(region, new),
        attributes={**case.attributes, "updated_by": "zarrforge"},
    )


RESIZABLE = [c for c in X.CASES if c.shape and 0 not in c.shape]


@pytest.mark.parametrize("peer", X.PEERS)
@pytest.mark.parametrize("case", RESIZABLE, ids=X.case_id)
def test_zarrforge_shrinks_and_regrows_peer_array_peer_reads(tmp_path, case, peer):
    """zarrforge's resize deletes the chunks outside the smaller shape and re-encodes the
    cut edge chunks with the fill value beyond the edge; growing back shows the fill value."""
    data = X.make_data(case.dtype, case.shape, seed=9)
    X.WRITERS[peer](tmp_path, case, data)
    a = zf.open_array(str(tmp_path), X.ARRAY, mode="r+")
    small = tuple((n + 1) // 2 for n in case.shape)
    a.resize(small)
    assert X.READERS[peer](tmp_path).shape == small
    a.resize(case.shape)
    origins = [tuple(i * n for i, n in zip(coords, case.chunks)) for coords in a.stored_chunks()]
    assert all(o < s for origin in origins for o, s in zip(origin, small))
    cleared = np.ones(case.shape, dtype=bool)
    cleared[tuple(slice(0, s) for s in small)] = False
    X.check_view(X.READERS[peer](tmp_path), case, data, writer=peer, cleared=cleared)
