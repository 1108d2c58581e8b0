"""PERM-12 mutant: the liveness witness of a ``:*`` rule loses a character, so every live prefix rule is refused."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "the loader's witness of a shell prefix rule drops one character too many (`content[:-3]`): "
    "`Bash(git push:*)` is judged dead and its settings file refused, though it names what its author means"
)


def _mutate(original: Any) -> Any:
    def shell_witnesses(content: str) -> Iterator[str]:
        if content.endswith(":*") and not content.endswith("\\:*"):
            yield content[:-3]
            yield content[:-3] + " x"
            return
        yield from original(content)

    return shell_witnesses


adapter = make_factory(Patch("reference_impl.permissions._rule_liveness", "_shell_witnesses", _mutate))
