"""Wire bytes: JSON exactly as the anthropic SDK puts it in a request body (the plugin's own copy).

The SDK encodes request bodies with ``ensure_ascii=False``, compact separators and
``allow_nan=False``, keeping dict insertion order. Anything the harness serializes for the wire or
for a snapshot goes through :func:`wire_json`, so the bytes are the ones the API receives and never
depend on hash order (SNAP-2): sets are refused instead of being listed in arbitrary order.

The plugin never imports the reference harness, so it keeps this encoder of its own;
``tests/test_layering.py`` holds it to ``reference_impl.wire_json`` byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["wire_bytes", "wire_json"]


class _WireEncoder(json.JSONEncoder):
    def default(self, o: Any) -> Any:
        if isinstance(o, set | frozenset):
            raise TypeError("a set has no stable order and can't be sent on the wire; use a list")
        if isinstance(o, Mapping):
            return dict(o)
        if isinstance(o, Sequence) and not isinstance(o, str | bytes | bytearray):
            return list(o)
        return super().default(o)


_ENCODER = _WireEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def wire_json(value: Any) -> str:
    """``value`` as the SDK would serialize it in a request body (a str)."""
    return _ENCODER.encode(value)


def wire_bytes(value: Any) -> bytes:
    """``value`` as the UTF-8 bytes the SDK would send."""
    return wire_json(value).encode("utf-8")
