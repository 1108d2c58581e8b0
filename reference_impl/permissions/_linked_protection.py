"""Protected files reached by another name: symbolic links to them, and git's own files wherever they are (PERM-15).

A protected file is a file, not a spelling. ``.mcp.json -> conf/mcp.json`` makes ``conf/mcp.json``
the harness's MCP configuration; ``~/.bashrc -> ~/dotfiles/bashrc`` makes ``dotfiles/bashrc`` what
bash sources; ``.claude -> conf/claude`` makes every file below ``conf/claude`` a ``.claude`` file.
And git's directory is wherever git says it is (``git init --separate-git-dir=meta``, a worktree's
common directory), with its hooks wherever ``core.hooksPath`` points and its configuration in
every file an include names. So each protected name under the working directory, each of its
parents and the home directory is resolved through its links (a dangling one too: a write creates
its target), git is asked in the working directory (:func:`._repository_config.git_own_paths`,
cached by the identity of the files its answer rests on), and a write whose resolved target is one
of these, or lies inside one, is asked about.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Iterator
from pathlib import Path

from reference_impl.permissions._protected_names import (
    PROTECTED_DIRECTORIES,
    PROTECTED_FILES,
    PROTECTED_TREES,
)
from reference_impl.permissions._repository_config import git_own_paths

__all__ = ["is_git_directory", "linked_reason"]

# Each protected name as its segments, grouped by the first one: one directory listing per root finds them.
_NAMES: dict[str, list[tuple[str, ...]]] = {}
for _name in sorted(PROTECTED_DIRECTORIES | PROTECTED_FILES | PROTECTED_TREES):
    _NAMES.setdefault(_name.split("/")[0], []).append(tuple(_name.split("/")))


def _roots(cwd: str) -> list[str]:
    """The working directory, each of its parents (a project's root is one), and the home directory."""
    roots = [cwd]
    while (parent := posixpath.dirname(roots[-1])) != roots[-1]:
        roots.append(parent)
    home = os.path.expanduser("~")
    return [*roots, home] if home.startswith("/") else roots


def _linked(root: str, names: list[tuple[str, ...]]) -> Iterator[str]:
    """The resolved targets of the protected names under ``root`` that a link leads through."""
    for segments in names:
        path = root
        for segment in segments:
            path = posixpath.join(path, segment)
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                break  # missing: nothing below it exists either
            if stat.S_ISLNK(mode):
                yield os.path.realpath(posixpath.join(root, *segments))
                break


def _protected_targets(cwd: str) -> Iterator[str]:
    for root in _roots(cwd):
        try:
            with os.scandir(root) as entries:
                present = [e.name for e in entries if e.name in _NAMES]
        except OSError:
            continue
        for first in present:
            yield from _linked(root, _NAMES[first])
    for path in git_own_paths(cwd) or ():
        yield os.path.realpath(path)


def linked_reason(resolved: str, cwd: Path) -> str | None:
    """Why writing the resolved path ``resolved`` writes a protected file under another name; None if it does not."""
    for target in _protected_targets(str(cwd)):
        if resolved == target or resolved.startswith(target.rstrip("/") + "/"):
            return f"{resolved} is (or is inside) {target}, which a protected name links to or git reads as its own"
    # The directory itself too: a file copied or linked to it (``cp config mirror``) lands inside.
    directory = resolved
    while directory not in ("", "/"):
        if is_git_directory(directory):
            where = "is" if directory == resolved else f"is inside {directory},"
            return (
                f"{resolved} {where} a git directory whatever its name (a link named .git, "
                "--git-dir or GIT_DIR makes git run its hooks and read its configuration)"
            )
        directory = posixpath.dirname(directory)
    return None


def is_git_directory(directory: str) -> bool:
    """Whether git would take ``directory`` for a repository's own directory, as its setup code tests it.

    ``objects/`` and ``refs/`` directories, and a ``HEAD`` that is a symbolic ref (``ref: refs/...``,
    or a link into ``refs/``) or an object name: ``sub/.git -> ../meta`` makes ``meta`` one, and so
    does ``git init --bare``.
    """
    try:
        # git's setup.c: objects/ and refs/ it may enter (access X_OK), and a valid HEAD.
        if not (os.access(f"{directory}/objects", os.X_OK) and os.access(f"{directory}/refs", os.X_OK)):
            return False
        head = f"{directory}/HEAD"
        if os.path.islink(head):
            return os.readlink(head).startswith("refs/")
        with open(head, "rb") as file:
            text = file.read(255)  # git reads 255 bytes of it
    except (OSError, ValueError):
        return False
    # validate_headref(): ``ref:``, git's blanks (space, tab, CR, LF), ``refs/``; or an object name's digits first.
    if text.startswith(b"ref:") and text[4:].lstrip(b" \t\n\r").startswith(b"refs/"):
        return True
    return re.match(rb"[0-9a-fA-F]{40}", text) is not None
