"""Storage transformers as the 2022 draft writes them.

A draft entry ``{"extension": URI, "type": T, "configuration": {...}}`` is the
storage transformer registered under ``URI`` with the configuration
``{"type": T, ...}`` (the form the draft sharding transformer of
zarrforge-sharding takes); writing inverts it. Storage transformers are
always required: an unknown one is an error naming
``storage_transformers[i].extension``.
"""

from __future__ import annotations

from typing import Any

from zarrforge.errors import MetadataError, UnknownExtensionError
from zarrforge.plugin_api.storage_transformers import ExtensionRef, StorageTransformer, registry, resolve


def parse(value: Any, *, field: str) -> StorageTransformer:
    if isinstance(value, StorageTransformer):
        return value
    if not isinstance(value, dict):
        raise MetadataError(
            f"a storage transformer must be an object with 'extension' and 'type', got {value!r}",
            field=field,
            value=value,
        )
    if "extension" not in value and "name" in value:  # the model's own form (API arguments)
        uri, config = value["name"], dict(value.get("configuration") or {})
    else:
        uri = value.get("extension")
        config = value.get("configuration") or {}
        if not isinstance(config, dict):
            raise MetadataError(
                f"must be an object, got {config!r}", field=f"{field}.configuration", value=config
            )
        if "type" not in value:
            raise MetadataError("a storage transformer needs 'type'", field=f"{field}.type")
        unexpected = set(value) - {"extension", "type", "configuration"}
        if unexpected:
            raise MetadataError(
                f"unexpected member(s) {sorted(unexpected)}; a storage transformer "
                "has 'extension', 'type' and 'configuration'",
                field=field,
                value=value,
            )
        config = {"type": value["type"], **config}
    if not isinstance(uri, str) or not uri:
        raise MetadataError(f"'extension' must be a URI, got {uri!r}", field=f"{field}.extension", value=uri)
    if uri not in registry.storage_transformers:
        hint = registry.storage_transformers.provider_hint(uri)
        raise UnknownExtensionError(
            "storage transformer",
            uri,
            registry.storage_transformers.names(),
            hint,
            field=f"{field}.extension",
        )
    try:
        transformer: StorageTransformer = resolve(
            registry.storage_transformers, ExtensionRef(uri, config, True, value), field=field
        )
        return transformer
    except UnknownExtensionError:
        raise
    except MetadataError as exc:
        # configuration.type is the entry's own "type" in the draft's form
        inner = exc.field or field
        inner = inner.replace(f"{field}.configuration.type", f"{field}.type")
        raise MetadataError(exc.message, field=inner, value=exc.value) from exc


def parse_list(value: Any, *, field: str) -> tuple[StorageTransformer, ...]:
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)):
        raise MetadataError(f"must be a list, got {value!r}", field=field, value=value)
    return tuple(parse(v, field=f"{field}[{i}]") for i, v in enumerate(value))


def to_draft(transformer: StorageTransformer, *, field: str) -> dict[str, Any]:
    document = transformer.to_json()
    config = dict(document.get("configuration") or {})
    entry: dict[str, Any] = {"extension": document["name"]}
    if "type" in config:
        entry["type"] = config.pop("type")
    else:
        raise MetadataError(
            f"storage transformer {document['name']!r} records no 'type', which the 2022 draft requires",
            field=field,
            value=document,
        )
    entry["configuration"] = config
    return entry
