"""RESULT-4 mutant: a resumed session puts the saved full outputs back in place of their replacements."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pytest_toolharness.adapters.reference._adapter import ReferenceAdapter, ReferenceHarness
from tests.mutants._base import make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "RESULT-4"
DESCRIPTION = (
    "On resume, <persisted-output> blocks are 'rehydrated' from the saved files, so the resumed session "
    "re-decides results that were frozen (the prompt cache breaks, the context overflows)"
)

_SAVED_TO = re.compile(r"Full output saved to: (.+)\n")


def _rehydrate(entry: Any) -> Any:
    if not isinstance(entry, dict) or entry.get("role") != "user" or isinstance(entry.get("content"), str):
        return entry
    blocks = []
    for block in entry.get("content") or []:
        content = block.get("content") if isinstance(block, dict) else None
        match = _SAVED_TO.search(content) if isinstance(content, str) else None
        if match and Path(match.group(1)).is_file():
            block = {**block, "content": Path(match.group(1)).read_text(encoding="utf-8")}
        blocks.append(block)
    return {**entry, "content": blocks}


class _Harness(ReferenceHarness):
    def resume(self) -> ReferenceHarness:
        resumed = super().resume()
        resumed._entries = [_rehydrate(entry) for entry in resumed._entries]
        resumed.__class__ = _Harness
        return resumed


class _Adapter(ReferenceAdapter):
    def new_harness(self) -> ReferenceHarness:
        harness = super().new_harness()
        harness.__class__ = _Harness
        return harness


adapter = make_factory(adapter_class=_Adapter)
