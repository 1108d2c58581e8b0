"""One-line mutants: a function recompiled from its own source with one piece of text replaced.

``Patch(module, attribute, rewrite(old, new))`` replaces the function found at ``module.attribute`` by
a copy compiled from its source where ``old`` (which must occur exactly once) becomes ``new``: ``<=``
turned into ``<``, a ``[0]`` added, a condition dropped. The copy shares the original's module
globals, so it sees the same helpers and constants. Like every ``Patch``, it is applied where the
function is *used* (``from x import f`` copies the reference), so name the importing module.

``rewrite_script(old, new)`` does the same for a script the harness runs as a process of its own (the
sandbox's exec loader and tracer, ``python -I -S SCRIPT``): it patches the constant holding the
script's path with the path of an edited copy, written under the system's temporary directory, which
the sandbox shows read-only.
"""

from __future__ import annotations
import __future__

import hashlib
import inspect
import os
import tempfile
import textwrap
from collections.abc import Callable
from typing import Any

from tests.mutants._base import MutantLoadError

__all__ = ["rewrite", "rewrite_script"]


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


def rewrite_script(old: str, new: str) -> Callable[[str], str]:
    """A ``Patch`` mutate function for a script's path: the path of a copy with its one ``old`` made ``new``.

    The copy is named by a hash of its text, so every process of a run (the suite's, the CLI's)
    shares one file, written whole before it is renamed into place.
    """

    def mutate(original: str) -> str:
        with open(original, encoding="utf-8") as script:
            source = script.read()
        count = source.count(old)
        if count != 1:
            raise MutantLoadError(f"rewrite of {original}: {old!r} occurs {count} times, expected once")
        edited = source.replace(old, new)
        digest = hashlib.sha256(edited.encode()).hexdigest()[:16]
        folder = os.path.join(tempfile.gettempdir(), "toolharness-mutant-scripts")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"{digest}-{os.path.basename(original)}")
        if not os.path.exists(path):
            partial = f"{path}.{os.getpid()}"
            with open(partial, "w", encoding="utf-8") as copy:
                copy.write(edited)
            os.replace(partial, path)
        return path

    return mutate
