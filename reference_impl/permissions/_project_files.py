"""What a project's own files, as they are on disk, make a project tool run (PERM-17).

``npm test`` runs ``package.json``'s ``pretest``, ``test`` and ``posttest`` scripts; ``make`` runs its
Makefile's recipes; ``./scripts/test.sh`` (or ``bash scripts/test.sh``) its own text; ``python3 -m json.tool`` imports ``./json`` before the standard library's when
the project has one. The engine trusts a project's code as read (a recipe may do anything), but a
deny or ask rule whose program such a file *names* may apply: the text is read, at decision time,
as the command lines it holds, and matched like the line itself (the rules module decides).

Cached per file, keyed by its identity (inode, size, modification time): a changed file is read again.
"""

from __future__ import annotations

import json
import os
import posixpath
from collections.abc import Sequence

__all__ = ["project_commands", "reads_project_files", "script_commands"]

_MAX_BYTES = 262_144
_NPM = frozenset({"npm", "pnpm", "yarn", "bun"})
_NPM_SHORT = frozenset({"test", "start", "stop", "restart", "t", "tst"})
_MAKE = frozenset({"make", "gmake"})
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")

_CACHE: dict[str, tuple[tuple[int, int, int], str | None]] = {}


def reads_project_files(argv: Sequence[str | None]) -> bool:
    """Whether :func:`project_commands` may find anything for ``argv`` (cheap, and the same for every cwd)."""
    if not argv or argv[0] is None:
        return False
    name = posixpath.basename(argv[0])
    return (
        "/" in argv[0] or name in _NPM or name in _MAKE or (name.startswith("python") and "-m" in argv[1:2])
    )


def project_commands(argv: Sequence[str | None], cwd: str) -> list[tuple[str, str]]:
    """(where, text) of what ``argv``'s program would run from the project's files in ``cwd``."""
    if not argv or argv[0] is None:
        return []
    if "/" in argv[0]:
        return script_commands(argv[0], cwd)
    name = posixpath.basename(argv[0])
    words = [w for w in argv[1:] if w is not None]
    if name in _NPM:
        return _npm_scripts(words, cwd)
    if name in _MAKE:
        found = [(f"recipe in {m}", text) for m in _MAKEFILES if (text := _read(posixpath.join(cwd, m)))]
        return [(where, "\n".join(_recipe_lines(text))) for where, text in found]
    if words[:1] == ["-m"] and len(words) > 1 and name.startswith("python"):
        module = words[1].split(".")[0]
        for path in (posixpath.join(cwd, module + ".py"), posixpath.join(cwd, module, "__init__.py")):
            text = _read(path)
            if text is not None:
                return [(f"the project's {path} (it shadows any module named {module})", text)]
    return []


def script_commands(path: str, cwd: str) -> list[tuple[str, str]]:
    """A script file run by its path (``./scripts/test.sh``, or given to a shell): its text, when it is text."""
    text = _read(posixpath.join(cwd, path))
    if text is None or "\0" in text[:4096]:
        return []
    return [(f"the script {path}", text)]


def _npm_scripts(words: list[str], cwd: str) -> list[tuple[str, str]]:
    operands = [w for w in words if not w.startswith("-")]
    if not operands:
        return []
    script = (
        operands[1]
        if operands[0] in ("run", "run-script", "rum", "urn") and len(operands) > 1
        else operands[0]
    )
    if operands[0] not in ("run", "run-script", "rum", "urn") and operands[0] not in _NPM_SHORT:
        return []
    script = {"t": "test", "tst": "test"}.get(script, script)
    text = _read(posixpath.join(cwd, "package.json"))
    if text is None:
        return []
    try:
        scripts = json.loads(text).get("scripts") or {}
    except (ValueError, AttributeError):
        return [("package.json (unreadable)", text)]
    if not isinstance(scripts, dict):
        return []
    return [
        (f"package.json script {key!r}", str(scripts[key]))
        for key in (f"pre{script}", script, f"post{script}")
        if key in scripts
    ]


def _recipe_lines(text: str) -> list[str]:
    """A Makefile's recipe lines (a tab first, ``@``/``-``/``+`` prefixes taken off), and its variable values."""
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("\t"):
            lines.append(line.lstrip("\t").lstrip("@-+ "))
        elif "=" in line and not line.lstrip().startswith("#"):
            lines.append(line.split("=", 1)[1])
    return lines


def _read(path: str) -> str | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    key = (info.st_ino, info.st_size, info.st_mtime_ns)
    cached = _CACHE.get(path)
    if cached is not None and cached[0] == key:
        return cached[1]
    text: str | None = None
    if info.st_size <= _MAX_BYTES:
        try:
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8", "replace")
        except OSError:
            text = None
    if len(_CACHE) >= 512:
        _CACHE.clear()
    _CACHE[path] = (key, text)
    return text
