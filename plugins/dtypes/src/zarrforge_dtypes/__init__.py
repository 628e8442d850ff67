"""zarrforge-dtypes: extension data types and the variable-length codecs for zarrforge.

Data types (``zarrforge.data_types`` entry points), one module each:

* ``string`` (:mod:`.string_type`): variable-length UTF-8, numpy ``StringDType``;
* ``bytes`` (:mod:`.bytes_type`): variable-length bytes, numpy object arrays of
  ``bytes``; zarr-python 3.1's name ``variable_length_bytes`` is read too;
* ``numpy.datetime64`` / ``numpy.timedelta64`` (:mod:`.time_types`);
* ``fixed_length_utf32`` (:mod:`.utf32_type`): numpy ``<U{n}``;
* ``bfloat16``, ``float8_*``, ``float6_*``, ``float4_e2m1fn``
  (:mod:`.ml_floats`): the registered small float formats, held as ml_dtypes types;
* ``optional`` (:mod:`.optional_type`, zarrs): an inner type's values or ``None``.

Codecs (``zarrforge.codecs`` entry points): ``vlen-utf8`` and ``vlen-bytes``
(:mod:`.vlen_codecs`, wire format in :mod:`.vlen_format`); ``optional``
(:mod:`.optional_codec`).

This module stays import-free: zarrforge imports a submodule only when a
document or a call names one of its types or codecs.
"""

from zarrforge import __version__ as __version__  # released together, one version
