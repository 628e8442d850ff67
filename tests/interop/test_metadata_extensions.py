"""Metadata spellings and extension points across implementations.

* codec lists written with short-hand names (``"crc32c"`` for
  ``{"name": "crc32c"}``), which the v3 spec allows for extensions without
  configuration: zarrforge reads them; both peers refuse them (asserted);
* unknown top-level fields marked ``"must_understand": false``: every
  implementation opens the node, and zarrforge keeps the field when it
  rewrites the document; fields without that mark are refused by all three;
* repeated dimension names, which the spec allows (uniqueness is only
  recommended): tensorstore cannot express them (asserted).
"""

from __future__ import annotations

import math

import _interop as X
import pytest
import tensorstore as ts
import zarr
import zarr.errors

import zarrforge as zf
from zarrforge.errors import MustUnderstandError

IMPLEMENTATIONS = ("zarrforge", *X.PEERS)

# --------------------------------------------------------------------------------------
# short-hand codec names

SHORT_HAND: dict[str, tuple[str, list[str | dict[str, str]]]] = {
    "uint8-bytes-crc32c": ("uint8", ["bytes", "crc32c"]),
    "bool-bytes": ("bool", ["bytes"]),
    "int8-mixed": ("int8", ["bytes", {"name": "crc32c"}]),
    "uint8-object-then-name": ("uint8", [{"name": "bytes"}, "crc32c"]),
}


def _short_hand_case(key: str) -> tuple[X.Case, list]:
    dtype, codecs = SHORT_HAND[key]
    objects = tuple({"name": c} if isinstance(c, str) else c for c in codecs)
    return X.Case(f"short-hand-{key}", dtype, (5, 3), (2, 2), objects, attributes={"k": "v"}), codecs


def _write_then_shorten(tmp_path, writer, key):
    case, short = _short_hand_case(key)
    data = X.make_data(case.dtype, case.shape, seed=6)
    X.WRITERS[writer](tmp_path, case, data)
    X.edit_document(X.array_dir(tmp_path), codecs=short)
    return case, data


@pytest.mark.parametrize("key", SHORT_HAND)
@pytest.mark.parametrize("writer", IMPLEMENTATIONS)
def test_zarrforge_reads_short_hand_codec_names(tmp_path, writer, key):
    case, data = _write_then_shorten(tmp_path, writer, key)
    X.check_view(X.read_zarrforge(tmp_path), case, data, writer=writer)
    # zarrforge reports (and would write) the object form
    assert all(isinstance(c, dict) for c in zf.open_array(str(tmp_path), X.ARRAY).metadata["codecs"])


@pytest.mark.parametrize("key", SHORT_HAND)
def test_zarr_python_refuses_short_hand_codec_names(tmp_path, key):
    _write_then_shorten(tmp_path, "zarrforge", key)
    # zarr-python 3.1 parses every codec entry as an object (zarr/core/common.py,
    # parse_named_configuration): a bare name string is a TypeError.
    with pytest.raises(TypeError, match="Expected dict, got <class 'str'>"):
        zarr.open_array(str(tmp_path), path=X.ARRAY, mode="r")


@pytest.mark.parametrize("key", SHORT_HAND)
def test_tensorstore_refuses_short_hand_codec_names(tmp_path, key):
    _write_then_shorten(tmp_path, "zarrforge", key)
    # tensorstore's zarr3 driver requires every codec to be a JSON object.
    with pytest.raises(ValueError, match='Error parsing object member "codecs".*Expected object'):
        X.open_tensorstore(tmp_path)


@pytest.mark.parametrize("peer", X.PEERS)
def test_zarrforge_rewrites_short_hand_names_as_objects_that_peers_read(tmp_path, peer):
    case, data = _write_then_shorten(tmp_path, peer, "uint8-bytes-crc32c")
    zf.open_array(str(tmp_path), X.ARRAY, mode="r+").attrs["touched"] = True
    assert X.raw_document(tmp_path)["codecs"] == [{"name": "bytes"}, {"name": "crc32c"}]
    X.check_view(
        X.READERS[peer](tmp_path), case, data, writer=peer, attributes={**case.attributes, "touched": True}
    )


# --------------------------------------------------------------------------------------
# unknown fields and must_understand

EXTENSION = {
    "name": "x.provenance",
    "must_understand": False,
    "configuration": {"tool": "interop-tests", "steps": [1, {"ü": None}]},
}
EXT_CASE = X.Case(
    "must-understand",
    "float32",
    (4, 3),
    (3, 2),
    (X.bytes_codec(), X.zstd()),
    fill="NaN",
    attributes={"a": 1},
    region=(slice(0, 3), slice(0, 2)),
)


def _peer_extension(peer, tmp_path):
    """The extension field as the peer reports it."""
    if peer == "zarr-python":
        z = zarr.open_array(str(tmp_path), path=X.ARRAY, mode="r")
        return z.metadata.extra_fields.get("x_provenance")
    return X.open_tensorstore(tmp_path).spec().to_json()["metadata"].get("x_provenance")


@pytest.mark.parametrize("peer", X.PEERS)
@pytest.mark.parametrize("writer", IMPLEMENTATIONS)
def test_must_understand_false_field_survives_a_zarrforge_rewrite(tmp_path, writer, peer):
    data = X.make_data(EXT_CASE.dtype, EXT_CASE.shape, seed=7)
    X.WRITERS[writer](tmp_path, EXT_CASE, data)
    X.edit_document(X.array_dir(tmp_path), x_provenance=EXTENSION)

    # the peer opens the array as it is and reports the field
    assert _peer_extension(peer, tmp_path) == EXTENSION
    X.check_view(X.READERS[peer](tmp_path), EXT_CASE, data, writer=writer)

    # zarrforge opens it, reports it, and keeps it when it rewrites the document
    a = zf.open_array(str(tmp_path), X.ARRAY, mode="r+")
    assert a.metadata["x_provenance"] == EXTENSION
    a.attrs.update(b=[2, "ß"])
    assert X.raw_document(tmp_path)["x_provenance"] == EXTENSION
    a.resize(5, 3)  # another rewrite, with different metadata
    assert X.raw_document(tmp_path)["x_provenance"] == EXTENSION

    # ... and the peer still opens it, with zarrforge's changes
    assert _peer_extension(peer, tmp_path) == EXTENSION
    view = X.READERS[peer](tmp_path)
    assert view.shape == (5, 3) and view.attributes == {"a": 1, "b": [2, "ß"]}
    assert zf.open_array(str(tmp_path), X.ARRAY).metadata["x_provenance"] == EXTENSION


def test_must_understand_false_field_on_groups(tmp_path):
    zf.create_group(str(tmp_path / "ours"), attributes={"a": 1})
    X.edit_document(tmp_path / "ours", x_provenance=EXTENSION)
    g = zf.open_group(str(tmp_path / "ours"), mode="r+")
    assert g.metadata["x_provenance"] == EXTENSION
    g.attrs["b"] = 2
    stored = X.node_document(tmp_path / "ours")
    assert stored["x_provenance"] == EXTENSION and stored["attributes"] == {"a": 1, "b": 2}

    # zarr-python 3.1 accepts must_understand=false fields on arrays only: its
    # GroupMetadata takes no extra fields (a TypeError from the constructor).
    with pytest.raises(TypeError, match="unexpected keyword argument 'x_provenance'"):
        zarr.open_group(str(tmp_path / "ours"), mode="r")

    # a group written by zarr-python, given the field, opens in zarrforge and keeps it
    zarr.create_group(str(tmp_path / "theirs"), attributes={"origin": "zarr-python"})
    X.edit_document(tmp_path / "theirs", x_provenance=EXTENSION)
    g = zf.open_group(str(tmp_path / "theirs"), mode="r+")
    g.attrs["c"] = 3
    stored = X.node_document(tmp_path / "theirs")
    assert stored["x_provenance"] == EXTENSION
    assert stored["attributes"] == {"origin": "zarr-python", "c": 3}

    # tensorstore has no groups: its zarr3 driver opens array nodes only
    with pytest.raises(ValueError, match='"node_type": Expected "array", but received: "group"'):
        ts.open(
            {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(tmp_path / "ours") + "/"}},
            open=True,
        ).result()


@pytest.mark.parametrize(
    "value",
    [{"name": "x.thing"}, {"name": "x.thing", "must_understand": True}, "a string", 42],
    ids=["no-mark", "must-understand-true", "string", "number"],
)
def test_fields_that_must_be_understood_are_refused_by_all(tmp_path, value):
    a = zf.create_array(str(tmp_path), X.ARRAY, shape=(2,), dtype="int8")
    a[:] = [1, 2]
    X.edit_document(X.array_dir(tmp_path), x_unknown=value)
    with pytest.raises(MustUnderstandError, match="x_unknown"):
        zf.open_array(str(tmp_path), X.ARRAY)
    with pytest.raises(zarr.errors.MetadataValidationError, match="x_unknown"):
        zarr.open_array(str(tmp_path), path=X.ARRAY, mode="r")
    with pytest.raises(ValueError, match='Unsupported metadata field "x_unknown"'):
        X.open_tensorstore(tmp_path)


# --------------------------------------------------------------------------------------
# repeated dimension names

DUP_CASE = X.Case(
    "names-repeated", "int16", (2, 3), (2, 2), (X.bytes_codec(), X.zstd()), dimension_names=("x", "x")
)


@pytest.mark.parametrize("writer", ["zarrforge", "zarr-python"])
def test_repeated_dimension_names(tmp_path, writer):
    data = X.make_data(DUP_CASE.dtype, DUP_CASE.shape, seed=8)
    X.WRITERS[writer](tmp_path, DUP_CASE, data)
    for reader in {"zarrforge", "zarr-python"} - {writer}:
        X.check_view(X.READERS[reader](tmp_path), DUP_CASE, data, writer=writer)
    # tensorstore maps dimension names to domain labels, which must be unique
    with pytest.raises(ValueError, match='Dimension label\\(s\\) "x" not unique'):
        X.open_tensorstore(tmp_path)


def test_tensorstore_cannot_write_repeated_dimension_names(tmp_path):
    with pytest.raises(ValueError, match="dimension_names"):
        X.write_tensorstore(tmp_path, DUP_CASE, X.make_data(DUP_CASE.dtype, DUP_CASE.shape))


# --------------------------------------------------------------------------------------
# non-finite numbers in attributes


def test_non_finite_attribute_values(tmp_path):
    # JSON has no NaN or Infinity. zarr-python 3.1 writes them anyway, as the bare
    # tokens NaN / Infinity (json.dumps with allow_nan=True; xarray's missing_value: NaN
    # is common). zarrforge reads them, as zarr-python does; tensorstore refuses the
    # document.
    values = {"missing": float("nan"), "max": float("inf"), "min": [float("-inf"), 1.5]}
    zarr.create_array(str(tmp_path), name=X.ARRAY, shape=(2,), dtype="float32", attributes=values)
    text = (X.array_dir(tmp_path) / "zarr.json").read_text()
    assert '"missing": NaN' in text and '"max": Infinity' in text
    attrs = dict(zf.open_array(str(tmp_path), X.ARRAY).attrs)
    assert math.isnan(attrs["missing"]) and attrs["max"] == math.inf
    with pytest.raises(ValueError, match="Invalid JSON"):
        X.open_tensorstore(tmp_path)
    # zarrforge writes them the same way by default, and zarr-python reads them back
    ours = tmp_path / "ours"
    zf.create_array(str(ours), X.ARRAY, shape=(2,), dtype="float32", attributes=values)
    assert '"missing": NaN' in (X.array_dir(ours) / "zarr.json").read_text()
    read = dict(zarr.open_array(str(ours), path=X.ARRAY, mode="r").attrs)
    assert math.isnan(read["missing"]) and read["max"] == math.inf
    assert read["min"] == [-math.inf, 1.5]
    # ... unless told to write strict JSON for tensorstore: new values are refused,
    # naming the attribute, and the string spellings are the portable choice
    strict = zf.create_array(str(tmp_path / "strict"), X.ARRAY, shape=(2,), dtype="float32")
    with zf.config.set(non_finite_attributes="refuse"):
        with pytest.raises(zf.errors.MetadataError, match="attributes.missing.*'refuse'"):
            strict.attrs["missing"] = float("nan")
        strict.attrs["missing"] = "NaN"
    assert X.read_tensorstore(tmp_path / "strict").attributes == {"missing": "NaN"}


def test_an_append_onto_a_zarr_python_store_with_non_finite_attributes(tmp_path):
    """A document that already holds NaN never blocks a change, whatever the setting."""
    group = zarr.open_group(str(tmp_path), mode="w", attributes={"valid_max": float("inf")})
    group.create_array("t", shape=(2,), dtype="float32", attributes={"missing_value": float("nan")})
    for setting in ("tokens", "refuse"):
        with zf.config.set(non_finite_attributes=setting):
            ours = zf.open_group(str(tmp_path), mode="r+")
            ours.attrs["history"] = f"appended ({setting})"
            ours["t"].resize(4)
            ours["t"].attrs["units"] = "K"
    back = zarr.open_group(str(tmp_path), mode="r")
    assert back.attrs["valid_max"] == math.inf and back.attrs["history"] == "appended (refuse)"
    assert math.isnan(back["t"].attrs["missing_value"]) and back["t"].shape == (4,)


# --------------------------------------------------------------------------------------
# integer fill values spelled with a fraction part


def test_integer_fill_value_with_a_fraction_part(tmp_path):
    # The v3 spec permits, for integer types, "a JSON number with no fraction or exponent
    # part". zarrforge follows it and refuses 5.0 (naming the field); zarr-python 3.1 and
    # tensorstore both accept it as 5. Neither peer writes such a document itself.
    a = zf.create_array(str(tmp_path), X.ARRAY, shape=(3,), dtype="int16", chunks=(2,), fill_value=5)
    a[:2] = [1, 2]
    X.edit_document(X.array_dir(tmp_path), fill_value=5.0)
    with pytest.raises(zf.errors.MetadataError, match="fill_value.*5.0.*int16"):
        zf.open_array(str(tmp_path), X.ARRAY)
    assert zarr.open_array(str(tmp_path), path=X.ARRAY, mode="r")[...].tolist() == [1, 2, 5]
    assert X.open_tensorstore(tmp_path).read().result().tolist() == [1, 2, 5]
