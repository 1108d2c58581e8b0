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

import functools
import os
import posixpath

__all__ = ["STDIN", "UNKNOWN_DESCRIPTOR", "descriptor_of", "process_directory", "shell_state"]

STDIN = 0
"""The descriptor a here-document or here-string feeds (without a number before ``<<``)."""

UNKNOWN_DESCRIPTOR = -1
"""A path that may name a descriptor, but not one the engine can tell."""

_PLAIN_DEVICES = frozenset({"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/dev/full"})


def _absolute(path: str) -> str:
    """``path`` made absolute as the kernel may resolve it from a directory the engine does not know.

    A relative path that climbs (``../../dev/stdin``) may reach the root, so its climbing prefix is
    taken as the root; one that does not climb stays below the directory, out of ``/dev`` and ``/proc``.
    """
    if path.startswith("/"):
        return path
    # Only the climb is read lexically: once it may be above the directory, the rest is the kernel's
    # to fold (``../proc/thread-self/../..`` follows thread-self before climbing out of it).
    parts = path.split("/")
    depth = 0
    for index, part in enumerate(parts):
        if part in ("", "."):
            continue
        if part == "..":
            depth -= 1
        elif depth < 0:
            return "/" + "/".join(parts[index:])
        else:
            depth += 1
    return "/" if depth < 0 else "./" + path


def descriptor_of(path: str) -> int | None:
    """The descriptor ``path`` names (0 for standard input), :data:`UNKNOWN_DESCRIPTOR`, or None for a plain file.

    ``-`` is standard input, as programs that take a file operand read it.
    """
    if path == "-":
        return STDIN
    absolute = _absolute(path)
    if not absolute.startswith("/"):
        return None
    segments, found, rest, folded = _walked(absolute)
    if found is not None:
        if found[0] == "descriptor" and rest == len(segments) and folded[-1].isdigit():
            return int(folded[-1])
        return UNKNOWN_DESCRIPTOR  # a file through a descriptor, a process's directory or root
    if folded and folded[0] in ("dev", "proc") and "/" + "/".join(folded) not in _PLAIN_DEVICES:
        return UNKNOWN_DESCRIPTOR
    return None


# Links the kernel resolves to a fixed place before any process state: ``/dev/fd`` is ``/proc/self/fd``.
_OWN_THREAD = "\x00"  # the opener's thread, whose number no name shows (no segment holds a NUL)
_FIXED_LINKS: dict[tuple[str, ...], list[str]] = {
    ("proc", "thread-self"): [
        "proc",
        "self",
        "task",
        _OWN_THREAD,
    ],  # two levels: ``..`` is its task directory
    ("dev", "fd"): ["proc", "self", "fd"],
    ("dev", "stdin"): ["proc", "self", "fd", "0"],
    ("dev", "stdout"): ["proc", "self", "fd", "1"],
    ("dev", "stderr"): ["proc", "self", "fd", "2"],
}
_OWN_PROCESS = frozenset({"self"})


@functools.cache
def _machine_links() -> dict[tuple[str, ...], list[str]]:
    """The links ``/proc`` and ``/dev`` hold on this machine to places in them: ``/proc/net`` is ``self/net``.

    Read once; :data:`_FIXED_LINKS` (the kernel's own) win. A link out of both (``/dev/log``) is left
    as named, so what is under ``/dev`` may still be a descriptor.
    """
    links: dict[tuple[str, ...], list[str]] = {}
    for top in ("proc", "dev"):
        try:
            names = os.listdir(f"/{top}")
        except OSError:
            continue
        for name in names:
            if name.isdigit() or (top, name) in _FIXED_LINKS or name in _OWN_PROCESS:
                continue
            try:
                target = os.readlink(f"/{top}/{name}")
            except OSError:
                continue
            folded = posixpath.normpath(target if target.startswith("/") else f"/{top}/{target}")
            if folded.startswith(("/proc/", "/dev/")):
                links[(top, name)] = folded.strip("/").split("/")
    return links


def _state_kind(stack: list[str]) -> tuple[str, bool] | None:
    """What the folded ``stack`` names in ``/proc``: (``cwd``/``root``/``descriptor``, whether the process is its own)."""
    if len(stack) < 3 or stack[0] != "proc":
        return None
    own = stack[1] in _OWN_PROCESS
    rest = stack[2:]
    if len(rest) >= 3 and rest[0] == "task":
        rest = rest[2:]  # /proc/<pid>/task/<tid>/...: one thread, the same directory and descriptors
    if len(rest) == 1 and rest[0] in ("cwd", "root"):
        return rest[0], own
    if len(rest) == 2 and rest[0] == "fd":
        return "descriptor", own
    return None


def _walked(path: str) -> tuple[list[str], tuple[str, bool] | None, int, list[str]]:
    """The absolute ``path`` folded as the kernel walks it, up to the first link into a process's state.

    Returns ``path``'s segments (without ``.`` and empty ones), the state the walk reaches (as
    :func:`_state_kind`, None: none), the index in those segments where the rest after it begins,
    and the folded segments the walk ends with (up to the state's link).
    """
    segments = [s for s in path.split("/") if s not in ("", ".")]
    stack: list[str] = []
    for index, segment in enumerate(segments):
        if segment == "..":
            if stack:
                stack.pop()
            continue
        stack.append(segment)
        if len(stack) == 2:
            stack = list(
                _FIXED_LINKS.get((stack[0], stack[1])) or _machine_links().get((stack[0], stack[1]), stack)
            )
        found = _state_kind(stack)
        if found is not None:
            return segments, found, index + 1, stack
    return segments, None, len(segments), stack


def shell_state(path: str) -> tuple[str, bool, str] | None:
    """What the absolute ``path`` names of the process that opens it: its working directory, root or a descriptor.

    ``/proc/self/cwd/x``, ``/proc/thread-self/root/x``, ``/proc/<pid>/fd/3/x``, ``/dev/fd/3/x``:
    the kernel resolves them in the process that opens the path (the shell, or a program it runs),
    never in the engine's. Returns (``cwd``, ``root`` or ``descriptor``; whether the process is
    its own, ``self``/``thread-self``; the rest of the path after the link, ``""`` for none), or
    None for any other path. Folded as the kernel walks it: ``.`` and ``//`` dropped, ``..`` climbing
    from where the walk is (``/dev/fd/../cwd`` is ``/proc/self/cwd``), never past a magic link.
    """
    if not path.startswith("/") or ("proc" not in path and "dev" not in path):
        return None  # folding only ever reaches /proc or /dev through segments of those names
    segments, found, rest, _ = _walked(path)
    return None if found is None else (found[0], found[1], "/".join(segments[rest:]))


def process_directory(path: str) -> bool:
    """Whether the absolute ``path`` names a directory of process state itself, not a file in it.

    ``/proc``, ``/proc/self``, ``/proc/self/fd``, ``/dev/fd``, ``/proc/self/cwd``: a link made to
    it (``ln -s /proc/self/fd f``), or a file copied into it, lands where the writing process's
    state says, which no name on the line shows.
    """
    if not path.startswith("/"):
        return False
    segments, found, rest, stack = _walked(path)
    if found is not None:
        return found[0] != "descriptor" and rest == len(segments)
    return (
        bool(stack)
        and stack[0] == "proc"
        and (
            len(stack) <= 2
            or stack[2:] in (["fd"], ["task"])
            or (len(stack) in (4, 5) and stack[2] == "task" and stack[4:] in ([], ["fd"]))
        )
    )
