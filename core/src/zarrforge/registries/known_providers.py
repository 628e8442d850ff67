"""Which zarrforge distribution provides each name the built-in plugins register.

Only the "unknown name" errors read it, to say what to install
(``Registry.provider_hint``); resolution never consults it: metadata names resolve
through installed entry points and in-process registrations alone.
"""

from __future__ import annotations

# Every name the built-in plugins register, and the zarrforge distribution that
# provides it. Used only to make the "unknown name" error say what to install;
# resolution never consults it. tests/test_install_hints.py checks it against the
# entry points of every plugins/*/pyproject.toml, both ways.
KNOWN_PROVIDERS: dict[str, dict[str, str]] = {
    "data type": {
        **dict.fromkeys(
            (
                "bool",
                "int8",
                "int16",
                "int32",
                "int64",
                "uint8",
                "uint16",
                "uint32",
                "uint64",
                "float16",
                "float32",
                "float64",
                "complex64",
                "complex128",
            ),
            "zarrforge-std",
        ),
        **dict.fromkeys(
            (
                "string",
                "bytes",
                "variable_length_bytes",
                "numpy.datetime64",
                "numpy.timedelta64",
                "fixed_length_utf32",
                "bfloat16",
                "float8_e3m4",
                "float8_e4m3",
                "float8_e4m3b11fnuz",
                "float8_e4m3fnuz",
                "float8_e5m2",
                "float8_e5m2fnuz",
                "float8_e8m0fnu",
                "float6_e2m3fn",
                "float6_e3m2fn",
                "float4_e2m1fn",
                "int2",
                "int4",
                "uint2",
                "uint4",
                "struct",
                "structured",
                "null_terminated_bytes",
                "complex_float16",
                "complex_float32",
                "complex_float64",
                "complex_bfloat16",
                "complex_float8_e3m4",
                "complex_float8_e4m3",
                "complex_float8_e4m3b11fnuz",
                "complex_float8_e4m3fnuz",
                "complex_float8_e5m2",
                "complex_float8_e5m2fnuz",
                "complex_float8_e8m0fnu",
                "complex_float6_e2m3fn",
                "complex_float6_e3m2fn",
                "complex_float4_e2m1fn",
                "optional",
                "raw_bytes",
            ),
            "zarrforge-dtypes",
        ),
        "r*": "zarrforge-std",
        "zarrforge_v2.json_object": "zarrforge-v2",
    },
    "chunk grid": {"regular": "zarrforge-std", "rectilinear": "zarrforge-rectilinear"},
    "chunk key encoding": {"default": "zarrforge-std", "v2": "zarrforge-std"},
    "memory layout": {"C": "zarrforge-std", "F": "zarrforge-std"},
    "codec": {
        "bytes": "zarrforge-std",
        "transpose": "zarrforge-std",
        "reshape": "zarrforge-std",
        "scale_offset": "zarrforge-std",
        "cast_value": "zarrforge-std",
        "gzip": "zarrforge-numcodecs",
        "zstd": "zarrforge-numcodecs",
        "blosc": "zarrforge-numcodecs",
        "crc32c": "zarrforge-numcodecs",
        "numcodecs.*": "zarrforge-numcodecs",
        "packbits": "zarrforge-numcodecs",
        "bitround": "zarrforge-numcodecs",
        "conditional": "zarrforge-numcodecs",
        "n5_default": "zarrforge-numcodecs",
        "zfp": "zarrforge-numcodecs",
        "sharding_indexed": "zarrforge-sharding",
        "vlen-utf8": "zarrforge-dtypes",
        "vlen-bytes": "zarrforge-dtypes",
        "optional": "zarrforge-dtypes",
        "*": "zarrforge-zarr-python",
    },
    "extension": {
        "zarrforge.offset": "zarrforge-extensions",
        "zarrforge.array-statistics": "zarrforge-extensions",
    },
    "storage transformer": {
        "https://purl.org/zarr/spec/storage_transformers/sharding/1.0": "zarrforge-sharding",
    },
    "store": {
        "memory": "zarrforge-std",
        "file": "zarrforge-std",
        **dict.fromkeys(
            ("s3", "gs", "gcs", "http", "https", "zip", "abfs", "az", "hf", "sftp", "reference"),
            "zarrforge-fsspec",
        ),
        **{
            f"obstore+{s}": "zarrforge-obstore"
            for s in ("s3", "gs", "az", "abfs", "http", "https", "file", "memory")
        },
    },
    "format": {"3": "zarrforge-std", "2": "zarrforge-v2", "draft-2022": "zarrforge-draft2022"},
    "URL adapter": {
        **dict.fromkeys(("file", "memory", "zarr", "zarr3"), "zarrforge-std"),
        "zarr2": "zarrforge-v2",
        "zarr-draft-2022": "zarrforge-draft2022",
        "zip": "zarrforge-fsspec",
        "icechunk": "zarrforge-zarr-python",
    },
}
