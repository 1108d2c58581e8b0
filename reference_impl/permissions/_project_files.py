"""What a project's own files, as they are on disk, make a project tool run (PERM-17).

``npm test`` runs ``package.json``'s ``pretest``, ``test`` and ``posttest`` scripts; ``make`` runs its
Makefile's recipes (and the files it includes; ``-C DIR`` and ``-f FILE`` choose another); ``./scripts/test.sh``
(or ``bash scripts/test.sh``) its own text; ``python3 -m json.tool`` imports ``./json`` before the
standard library's when the project has one, and a Python script, module or ``-c`` code imports the
project's own modules beside it (followed, as Python finds them first). The engine trusts a project's
code as read (a recipe may do anything), but a deny or ask rule whose program such a file *names* may
apply: the text is read, at decision time, as the command lines it holds, and matched like the line
itself; the commands *it* holds that read project files are read in turn (the rules module decides).

Cached per file, keyed by its identity (inode, size, modification time): a changed file is read again.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Sequence

__all__ = ["NOT_READ", "project_commands", "reads_project_files", "script_commands"]

NOT_READ = "\0"
"""The text of a (where, text) pair standing for files past the reading limits: not read, so asked about."""

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
        "/" in argv[0]
        or name in _NPM
        or name in _MAKE
        or (name.startswith("python") and any(w in ("-m", "-c") for w in argv[1:2]))
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
        return _makefiles(words, cwd)
    if name.startswith("python") and words[:1] == ["-c"] and len(words) > 1:
        return _python_imports(words[1], cwd, set())
    if name.startswith("python") and words[:1] == ["-m"] and len(words) > 1:
        found: list[tuple[str, str]] = []
        parts = words[1].split(".")
        seen: set[str] = set()
        # ``-m a.b`` imports package ``a`` (its __init__), then runs ``a/b.py``: the project's, when it has them.
        for depth in range(1, len(parts) + 1):
            for path in _module_files(cwd, parts[:depth]):
                text = _read(path)
                if text is not None and path not in seen:
                    seen.add(path)
                    found.append((f"the project's {path} (it shadows any module named {parts[0]})", text))
                    found += _python_imports(text, posixpath.dirname(path), seen, cwd)
        return found
    return []


def script_commands(path: str, cwd: str) -> list[tuple[str, str]]:
    """A script file run by its path (``./scripts/test.sh``, or given to a shell): its text, when it is text.

    A Python script (``.py``, or a ``python`` first line) also brings the project modules it imports.
    """
    full = posixpath.join(cwd, path)
    text = _read(full)
    if text is None or "\0" in text[:4096]:
        return []
    found = [(f"the script {path}", text)]
    if path.endswith(".py") or "python" in text.partition("\n")[0]:
        found += _python_imports(text, posixpath.dirname(full) or cwd, {full})
    return found


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import\b|import[ \t]+([\w., \t]+))", re.MULTILINE)
_MAX_MODULES = 64


def _module_files(directory: str, parts: Sequence[str]) -> tuple[str, str]:
    base = posixpath.join(directory, *parts)
    return base + ".py", posixpath.join(base, "__init__.py")


def _python_imports(
    text: str, directory: str, seen: set[str], cwd: str | None = None
) -> list[tuple[str, str]]:
    """The project's modules that Python code imports (found beside it first), followed in turn.

    ``import a.b, c`` and ``from a import b`` look for ``a.py``/``a/__init__.py`` (and ``a/b.py``)
    in ``directory`` (and ``cwd``): Python finds a script's neighbours before the standard library.
    More than ``_MAX_MODULES`` files: what is left is not read (the caller asks: see the rules module).
    """
    found: list[tuple[str, str]] = []
    pending = [(text, directory)]
    while pending and len(seen) <= _MAX_MODULES:
        code, here = pending.pop()
        for match in _IMPORT.finditer(code):
            names = [match.group(1)] if match.group(1) else re.split(r"[ \t]*,[ \t]*", match.group(2))
            for name in names:
                dotted = name.split()[0] if name.split() else ""
                base = here if dotted.startswith(".") else None
                parts = [p for p in dotted.lstrip(".").split(".") if p]
                roots = [base] if base is not None else list(dict.fromkeys(d for d in (here, cwd) if d))
                for root in roots:
                    for depth in range(1, len(parts) + 1):
                        for path in _module_files(root, parts[:depth]):
                            module = _read(path)
                            if module is None or path in seen:
                                continue
                            seen.add(path)
                            found.append((f"the project's module {path} (imported)", module))
                            pending.append((module, posixpath.dirname(path)))
    if pending:
        found.append(("more project modules than are read", NOT_READ))
    return found


_INCLUDE = re.compile(r"^[ \t]*-?s?include[ \t]+(.+)$", re.MULTILINE)


def _makefiles(words: list[str], cwd: str) -> list[tuple[str, str]]:
    """The recipes and variable values of the Makefiles ``make`` reads, the ones they include too."""
    directory, chosen, index = cwd, [], 0
    while index < len(words):
        word = words[index]
        value = words[index + 1] if index + 1 < len(words) else ""
        if word in ("-C", "--directory", "-f", "--file", "--makefile"):
            index += 1
        elif word.startswith(("--directory=", "--file=", "--makefile=")):
            word, _, value = word.partition("=")
        elif word.startswith(("-C", "-f")) and len(word) > 2:
            word, value = word[:2], word[2:]
        else:
            index += 1
            continue
        index += 1
        if word in ("-C", "--directory"):
            directory = posixpath.join(directory, value)
        else:
            chosen.append(value)
    names = [posixpath.join(directory, f) for f in chosen] or [
        posixpath.join(directory, m) for m in _MAKEFILES
    ]
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    while names and len(seen) <= _MAX_MODULES:
        path = names.pop(0)
        text = _read(path)
        if text is None or path in seen:
            continue
        seen.add(path)
        found.append((f"recipe in {path}", "\n".join(_recipe_lines(text))))
        for match in _INCLUDE.finditer(text):
            names += [posixpath.join(directory, name) for name in match.group(1).split()]
    if names:
        found.append(("more included Makefiles than are read", NOT_READ))
    return found


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
