"""The resolved model -> the 2022 draft's node documents, in either dialect.

:class:`DocumentWriter` is a mixin of :class:`~.format.Draft2022Format`; it refuses,
naming the field, what the draft cannot state. :func:`dump` writes JSON as each
dialect's writer does.
"""

from __future__ import annotations

import json
from typing import Any

from zarrforge.errors import MetadataError
from zarrforge.plugin_api import ChunkGrid, Codec, CodecKind, dump_document
from zarrforge.plugin_api import (ArrayMetadata, ExtensionEntry, GroupMetadata, NodeMetadata,
                                  UnknownExtension)

from . import codecs as codec_map
from . import data_types as dts
from . import fill_values as fills
from . import transformers as st
from .dialects import ZARR_PYTHON
from .entry_point import GlobalStorageTransformer
from .keys import DraftChunkKeyEncoding


def dump(document: dict[str, Any], dialect: str) -> bytes:
    """JSON as the dialect's writer produces it (zarr-python: sorted keys, 4-space indent, ASCII)."""
    if dialect == ZARR_PYTHON:
        try:
            return json.dumps(document, indent=4, sort_keys=True, ensure_ascii=True,
                              separators=(",", ": "), allow_nan=False).encode("ascii")
        except (TypeError, ValueError) as exc:
            raise MetadataError(f"cannot be written as JSON: {exc}") from exc
    return dump_document(document)



class DocumentWriter:
    """Rendering node documents (mixed into :class:`~.format.Draft2022Format`)."""

    # --- writing ----------------------------------------------------------------------

    def _encoding(self, metadata: ArrayMetadata, dialect: str | None = None) -> DraftChunkKeyEncoding:
        encoding = metadata.chunk_key_encoding
        if isinstance(encoding, DraftChunkKeyEncoding) and (dialect is None
                                                            or encoding.dialect == dialect):
            return encoding
        separator = getattr(encoding, "separator", "/")
        return DraftChunkKeyEncoding(separator, dialect or self.dialect)

    def document(self, metadata: NodeMetadata) -> dict[str, Any]:
        if isinstance(metadata, GroupMetadata):
            return self._group_document(metadata)
        return self._array_document(metadata, self._encoding(metadata).dialect)

    @staticmethod
    def _group_document(metadata: GroupMetadata) -> dict[str, Any]:
        if metadata.consolidated is not None:
            raise MetadataError("the 2022 draft has no consolidated metadata; a hierarchy is "
                                "listed with list_prefix('meta/root/') instead",
                                field="consolidated_metadata")
        if metadata.extensions:
            raise MetadataError("the 2022 draft has no group extensions", field="extensions")
        doc: dict[str, Any] = {"attributes": metadata.attributes}
        doc.update(metadata.extra_fields)
        return doc

    def _array_document(self, metadata: ArrayMetadata, dialect: str) -> dict[str, Any]:
        ndim = len(metadata.shape)
        codecs = [k for k in metadata.codecs]
        layout = "C"
        first = codecs[0] if codecs else None
        if first is not None and first.kind is CodecKind.ARRAY_ARRAY and \
                first.to_json().get("name") == "transpose":
            order = list(first.to_json()["configuration"]["order"])
            if order == list(range(ndim))[::-1]:
                layout, codecs = "F", codecs[1:]
            elif order == list(range(ndim)):
                codecs = codecs[1:]
        ab = [j for j, k in enumerate(codecs) if k.kind is CodecKind.ARRAY_BYTES]
        if len(ab) != 1:
            raise MetadataError(f"the codec list must contain exactly one array -> bytes codec, "
                                f"found {len(ab)}", field="codecs")
        array_codecs, serializer, bytes_codecs = codecs[:ab[0]], codecs[ab[0]], codecs[ab[0] + 1:]
        serializer_json = serializer.to_json()
        endian = (serializer_json.get("configuration") or {}).get("endian") \
            if serializer_json.get("name") == "bytes" else None
        grid = metadata.chunk_grid
        encoding = self._encoding(metadata, dialect)
        chunk_grid = self._grid_document(grid, encoding.separator)
        doc: dict[str, Any] = {"shape": list(metadata.shape)}
        attributes = dict(metadata.attributes)
        position = {id(k): i for i, k in enumerate(metadata.codecs)}

        def where(codec: Codec) -> str:
            return f"codecs[{position.get(id(codec), '?')}]"

        if dialect == ZARR_PYTHON:
            filters: list[dict[str, Any]] = []
            for codec in array_codecs:
                filters.append(self._numcodecs_filter(codec, field=where(codec)))
            if serializer_json.get("name") != "bytes":
                raise MetadataError(f"zarr-python 2 serialises chunks with numpy only, not with "
                                    f"{serializer_json.get('name')!r}; write this hierarchy in the "
                                    "'editor' dialect", field="codecs", value=serializer_json)
            spelled_endian = endian
            if filters:
                spelled_endian = "little"  # the array zarr-python filters is in memory order
            data_type, _ = dts.spell(metadata.data_type, spelled_endian, dialect)
            compressor = None
            if bytes_codecs:
                *byte_filters, last = bytes_codecs
                for codec in byte_filters:
                    filters.append(self._numcodecs_filter(codec, field=where(codec), before=True))
                uri, config = codec_map.draft_reference(last, field=where(last),
                                                        registry_names=False)
                compressor = {"codec": uri, "configuration": config}
            if filters:
                attributes["filters"] = filters
            doc.update(chunk_grid=chunk_grid, data_type=data_type,
                       chunk_memory_layout=layout)
            if compressor is not None:
                doc["compressor"] = compressor
            if encoding.separator != "/":
                doc["dimension_separator"] = encoding.separator
        else:
            data_type, spelled = dts.spell(metadata.data_type, endian, dialect)
            listed: list[dict[str, Any]] = []
            for codec in array_codecs:
                uri, config = codec_map.draft_reference(codec, field=where(codec),
                                                        registry_names=True)
                listed.append({"type": uri, "configuration": config} if config else {"type": uri})
            if serializer_json.get("name") == "bytes":
                explicit = getattr(serializer, codec_map.URI_ATTR, None) is not None
                stated = {"<": "little", ">": "big"}.get(spelled or "")
                if endian is not None and (explicit or (endian != (stated or "little"))):
                    uri, config = codec_map.draft_reference(serializer, field=where(serializer),
                                                            registry_names=True)
                    listed.append({"type": uri, "configuration": config})
            else:
                uri, config = codec_map.draft_reference(serializer, field=where(serializer),
                                                        registry_names=True)
                listed.append({"type": uri, "configuration": config} if config else {"type": uri})
            for codec in bytes_codecs:
                uri, config = codec_map.draft_reference(codec, field=where(codec),
                                                        registry_names=True)
                listed.append({"type": uri, "configuration": config} if config else {"type": uri})
            doc.update(data_type=data_type, chunk_grid=chunk_grid, chunk_memory_layout=layout,
                       codecs=listed)
        doc["fill_value"] = fills.fill_value_to_json(metadata.data_type, metadata.fill_value,
                                                     dialect)
        doc["extensions"] = self._extensions_document(metadata.extensions)
        doc["attributes"] = attributes
        own = [t for t in metadata.storage_transformers
               if not isinstance(t, GlobalStorageTransformer)]
        if own:
            doc["storage_transformers"] = [st.to_draft(t, field=f"storage_transformers[{i}]")
                                           for i, t in enumerate(own)]
        if metadata.dimension_names is not None:
            doc["dimension_names"] = list(metadata.dimension_names)
        doc.update(metadata.extra_fields)
        return doc

    @staticmethod
    def _numcodecs_filter(codec: Codec, *, field: str, before: bool = False) -> dict[str, Any]:
        document = codec.to_json()
        name = document.get("name", "")
        if not isinstance(name, str) or not name.startswith("numcodecs."):
            where = ("before the compressor (zarr-python 2 stores a single compressor, and "
                     "numcodecs filters ahead of it)" if before else
                     "among the filters (zarr-python 2 applies numcodecs filters only)")
            raise MetadataError(f"codec {name!r} has no place {where}; write this hierarchy in "
                                "the 'editor' dialect", field=field, value=document)
        return {"id": name[len("numcodecs."):], **(document.get("configuration") or {})}

    @staticmethod
    def _grid_document(grid: ChunkGrid, separator: str) -> dict[str, Any]:
        document = grid.to_json()
        if document.get("name") == "regular":
            return {"type": "regular",
                    "chunk_shape": list(document["configuration"]["chunk_shape"]),
                    "separator": separator}
        name = document.get("name")
        if isinstance(name, str) and "://" in name:
            return {"extension": name, **(document.get("configuration") or {}),
                    "separator": separator}
        raise MetadataError(f"chunk grid {name!r} has no form in the 2022 draft (it defines the "
                            "regular grid; other grids are extensions named by URI)",
                            field="chunk_grid", value=document)

    @staticmethod
    def _extensions_document(entries: tuple[ExtensionEntry, ...]) -> list[Any]:
        result: list[Any] = []
        for entry in entries:
            if isinstance(entry, UnknownExtension):
                result.append(entry.document)
                continue
            document = entry.to_json()
            name = document if isinstance(document, str) else document.get("name")
            item: dict[str, Any] = {"extension": name, "must_understand": entry.must_understand}
            if isinstance(document, dict) and document.get("configuration") is not None:
                item["configuration"] = document["configuration"]
            result.append(item)
        return result
