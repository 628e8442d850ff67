"""Registry discovery, precedence, clashes and error texts."""

from __future__ import annotations

import numpy as np
import pytest

import zarrforge as zf
from zarrforge import registry
from zarrforge.abc.codec import BytesBytesCodec
from zarrforge.errors import PluginConflictError, PluginLoadError, UnknownExtensionError
from zarrforge_std.format_v3 import V3Format

XOR_CODEC = """
from zarrforge.abc.codec import BytesBytesCodec

class XorCodec(BytesBytesCodec):
    name = "test.xor"
    def __init__(self, key=0x5A):
        self.key = key
    @classmethod
    def from_json(cls, name, configuration):
        return cls((configuration or {}).get("key", 0x5A))
    def to_json(self):
        return {"name": "test.xor", "configuration": {"key": self.key}}
    def encode(self, data):
        return bytes(b ^ self.key for b in bytes(data))
    decode = encode
"""


def test_codec_from_fake_installed_distribution_is_discovered_and_used(fake_distribution):
    fake_distribution(
        "zf-test-xor", {"zarrforge.codecs": {"test.xor": "xor_mod:XorCodec"}}, {"xor_mod": XOR_CODEC}
    )
    assert "test.xor" in registry.codecs.names()
    a = zf.create_array(
        None,
        shape=(4,),
        dtype="uint8",
        chunks=(4,),
        compressors=[{"name": "test.xor", "configuration": {"key": 1}}],
    )
    a[:] = [0, 1, 2, 3]
    assert a.store.get("c/0") == bytes([1, 0, 3, 2])
    assert zf.open_array(a.store)[:].tolist() == [0, 1, 2, 3]
    rows = [r for r in zf.registered()["codecs"] if r.name == "test.xor"]
    assert [(r.distribution, r.version, r.value) for r in rows] == [
        ("zf-test-xor", "1.0", "xor_mod:XorCodec")
    ]


def test_discovery_imports_only_the_named_entry_point(fake_distribution):
    import sys

    fake_distribution(
        "zf-test-lazy",
        {"zarrforge.codecs": {"test.lazy-a": "lazy_a:XorCodec", "test.lazy-b": "lazy_b:XorCodec"}},
        {
            "lazy_a": XOR_CODEC.replace("test.xor", "test.lazy-a"),
            "lazy_b": XOR_CODEC.replace("test.xor", "test.lazy-b"),
        },
    )
    registry.codecs.get("test.lazy-a")
    assert "lazy_a" in sys.modules
    assert "lazy_b" not in sys.modules


def test_in_process_registration_takes_precedence_over_installed(fake_distribution):
    fake_distribution(
        "zf-test-xor2", {"zarrforge.codecs": {"test.xor": "xor_mod2:XorCodec"}}, {"xor_mod2": XOR_CODEC}
    )
    assert registry.codecs.get("test.xor").__module__ == "xor_mod2"  # answered before...

    class Local(BytesBytesCodec):
        name = "test.xor"

        @classmethod
        def from_json(cls, name, configuration):
            return cls()

        def to_json(self):
            return {"name": "test.xor"}

        def encode(self, data):
            return bytes(data)

        decode = encode

    zf.register("codecs", "test.xor", Local)
    try:
        assert registry.codecs.get("test.xor") is Local  # ...and changed by the registration
        sources = {r.source for r in zf.registered()["codecs"] if r.name == "test.xor"}
        assert sources == {"in-process", "entry point"}
    finally:
        registry.codecs.unregister("test.xor")
    assert registry.codecs.get("test.xor").__module__ == "xor_mod2"


def test_two_distributions_claiming_one_name_is_an_error_naming_both(fake_distribution):
    fake_distribution(
        "zf-clash-one",
        {"zarrforge.codecs": {"test.clash": "clash_one:XorCodec"}},
        {"clash_one": XOR_CODEC.replace("test.xor", "test.clash")},
    )
    fake_distribution(
        "zf-clash-two",
        {"zarrforge.codecs": {"test.clash": "clash_two:XorCodec"}},
        {"clash_two": XOR_CODEC.replace("test.xor", "test.clash")},
    )
    with pytest.raises(PluginConflictError) as info:
        registry.codecs.get("test.clash")
    assert "zf-clash-one" in str(info.value) and "zf-clash-two" in str(info.value)
    with pytest.raises(ValueError, match="installed by: zf-clash-one, zf-clash-two"):
        registry.codecs.prefer("test.clash", "zf-clash-tow")  # a typo is not a silent no-op
    registry.codecs.prefer("test.clash", "zf-clash-two")
    try:
        assert registry.codecs.get("test.clash").__module__ == "clash_two"
    finally:
        registry.codecs._preferred.pop("test.clash", None)


def test_unknown_name_lists_installed_and_names_the_provider(monkeypatch):
    monkeypatch.setitem(registry.KNOWN_PROVIDERS["chunk grid"], "test.hexagonal", "zarrforge-hex")
    with pytest.raises(UnknownExtensionError) as info:
        registry.chunk_grids.get("test.hexagonal")
    message = str(info.value)
    assert "unknown chunk grid 'test.hexagonal'" in message
    assert "installed: " in message and "regular" in message
    assert "is provided by the package 'zarrforge-hex'" in message


def test_unknown_name_without_known_provider_has_no_hint():
    with pytest.raises(UnknownExtensionError) as info:
        registry.data_types.get("no.such.type")
    assert "provided by" not in str(info.value)
    assert "float32" in info.value.installed and "installed: " in str(info.value)


def test_entry_point_that_fails_to_import_names_the_distribution(fake_distribution):
    fake_distribution(
        "zf-broken",
        {"zarrforge.codecs": {"test.broken": "broken_mod:Nope"}},
        {"broken_mod": "raise RuntimeError('boom at import')\n"},
    )
    with pytest.raises(PluginLoadError) as info:
        registry.codecs.get("test.broken")
    message = str(info.value)
    assert "zf-broken" in message and "1.0" in message and "broken_mod:Nope" in message
    assert isinstance(info.value.__cause__, RuntimeError)


def test_entry_point_of_the_wrong_type_is_refused(fake_distribution):
    fake_distribution(
        "zf-wrongtype",
        {"zarrforge.codecs": {"test.wrong": "wrong_mod:NotACodec"}},
        {"wrong_mod": "class NotACodec:\n    pass\n"},
    )
    with pytest.raises(PluginLoadError, match="not a subclass of zarrforge.abc.codec.Codec"):
        registry.codecs.get("test.wrong")


def test_a_class_declaring_another_name_than_its_entry_point_is_refused(fake_distribution):
    fake_distribution(
        "zf-misnamed", {"zarrforge.codecs": {"test.xor-typo": "xor_mod:XorCodec"}}, {"xor_mod": XOR_CODEC}
    )
    with pytest.raises(PluginLoadError) as info:
        registry.codecs.get("test.xor-typo")
    message = str(info.value)
    assert "'test.xor-typo'" in message and "'test.xor'" in message
    assert "zf-misnamed" in message and "xor_mod:XorCodec" in message


def test_every_shipped_class_declares_its_entry_point_name():
    for _point, table in registry.REGISTRIES.items():
        for name in table.names():
            if not name.endswith(registry.FAMILY_SUFFIX):
                table.get(name)  # loads, and so checks, every installed entry point


def test_family_names_match_with_the_full_name():
    dt = registry.data_types.get("r24").from_json("r24", None)
    assert dt.numpy_dtype == np.dtype("V3")
    with pytest.raises(zf.errors.MetadataError, match="multiple of 8"):
        registry.data_types.get("r12").from_json("r12", None)


def test_registered_lists_every_extension_point_with_std_names():
    listing = zf.registered()
    assert set(listing) == {
        "data_types",
        "chunk_grids",
        "chunk_key_encodings",
        "memory_layouts",
        "codecs",
        "storage_transformers",
        "extensions",
        "stores",
        "formats",
        "url_adapters",
    }
    std = {
        (point, r.name) for point, rows in listing.items() for r in rows if r.distribution == "zarrforge-std"
    }
    assert {
        ("data_types", "float64"),
        ("chunk_grids", "regular"),
        ("codecs", "bytes"),
        ("stores", "memory"),
        ("formats", "3"),
        ("memory_layouts", "F"),
        ("url_adapters", "zarr3"),
    } <= std


def test_register_rejects_unknown_extension_point():
    with pytest.raises(KeyError, match="valid: "):
        zf.register("widgets", "x", object)


@pytest.mark.parametrize(
    "point, typo, meant",
    [
        ("codecs", "zstdd", "zstd"),
        ("data_types", "flaot32", "float32"),
        ("codecs", "sharding-indexed", "sharding_indexed"),
    ],
)
def test_an_unknown_name_suggests_the_close_one(point, typo, meant):
    with pytest.raises(UnknownExtensionError, match=f"did you mean '{meant}'") as info:
        registry.REGISTRIES[point].get(typo)
    assert meant in info.value.suggestions


def test_no_suggestion_for_a_name_close_to_nothing():
    with pytest.raises(UnknownExtensionError) as info:
        registry.codecs.get("acme.teleport")
    assert info.value.suggestions == [] and "did you mean" not in str(info.value)


def _two_providers(fake_distribution, name: str) -> None:
    for dist, module in (("zf-pick-one", "pick_one"), ("zf-pick-two", "pick_two")):
        fake_distribution(
            dist,
            {"zarrforge.codecs": {name: f"{module}:XorCodec"}},
            {module: XOR_CODEC.replace("test.xor", name)},
        )


def test_a_conflict_is_settled_in_config(fake_distribution):
    _two_providers(fake_distribution, "test.pick")
    with pytest.raises(PluginConflictError, match=r"prefer=\{'codecs:test.pick'.*ZARRFORGE_PREFER"):
        registry.codecs.get("test.pick")
    with zf.config.set(prefer={"codecs:test.pick": "zf-pick-two"}):
        assert registry.codecs.get("test.pick").__module__ == "pick_two"


def test_a_conflict_is_settled_by_the_environment(fake_distribution, monkeypatch):
    _two_providers(fake_distribution, "test.pick-env")
    monkeypatch.setenv("ZARRFORGE_PREFER", "data_types:x=y, codecs:test.pick-env=zf-pick-one")
    assert registry.codecs.get("test.pick-env").__module__ == "pick_one"


def test_a_configured_choice_that_does_not_provide_the_name_is_named(fake_distribution):
    _two_providers(fake_distribution, "test.pick-bad")
    with zf.config.set(prefer={"codecs:test.pick-bad": "zf-pick-tree"}):
        with pytest.raises(
            PluginConflictError,
            match=r"zarrforge.config prefer\['codecs:test.pick-bad'\] chooses "
            r"'zf-pick-tree', which does not provide it",
        ):
            registry.codecs.get("test.pick-bad")
    with pytest.raises(ValueError, match="'<point>:<name>'"):
        with zf.config.set(prefer={"zstd": "zarrforge-numcodecs"}):
            pass


def test_registering_a_name_twice_in_process_is_refused_unless_replacing():
    """Before: the second registration silently replaced the first."""
    from zarrforge_std.codecs import BytesCodec

    class Other(BytesCodec):
        pass

    registry.codecs.register("test.twice", BytesCodec)
    try:
        registry.codecs.register("test.twice", BytesCodec)  # the same again: no change
        with pytest.raises(
            ValueError,
            match="'test.twice' is already registered in this "
            "process as zarrforge_std.codecs:BytesCodec.*"
            "replace=True",
        ):
            zf.register("codecs", "test.twice", Other)
        assert registry.codecs.get("test.twice") is BytesCodec
        zf.register("codecs", "test.twice", Other, replace=True)
        assert registry.codecs.get("test.twice") is Other
    finally:
        registry.codecs.unregister("test.twice")


def test_plugins_reports_an_exact_name_taking_over_from_another_distributions_family(fake_distribution):
    """Before: numcodecs.zlib from another distribution silently overrode zarrforge-numcodecs'
    numcodecs.* family, and plugins() showed both as plain ok."""
    fake_distribution(
        "zf-own-zlib",
        {"zarrforge.codecs": {"numcodecs.zlib": "own_zlib:XorCodec"}},
        {"own_zlib": XOR_CODEC.replace("test.xor", "numcodecs.zlib")},
    )
    rows = [r for r in zf.plugins() if r.point == "codecs" and r.name == "numcodecs.zlib"]
    assert [r.status for r in rows] == ["ok (overrides 'numcodecs.*' of zarrforge-numcodecs)"]
    family = [r for r in zf.plugins() if r.point == "codecs" and r.name == "numcodecs.*"]
    assert family[0].status == "ok"


def test_plugins_reports_an_in_process_registration_hiding_an_installed_name():
    from zarrforge_std.codecs import BytesCodec

    class MyZstd(BytesCodec):
        name = "zstd"

    registry.codecs.register("zstd", MyZstd)
    try:
        (row,) = [
            r for r in zf.plugins() if r.point == "codecs" and r.name == "zstd" and r.distribution is None
        ]
        assert row.status == "ok (in-process, overrides 'zstd' of zarrforge-numcodecs)"
    finally:
        registry.codecs.unregister("zstd")


def test_a_long_installed_list_shows_the_closest_names_and_a_count():
    """A data type typo listed all 47 installed types (891 characters)."""
    with pytest.raises(zf.errors.UnknownExtensionError) as info:
        zf.create_array(None, shape=(2,), dtype="flaot32")
    message = str(info.value)
    assert "did you mean 'float32'?" in message
    count = len(info.value.installed)
    assert count > zf.errors.LISTED_NAMES
    assert f"installed: {count} names, the closest " in message and "float64" in message
    assert "zarrforge.plugins() lists them all" in message and len(message) < 400
    assert "int8" not in message.split("the closest ")[1]  # far names are left out


PICKY_FAMILY = XOR_CODEC.replace('name = "test.xor"', 'name = "test.picky.*"').replace(
    "    def __init__(self, key=0x5A):",
    """    @classmethod
    def claims(cls, name):
        return name.endswith("-yes")
    def __init__(self, key=0x5A):""",
)


def test_a_family_that_declines_a_name_leaves_it_unknown(fake_distribution):
    fake_distribution(
        "zf-test-picky",
        {"zarrforge.codecs": {"test.picky.*": "picky_mod:XorCodec"}},
        {"picky_mod": PICKY_FAMILY},
    )
    assert "test.picky.a-yes" in registry.codecs
    assert registry.codecs.get("test.picky.a-yes").__module__ == "picky_mod"
    assert "test.picky.a-no" not in registry.codecs
    with pytest.raises(UnknownExtensionError, match="unknown codec 'test.picky.a-no'"):
        registry.codecs.get("test.picky.a-no")
    # the spec's must_understand: false still lets a reader skip a declined name
    with pytest.warns(zf.errors.SkippedExtensionWarning):
        skipped = zf.plugin_api.codec_from_json(
            {"name": "test.picky.a-no", "must_understand": False}, field="codecs[1]"
        )
    assert isinstance(skipped, zf.plugin_api.SkippedCodec)


def test_a_declined_name_goes_to_the_next_shorter_family(fake_distribution):
    fake_distribution(
        "zf-test-picky2",
        {"zarrforge.codecs": {"test.picky.*": "picky_mod2:XorCodec"}},
        {"picky_mod2": PICKY_FAMILY},
    )
    fake_distribution(
        "zf-test-wide",
        {"zarrforge.codecs": {"test.*": "wide_mod:XorCodec"}},
        {"wide_mod": XOR_CODEC.replace('name = "test.xor"', 'name = "test.*"')},
    )
    assert registry.codecs.get("test.picky.b-yes").__module__ == "picky_mod2"
    assert registry.codecs.get("test.picky.b-no").__module__ == "wide_mod"
    # zarrforge.plugins() says what an exact name overrides: not a family declining it
    assert registry.codecs.shadowed_by("test.picky.b-no", "entry point") == ["'test.*' of zf-test-wide"]
    assert registry.codecs.shadowed_by("test.picky.b-yes", "entry point") == [
        "'test.picky.*' of zf-test-picky2",
        "'test.*' of zf-test-wide",
    ]


def test_hidden_names_answer_as_if_not_installed_and_come_back_after():
    """``Registry.hidden``: how the kits see an environment without a plugin (issue #41)."""

    class Local(V3Format):
        name = "test.hidden-local"

    registry.formats.register(Local.name, Local)
    try:
        with registry.formats.hidden("2", Local.name):
            assert "2" not in registry.formats.names() and Local.name not in registry.formats.names()
            for name in ("2", Local.name):
                with pytest.raises(UnknownExtensionError):
                    registry.formats.get(name)
            assert registry.formats.get("3") is not None
        assert registry.formats.get(Local.name) is Local
        assert registry.formats.get("2").name == "2"
    finally:
        registry.formats.unregister(Local.name)


SCAN_COUNTER = """
import importlib_metadata, json, sys
scans = []
original = importlib_metadata.entry_points
def counted(**selection):
    scans.append(selection.get("group"))
    return original(**selection)
importlib_metadata.entry_points = counted
import zarrforge as zf
from zarrforge_cli.registration import entry_point_commands
a = zf.create_array(sys.argv[1], shape=(4,), dtype="int16", compressors=[{"name": "zstd"}])
a[:] = [1, 2, 3, 4]
zf.open_group(sys.argv[1] + "_g", mode="a").attrs["k"] = 1
entry_point_commands()  # the command line's group too
print(json.dumps(scans))
"""


def test_one_scan_of_the_installed_distributions_serves_every_group(tmp_path):
    """Each scan reads every installed distribution's metadata (tens of milliseconds in an
    environment of a few hundred packages): the registries, the hook manager and the
    command line share one per process; refresh() makes the next lookup scan again."""
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", SCAN_COUNTER, str(tmp_path / "a.zarr")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [None]  # one scan, of every group

    from zarrforge.registries import entry_points

    scans = []
    original = entry_points.importlib_metadata.entry_points
    try:
        entry_points.importlib_metadata.entry_points = lambda **s: scans.append(s) or original(**s)
        registry.refresh()
        assert "bytes" in registry.codecs and "zstd" in registry.codecs and "3" in registry.formats
        assert len(scans) == 1
    finally:
        entry_points.importlib_metadata.entry_points = original
        registry.refresh()
