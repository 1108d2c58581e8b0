"""Paths that name an open file descriptor, however they are spelled (PERM-17).

A program that reads its program from a file (an interpreter's script, ``make -f``, ``awk -f``,
``source``) reads the command line's own data when the file is a descriptor: ``/dev/stdin`` with a
here-document, ``/dev/fd/3`` with ``3<<<``. The kernel has endless names for one: ``//dev/stdin``,
``/dev/./stdin``, ``/proc/self/fd/0``, ``/proc/thread-self/fd/0``, ``/proc/<pid>/fd/0``,
``/proc/<pid>/task/<tid>/fd/0``, ``../../dev/stdin`` from a directory the engine does not know.
So a path is compared after folding it as the kernel would, and any path under ``/dev`` or
``/proc`` that is not a known plain device may be a descriptor.
"""

from __future__ import annotations

import posixpath
import re

__all__ = ["STDIN", "UNKNOWN_DESCRIPTOR", "descriptor_of"]

STDIN = 0
"""The descriptor a here-document or here-string feeds (without a number before ``<<``)."""

UNKNOWN_DESCRIPTOR = -1
"""A path that may name a descriptor, but not one the engine can tell."""

_PLAIN_DEVICES = frozenset({"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/dev/full"})
_FD_PATH = re.compile(r"/(?:dev/fd|proc/[^/]+(?:/task/[^/]+)?/fd)/(\d+)")
_STANDARD = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}


def _folded(path: str) -> str:
    """``path`` as the kernel resolves its spelling: ``//`` is ``/``, ``.`` and ``..`` folded.

    A relative path that climbs (``../../dev/stdin``) may reach the root from a directory the
    engine does not know, so its climbing prefix is taken as the root.
    """
    if not path.startswith("/"):
        path = posixpath.normpath(path)
        climbs = path.startswith("../")
        while path.startswith("../"):
            path = path[3:]
        if path in ("..", "."):
            return "/"
        path = "/" + path if climbs else path
    else:
        path = posixpath.normpath("/" + path.lstrip("/"))
    return path


def descriptor_of(path: str) -> int | None:
    """The descriptor ``path`` names (0 for standard input), :data:`UNKNOWN_DESCRIPTOR`, or None for a plain file.

    ``-`` is standard input, as programs that take a file operand read it.
    """
    if path == "-":
        return STDIN
    folded = _folded(path)
    if folded in _STANDARD:
        return _STANDARD[folded]
    match = _FD_PATH.fullmatch(folded)
    if match is not None:
        return int(match.group(1))
    if folded.startswith(("/dev/", "/proc/")) and folded not in _PLAIN_DEVICES:
        return UNKNOWN_DESCRIPTOR
    return None
