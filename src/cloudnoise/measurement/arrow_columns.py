"""Integer columns between numpy and Arrow, without pulling in pandas.

``pa.array(ndarray)``, ``Array.to_numpy()`` and ``cast`` make pyarrow probe
for pandas, and importing pandas costs a long measurement about 50 MB of
memory for nothing. Integer and timestamp columns without nulls (all that the
sample files hold) are plain buffers, so they are shared both ways here.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_TO_NS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


def ints(values: np.ndarray, type_: pa.DataType | None = None) -> pa.Array:
    """A numpy integer array as an Arrow array (of ``type_``, e.g. a timestamp), sharing memory."""
    v = np.ascontiguousarray(values)
    return pa.Array.from_buffers(type_ or pa.from_numpy_dtype(v.dtype), len(v), [None, pa.py_buffer(v)])


def strings(items: list[str]) -> pa.Array:
    """A short list of strings as an Arrow string array."""
    encoded = [x.encode() for x in items]
    offsets = np.zeros(len(items) + 1, np.int32)
    offsets[1:] = np.cumsum([len(b) for b in encoded])
    return pa.Array.from_buffers(pa.string(), len(items), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def to_int64(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """An integer, timestamp (as ns since the epoch) or integer-dictionary (decoded) column
    without nulls as int64 numpy."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    parts = []
    for ch in chunks:
        if isinstance(ch, pa.DictionaryArray):
            parts.append(to_int64(ch.dictionary)[to_int64(ch.indices)])
            continue
        scale = _TO_NS[ch.type.unit] if pa.types.is_timestamp(ch.type) else 1
        if ch.null_count:
            raise ValueError("a column with missing values where integers were expected")
        width = ch.type.bit_width // 8
        signed = not pa.types.is_unsigned_integer(ch.type)
        arr = np.frombuffer(ch.buffers()[1], dtype=np.dtype(f"<{'i' if signed else 'u'}{width}"), count=len(ch),
                            offset=ch.offset * width)
        if scale != 1 or arr.dtype != np.int64:
            arr = arr.astype(np.int64)
            arr *= scale
        parts.append(arr)
    return np.concatenate(parts) if len(parts) != 1 else parts[0]
