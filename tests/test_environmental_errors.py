"""A store or URL adapter names the errors of its libraries that mean the environment
failed (``environmental_errors``: :mod:`zarrforge.abc.store`), and the engine takes those,
and only those (besides ``OSError``), as the environment's failure rather than the plugin's
bug (:mod:`zarrforge.registries.plugin_failures`): the core knows no library's class names.
"""

from __future__ import annotations

import sys

import pytest

import zarrforge as zf
from zarrforge.errors import PluginFailureError, StoreError
from zarrforge.registries import plugin_failures

ENV_STORE = '''
from zarrforge.abc.url_adapter import URLAdapter
from zarrforge_std.stores.memory import MemoryStore


class ServiceError(Exception):
    """The library's base class of the service's failures: declared below."""


class CredentialsMissing(ServiceError):
    pass


class NoCredentialsError(Exception):
    """botocore's name, but nobody declares this class: a bug like any other."""


ERRORS = {"declared": CredentialsMissing, "undeclared": NoCredentialsError}


class EnvStore(MemoryStore):
    environmental_errors = ("zfenv_store.ServiceError",)

    def __init__(self, *, read_only=False, fails_reading=None):
        super().__init__(read_only=read_only)
        self.fails_reading = fails_reading

    @classmethod
    def from_url(cls, url, *, read_only=False, fails_opening=None, fails_reading=None):
        if fails_opening:
            raise ERRORS[fails_opening]("no credentials found")
        return cls(read_only=read_only, fails_reading=fails_reading)

    def get(self, key, byte_range=None):
        if self.fails_reading and not key.endswith(".json"):  # chunks, and the adapter's read
            raise ERRORS[self.fails_reading]("no credentials found")
        return super().get(key, byte_range)


class ReadingAdapter(URLAdapter):
    """Declares nothing: what it meets reading the base store is the store's to declare."""

    name = "envread"

    @classmethod
    def resolve(cls, base, segment, *, read_only, storage_options):
        base.store.get("archive")
        return base
'''


@pytest.fixture
def env_store(fake_distribution, monkeypatch):
    monkeypatch.setattr(plugin_failures, "_warned", set())
    fake_distribution(
        "zf-env-store",
        {
            "zarrforge.stores": {"envstore": "zfenv_store:EnvStore"},
            "zarrforge.url_adapters": {"envread": "zfenv_store:ReadingAdapter"},
        },
        {"zfenv_store": ENV_STORE},
    )
    import zfenv_store

    return zfenv_store


def test_a_declared_error_opening_a_store_is_a_store_error_naming_the_url(env_store) -> None:
    url = "envstore://bucket/data"
    with pytest.raises(StoreError) as info:
        zf.open_group(url, mode="r", storage_options={"fails_opening": "declared"})
    assert not isinstance(info.value, PluginFailureError) and "bug" not in str(info.value)
    assert info.value.url == url and "CredentialsMissing" in str(info.value)
    assert isinstance(info.value.__cause__, env_store.CredentialsMissing)


def test_an_undeclared_error_opening_a_store_is_the_plugins_bug(env_store) -> None:
    with pytest.raises(
        PluginFailureError,
        match="store plugin 'envstore'.*zf-env-store.*NoCredentialsError.*bug in that plugin",
    ):
        zf.open_group("envstore://bucket/data", mode="r", storage_options={"fails_opening": "undeclared"})


def test_an_adapter_meeting_its_base_stores_declared_error_blames_the_environment(env_store) -> None:
    url = "envstore://bucket/data|envread:"
    with pytest.raises(StoreError) as info:
        zf.open_group(url, mode="r", storage_options={"fails_reading": "declared"})
    assert not isinstance(info.value, PluginFailureError) and info.value.url == url
    with pytest.raises(PluginFailureError, match="URL adapter plugin 'envread'"):
        zf.open_group(url, mode="r", storage_options={"fails_reading": "undeclared"})


def test_chunk_io_passes_a_declared_error_on_and_names_an_undeclared_one(env_store) -> None:
    declared = env_store.EnvStore(fails_reading="declared")
    zf.create_array(declared, shape=(2,), chunks=(1,), dtype="int8")
    with pytest.raises(env_store.CredentialsMissing):
        zf.open_array(declared)[...]
    undeclared = env_store.EnvStore(fails_reading="undeclared")
    zf.create_array(undeclared, shape=(2,), chunks=(1,), dtype="int8")
    with pytest.raises(PluginFailureError, match="EnvStore.*reading or writing chunks"):
        zf.open_array(undeclared)[...]


def test_a_declaration_by_name_imports_nothing() -> None:
    assert "zf_never_imported_library" not in sys.modules
    declared = ("zf_never_imported_library.Error", "zarrforge.errors.NoSuchClass")
    assert not plugin_failures.environmental(ValueError("x"), declared)
    assert "zf_never_imported_library" not in sys.modules
    assert plugin_failures.environmental(ConnectionRefusedError(), ())  # OSError, always
    assert plugin_failures.environmental(KeyError("x"), (LookupError,))  # a class, and its subclasses
    assert not plugin_failures.environmental(KeyError("x"), ())
