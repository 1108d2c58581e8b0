"""SNAP-2 mutant: a schema's ``required`` list is de-duplicated through a set (hash order)."""

from __future__ import annotations

import json
from typing import Any

from reference_impl._wire import wire_json
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SNAP-2"
DESCRIPTION = (
    "required names are de-duplicated with list(set(...)): their order follows string hashing, so the "
    "bytes change with PYTHONHASHSEED from one process to the next"
)


def _dedupe(schema: Any) -> Any:
    if isinstance(schema, dict):
        out = {key: _dedupe(value) for key, value in schema.items()}
        if isinstance(out.get("required"), list):
            out["required"] = list(set(out["required"]))
        return out
    if isinstance(schema, list):
        return [_dedupe(item) for item in schema]
    return schema


def _through_set(original: Any) -> Any:
    def _schema_json(tool: Any) -> str:
        return wire_json(_dedupe(json.loads(original(tool))))

    return _schema_json


adapter = make_factory(Patch("reference_impl.request._schemas", "_schema_json", _through_set))
