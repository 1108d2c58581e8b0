"""What the user's shell start-up makes run later, read at decision time (PERM-15).

A file a start-up file sources (``. "$HOME/.cargo/env"`` in ~/.bashrc) is start-up code too, and a
directory the start-up puts on ``PATH`` (``PATH="$HOME/.local/bin:$PATH"``) holds programs that
shadow the real ones. Both come from reading the start-up files themselves (and what they source,
bounded): of the user's home, of every directory above a written path that holds one (``HOME=h bash
-i`` makes ``h`` a home), and Debian's ``/etc/skel`` copies new homes are made from. The harness's
own configuration directory (``$CLAUDE_CONFIG_DIR``) is protected as ``~/.claude`` is.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterator

__all__ = ["startup_reason"]

# Start-up files a shell reads in a home (bash(1), zsh(1), ksh(1) INVOCATION/FILES).
_HOME_STARTUP: tuple[str, ...] = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshenv",
    ".zprofile",
)
_HOME_STARTUP += (".zshrc", ".zlogin", ".kshrc", ".mkshrc", ".bash_aliases")
# System-wide ones, read with the user's home as $HOME.
_SYSTEM_STARTUP: tuple[str, ...] = (
    "/etc/profile",
    "/etc/bash.bashrc",
    "/etc/zsh/zshenv",
    "/etc/zsh/zshrc",
    "/etc/zshrc",
)
_SYSTEM_STARTUP += ("/etc/skel/.profile", "/etc/skel/.bashrc")
_MOST_FILES = 24  # start-up files read per home, sourced ones included
_MOST_DEPTH = 3  # sourced from sourced from sourced
_MOST_BYTES = 256 << 10
_MOST_ANCESTORS = 16

# ``. FILE``, ``\. FILE``, ``source FILE`` at a command's start (after a line start, ``;``, ``&&``, ``then``...).
_SOURCED = re.compile(
    r"""(?:^|[;&|({]|\bthen|\bdo|\belse)\s*(?:\\?\.|source)\s+("[^"\n]*"|'[^'\n]*'|[^\s;&|)]+)""", re.M
)
_PATH_SET = re.compile(r"""\bPATH=("[^"\n]*"|'[^'\n]*'|[^\s;&|)]+)""")
_ASSIGNED = re.compile(
    r"""^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=("[^"\n$]*"|'[^'\n]*'|[^\s;&|$"']+)\s*$""", re.M
)
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")

_Read = tuple[frozenset[str], frozenset[str]]  # (sourced files, PATH directories)
_cache: dict[tuple[str, str, int, int], _Read] = {}


def _expanded(word: str, home: str, assigned: dict[str, str]) -> str | None:
    """The word as the shell gives it (quotes dropped, ``~`` and known variables expanded); None if not known."""
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "\"'":
        word = word[1:-1]
    if word == "~" or word.startswith("~/"):
        word = home + word[1:]
    values = dict(assigned, HOME=home)

    def value(match: re.Match[str]) -> str:
        return values.get(match.group(1) or match.group(2), "\x00")

    word = _VARIABLE.sub(value, word)
    if "\x00" in word or "$" in word or "`" in word or not word.startswith("/"):
        return None  # a variable not known here, or a path relative to a directory not known
    return posixpath.normpath(word)


def _read_file(path: str, home: str) -> _Read:
    """What one start-up file sources and puts on PATH, cached by its identity and change time."""
    try:
        status = os.stat(path)
        if status.st_size > _MOST_BYTES:
            return frozenset(), frozenset()
        key = (path, home, status.st_mtime_ns, status.st_size)
        if key in _cache:
            return _cache[key]
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except (OSError, ValueError):
        return frozenset(), frozenset()
    assigned = {m.group(1): m.group(2).strip("\"'") for m in _ASSIGNED.finditer(text)}
    sourced = {_expanded(m.group(1), home, assigned) for m in _SOURCED.finditer(text)}
    directories = {
        _expanded(part, home, assigned)
        for m in _PATH_SET.finditer(text)
        for part in m.group(1).strip("\"'").split(":")
    }
    found = (frozenset(s for s in sourced if s), frozenset(d for d in directories if d))
    _cache[key] = found
    return found


def _home_reads(home: str, files: tuple[str, ...]) -> _Read:
    """Everything the start-up files ``files`` of ``home`` source (followed, bounded) and put on PATH."""
    sourced: set[str] = set()
    directories: set[str] = set()
    level = list(files)
    seen: set[str] = set()
    for _ in range(_MOST_DEPTH + 1):
        following: list[str] = []
        for path in level:
            if path in seen or len(seen) >= _MOST_FILES:
                continue
            seen.add(path)
            more, on_path = _read_file(path, home)
            sourced |= more
            directories |= on_path
            following.extend(more)
        level = following
    return frozenset(sourced), frozenset(directories)


_held_cache: dict[tuple[str, int, tuple[str, ...]], tuple[str, ...]] = {}


def _held(directory: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """Which of ``names`` exist in ``directory`` (one stat when it is unchanged: a new name changes its mtime)."""
    try:
        changed = os.stat(directory).st_mtime_ns
    except (OSError, ValueError):
        return ()
    key = (directory, changed, names)
    if key not in _held_cache:
        held = tuple(p for p in (posixpath.join(directory, n) for n in names) if os.path.isfile(p))
        _held_cache[key] = held
    return _held_cache[key]


def _system_startup() -> tuple[str, ...]:
    """The system-wide start-up files that exist."""
    by_directory: dict[str, list[str]] = {}
    for path in _SYSTEM_STARTUP:
        by_directory.setdefault(posixpath.dirname(path), []).append(posixpath.basename(path))
    return tuple(p for d, names in by_directory.items() for p in _held(d, tuple(names)))


def _homes(form: str) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Each home whose start-up may run ``form``, with the start-up files read for it."""
    home = os.path.expanduser("~")
    yield home, _held(home, _HOME_STARTUP) + _system_startup()
    directory = posixpath.dirname(form)
    for _ in range(_MOST_ANCESTORS):
        if directory in ("/", "") or directory == home:
            break
        held = _held(directory, _HOME_STARTUP)
        if held:
            yield directory, held
        directory = posixpath.dirname(directory)


def startup_reason(form: str) -> str | None:
    """Why writing the absolute path ``form`` may make code run later by the user's start-up; None if not."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    if configured and (form + "/").startswith(posixpath.normpath(configured) + "/"):
        return f"{form} is in the harness's configuration directory ($CLAUDE_CONFIG_DIR)"
    parent = posixpath.dirname(form)
    for home, files in _homes(form):
        sourced, directories = _home_reads(home, files)
        if form in sourced:
            return f"{form} is sourced by a shell start-up file of {home}"
        if parent in directories:
            return f"{form} is in {parent}, which the shell start-up of {home} puts on PATH"
    home = os.path.expanduser("~")
    searched = {posixpath.normpath(p) for p in os.environ.get("PATH", "").split(":") if p.startswith("/")}
    if parent in searched and (parent + "/").startswith(home.rstrip("/") + "/"):
        return f"{form} is in {parent}, a directory of the home on PATH (a program there shadows another)"
    return None
