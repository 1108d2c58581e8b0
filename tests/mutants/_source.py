"""One-line mutants: a function recompiled from its own source with one piece of text replaced.

``Patch(module, attribute, rewrite(old, new))`` replaces the function found at ``module.attribute`` by
a copy compiled from its source where ``old`` (which must occur exactly once) becomes ``new``: ``<=``
turned into ``<``, a ``[0]`` added, a condition dropped. The copy shares the original's module
globals, so it sees the same helpers and constants. Like every ``Patch``, it is applied where the
function is *used* (``from x import f`` copies the reference), so name the importing module.
"""

from __future__ import annotations
import __future__

import inspect
import textwrap
from collections.abc import Callable
from typing import Any

from tests.mutants._base import MutantLoadError

__all__ = ["rewrite"]


def rewrite(old: str, new: str) -> Callable[[Any], Any]:
    """A ``Patch`` mutate function: the original recompiled with its one ``old`` replaced by ``new``."""

    def mutate(original: Any) -> Any:
        function = inspect.unwrap(original)
        source = textwrap.dedent(inspect.getsource(function))
        count = source.count(old)
        if count != 1:
            raise MutantLoadError(
                f"rewrite of {function.__qualname__}: {old!r} occurs {count} times in its source, expected once"
            )
        code = compile(
            source.replace(old, new),
            f"<mutant of {function.__module__}.{function.__qualname__}>",
            "exec",
            flags=__future__.annotations.compiler_flag,
            dont_inherit=True,
        )
        namespace: dict[str, Any] = {}
        exec(code, function.__globals__, namespace)  # the project's own source, with one edit
        return namespace[function.__name__]

    return mutate
