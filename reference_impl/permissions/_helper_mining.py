r"""Mining ``program_starts.json``: which programs each installed program may start by itself (PERM-17).

A "plain" program may start another one no option names: ``diff -l`` runs ``/usr/bin/pr``, ``file -z``
runs the decompressor its library names, ``man`` runs ``pager`` and ``groff``, ``zgrep`` (a shell
script) runs ``grep`` and ``gzip``. Nobody types that list in: it is read from the machine's files,
each kind of evidence one that a program *runs* another, not that it mentions a word:

- an absolute path of an installed program among the strings of the program's binary or of the
  shared libraries it loads beyond the C runtime (``/usr/bin/pr`` in diff);
- an installed program's bare name among those strings that the program's own manual page also
  sets as a program (bold or italic, or with a section: ``\fBgroff\fR``, ``pager(1)``);
- a compressor's name among those strings when the program's help or manual says it reads
  compressed data (libmagic names ``zstd``; file's help says "look inside compressed files"); a
  compressor is a program whose help offers ``-d`` to decompress;
- for a script (``#!``), each installed program's name where a command starts in it, or as the
  default of a variable it runs (``${GREP-grep}``, ``${PAGER:-less}``).

The shells are left out: what a shell runs is the command it is given, which the engine reads
wherever the line shows it. ``python -m reference_impl.permissions._grammar_mining`` writes the file;
nothing here runs when the harness does.
"""

from __future__ import annotations

import glob
import gzip
import os
import re
import subprocess
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["binary_strings", "man_programs", "mine_starts", "script_commands"]

_RUNTIME = re.compile(r"/(libc|libm|ld-linux[^/]*|libpthread|libdl|librt|libgcc_s|libstdc\+\+)[.-]")
_PROGRAM_PATH = re.compile(r"(?:/usr)?/s?bin/([\w.+-]+)")
_PRINTABLE = re.compile(rb"[\x20-\x7e]{2,}")
_SHELLS = frozenset({"sh", "bash", "dash", "ksh", "mksh", "zsh", "busybox", "rbash", "ash"})
_COMPRESSED = re.compile(r"(?i)\b(de|un)?compress(ed|ion|es)?\b")
_DECOMPRESSOR = re.compile(r"(?im)^\s*-d\b[^\n]*\bdecompress")
# Where a command starts in a shell script: a line's start, after ; & | ( ` or $(, past the words
# that lead one (then, do, else, exec, command, if, while, until, !) and its assignments (LC_ALL=C).
_LEADERS = frozenset({"then", "do", "else", "elif", "exec", "command", "if", "while", "until", "!", "time"})
_COMMAND_POSITION = re.compile(
    r"(?:^|[;&|(`])[ \t]*((?:(?:then|do|else|elif|exec|command|if|while|until|!|time|[A-Za-z_]\w*=\S*)[ \t]+)*)"
    r"([A-Za-z_][\w.+-]*)(?=[ \t;&|)`]|$)",
    re.MULTILINE,
)
# A variable's default a script runs unless the environment names another: ${GREP-grep},
# ${PAGER:-less} (zgrep's ``grep='${GREP-'\''grep'\''}'``, then ``eval "$grep ..."``).
_DEFAULT_VALUE = re.compile(r"\$\{\w+:?[-=][\\'\"]*([A-Za-z_][\w.+-]*)")
# A name the manual sets as a program: bold or italic, or followed by a manual section.
_MAN_SET = (
    re.compile(r"\\f[BI]([\w.+-]+)\\f[RPB]"),
    re.compile(r"^\.[BI][RI]? +\"?([\w.+-]+)", re.MULTILINE),
    re.compile(r"([\w.+-]+)\s*(?:\\f[RP])?\s*\(\d\)"),
)


def binary_strings(data: bytes) -> set[str]:
    """The NUL-separated printable strings of a binary, stripped (``strings`` with whole strings only)."""
    found: set[str] = set()
    for chunk in data.split(b"\0"):
        if _PRINTABLE.fullmatch(chunk):
            found.add(chunk.decode("ascii").strip())
    return found


def script_commands(text: str) -> set[str]:
    """The words a shell script has where a command starts (comments taken out)."""
    code = "\n".join(line.split("#", 1)[0] if not line.startswith("#!") else "" for line in text.splitlines())
    defaults = {m.group(1) for m in _DEFAULT_VALUE.finditer(code)}
    return ({m.group(2) for m in _COMMAND_POSITION.finditer(code)} | defaults) - _LEADERS


def man_programs(page: str) -> set[str]:
    """The names a manual page (troff source) sets as programs."""
    page = page.replace("\\-", "-")
    return {m.group(1) for pattern in _MAN_SET for m in pattern.finditer(page)}


def _man_page(name: str) -> str:
    for section in ("1", "8", "6"):
        for path in sorted(glob.glob(f"/usr/share/man/man{section}/{glob.escape(name)}.{section}*.gz")):
            try:
                with gzip.open(path) as handle:
                    return handle.read().decode("latin-1")
            except OSError:
                continue
    return ""


def _libraries(path: str) -> list[str]:
    try:
        out = subprocess.run(["ldd", path], capture_output=True, text=True, timeout=20, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [m.group(1) for m in re.finditer(r"=> (/\S+)", out) if not _RUNTIME.search(m.group(1))]


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def mine_starts(programs: Mapping[str, str], help_of: Callable[[str], str]) -> dict[str, Any]:
    """``{"programs": {name: [programs it may start]}}`` for ``programs`` (name -> path), by the evidence above.

    ``help_of(name)`` is the program's ``--help`` output (run sandboxed by the caller).
    """
    names = set(programs)
    strings_of: dict[str, set[str]] = {}

    def strings(path: str) -> set[str]:
        if path not in strings_of:
            strings_of[path] = binary_strings(_read(path))
        return strings_of[path]

    found: dict[str, set[str]] = {}
    compressed: dict[str, set[str]] = {}  # the names in the binaries of programs reading compressed data
    for name, path in programs.items():
        real = os.path.realpath(path)
        head = _read(real)[:4096]
        if head.startswith(b"#!"):
            started = script_commands(_read(real).decode("utf-8", "replace")) & names
        elif head.startswith(b"\x7fELF"):
            texts = set(strings(real))
            for library in _libraries(real):
                texts |= strings(library)
            page = _man_page(name)
            paths = {m.group(1) for t in texts if (m := _PROGRAM_PATH.fullmatch(t))}
            started = (paths | (texts & man_programs(page))) & names
            if _COMPRESSED.search(page or help_of(name)):
                compressed[name] = texts & names
        else:
            continue
        found[name] = (
            started - _SHELLS - {name} - {n for n in started if os.path.realpath(programs[n]) == real}
        )
    compressors = _compressors({n for named in compressed.values() for n in named}, help_of)
    for name, named in compressed.items():
        found[name] |= (named & compressors) - {name}
    starts = {name: sorted(started) for name, started in sorted(found.items()) if started}
    return {"mined_from": "python -m reference_impl.permissions._grammar_mining", "programs": starts}


def _compressors(names: Iterable[str], help_of: Callable[[str], str]) -> set[str]:
    """Of ``names``, the programs whose help offers ``-d`` to decompress (gzip, bzip2, xz, zstd, lz4...)."""
    return {name for name in names if _DECOMPRESSOR.search(help_of(name))}
