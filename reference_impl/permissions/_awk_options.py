"""Where an awk command line's program comes from, read as each awk's manual reads its options (PERM-17).

mawk(1): ``-f file`` (program text is read from the file), ``-F value``, ``-v var=value``, ``--``, and
``-W opt`` (attached ``-Wopt`` too) whose options ``mawk accepts abbreviations for`` and ``allows
... combined by separating the options with commas``: ``-W exec file`` (``-We``, ``-Wi,e``)
reads the program from the file. gawk(1): ``-f``/``--file``, ``-E``/``--exec``, ``-i``/``--include``
(program files), ``-l``/``--load`` (a shared library), ``-e``/``--source`` (program text), ``-W``
naming any of its long options, long options abbreviated (a value attached by ``=`` or the next word,
``--field-sep :``), and ``-d``, ``-D``, ``-L``, ``-o``, ``-p``
taking an optional attached value.

A program read from a file is not the command line's text: it is unknown to the caller, who fails
closed. A ``-W`` option or long option that is not one of the manuals' harmless ones may be one
that reads a file (or an abbreviation of one): unknown too.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["awk_program"]

# Long names (gawk's, or mawk's -W names) whose value is a file of program text or code.
_FROM_FILE = ("file", "exec", "include", "load")
_SOURCE = "source"
# -W (mawk) and long (gawk) options the manuals give no file of code: flags, or a value read here.
_HARMLESS = (
    "version", "dump", "help", "interactive", "posix_space", "random", "sprintf", "usage",
    "traditional", "posix", "lint", "characters-as-bytes", "sandbox", "re-interval", "bignum",
    "non-decimal-data", "optimize", "no-optimize", "copyright", "gen-pot", "use-lc-numeric",
    "dump-variables", "pretty-print", "profile", "debug", "field-separator", "assign",
)  # fmt: skip
_NEXT_VALUE_LONG = ("field-separator", "assign")
_FILE_LETTERS = "fEil"
_VALUE_LETTERS = "FvW"  # a value attached or the next word
_OPTIONAL_LETTERS = "dDLop"  # gawk: an optional value, only ever attached


def _long_reads_file(name: str) -> bool | None:
    """Whether the long (or -W) option ``name`` may read code from a file; None: its value is program text."""
    if not name:
        return True
    if any(long.startswith(name) for long in _FROM_FILE):
        return True  # ``-W e``, ``--ex``: an abbreviation of one
    if _SOURCE.startswith(name):
        return None
    return not any(long.startswith(name) for long in _HARMLESS)


def _takes_next(name: str) -> bool:
    """Whether the long option ``name`` (abbreviated or not: gawk reads both) takes the next word as its value."""
    return bool(name) and any(long.startswith(name) for long in _NEXT_VALUE_LONG)


def awk_program(args: Sequence[str | None]) -> tuple[str | None, ...] | None:
    """The program text(s) of an awk command line (None for a word only known when it runs).

    None when awk may read its program from a file (``-f``, ``-W exec``, ``--exec=``, ``-E``) or an
    option the manuals do not make harmless may (an unknown ``-W`` name).
    """
    programs: list[str | None] = []
    i = 0
    while i < len(args):
        word = args[i]
        following = args[i + 1] if i + 1 < len(args) else ""
        if word is None:
            return (None,)
        if word == "--":
            i += 1
            break
        if word == "-" or not word.startswith("-"):
            break
        if word.startswith("--"):
            name, eq, attached = word[2:].partition("=")
            reads = _long_reads_file(name)
            if reads:
                return None
            if reads is None:
                programs.append(attached if eq else following)
                i += 1 if eq else 2
                continue
            i += 2 if not eq and _takes_next(name) else 1
            continue
        step = 1
        for at, letter in enumerate(word[1:], start=2):
            rest = word[at:]
            if letter in _FILE_LETTERS:
                return None
            if letter == "e":
                programs.append(rest or following)
                step = 1 if rest else 2
                break
            if letter in _VALUE_LETTERS:
                value = rest if rest else following
                step = 1 if rest else 2
                if letter == "W":
                    if value is None:
                        return None
                    if any(
                        _long_reads_file(item.partition("=")[0]) is not False
                        or (
                            "=" not in item and _takes_next(item)
                        )  # gawk: ``-W assign a=1`` takes the next word
                        for item in value.split(",")
                    ):
                        return None
                break
            if letter in _OPTIONAL_LETTERS:
                break
        i += step
    if not programs:
        programs.append(args[i] if i < len(args) else "")
    return tuple(programs)
