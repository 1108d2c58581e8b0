"""HOOK-2 mutant: identical hooks are recognised by their command line (or URL) alone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-2"
DESCRIPTION = (
    "hooks are deduplicated on the command text (or URL) alone, so the first twin seen stands for the "
    "others: an if-scoped deny is skipped because the same command under an if that misses the call ran"
)


def _mutate(_original: Any) -> Any:
    from reference_impl.hooks._command import CommandHook
    from reference_impl.hooks._model import HttpHook

    def matching(self: Any, event: str, tool_name: str) -> Iterator[tuple[Any, float | None]]:
        seen: set[str] = set()
        for predicate, m in self._compiled.get(event, ()):
            if not predicate(tool_name):
                continue
            for hook in m.hooks:
                if isinstance(hook, CommandHook | HttpHook):
                    key = hook.label
                    if key in seen:
                        continue
                    seen.add(key)
                yield hook, m.timeout

    return matching


adapter = make_factory(Patch("reference_impl.hooks._model", "Hooks.matching", _mutate))
