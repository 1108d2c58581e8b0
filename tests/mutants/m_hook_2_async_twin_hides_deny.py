"""HOOK-2 mutant: an async hook and the same command run synchronously count as one hook."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-2"
DESCRIPTION = (
    "hooks are deduplicated without regard to async, so an async twin seen first (which can't decide) "
    "stands for the synchronous one, and its deny is lost (the reference's own bug until session 39)"
)


def _mutate(_original: Any) -> Any:
    from reference_impl.hooks._command import CommandHook
    from reference_impl.hooks._model import HttpHook

    def matching(self: Any, event: str, tool_name: str) -> Iterator[tuple[Any, float | None]]:
        seen: set[tuple[Any, ...]] = set()
        for predicate, m in self._compiled.get(event, ()):
            if not predicate(tool_name):
                continue
            for hook in m.hooks:
                if isinstance(hook, CommandHook | HttpHook):
                    root = hook.plugin_root if isinstance(hook, CommandHook) else None
                    key = (m.source, root, hook.label, hook.condition, hook.on_failure)
                    if key in seen:
                        continue
                    seen.add(key)
                yield hook, m.timeout

    return matching


adapter = make_factory(Patch("reference_impl.hooks._model", "Hooks.matching", _mutate))
