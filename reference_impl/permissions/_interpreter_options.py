"""The file an interpreter runs, found by reading its options as the interpreter does (PERM-17).

``python3 -u a.py``, ``python3 -W ignore a.py``, ``python3 -X utf8 -- a.py``, ``node --no-warnings
index.js``, ``perl -w a.pl`` and ``bash -o errexit a.sh`` all run the script after their options: which
words are options, which of them take the next word as their value, where ``--`` ends them, and which
name inline code (``-c``, ``-e``) or a module (``-m``) is each interpreter's own grammar:

- python: ``python3 --help`` (the letters, ``-W``/``-X``/``--check-hash-based-pycs`` taking an argument);
- node: the mined catalogue (``program_grammar.json``, from ``node --help``);
- perl: ``perlrun`` (``-e``/``-E`` take the next word; ``-I``, ``-0``, ``-l``, ``-i``, ``-x`` ... take
  their value attached);
- the shells: ``bash --help`` and ``set``'s options (``-o``/``+o``/``-O``/``+O`` take a name).

An option this grammar does not know may take the next word or not: what runs is then *unknown*, and
the caller fails closed. The script word found is then resolved to the file the interpreter opens:
a directory runs its ``__main__.py`` (python) or its ``package.json`` ``main`` / ``index.js`` (node),
and node tries the extensions it knows for a name given without one.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from reference_impl.permissions._program_grammar import option_grammar

__all__ = ["InterpreterRun", "interpreter_run", "path_searched_script", "script_files"]

RunKind = Literal["script", "module", "inline", "input", "unknown"]


@dataclass(frozen=True, slots=True)
class InterpreterRun:
    """What an interpreter's command line runs.

    A script (its index among the arguments), a module, inline code, its input, or something its
    options leave unknown.
    """

    kind: RunKind
    at: int | None = None
    module: str | None = None
    code: tuple[str | None, ...] = ()
    """Inline code (``-c CODE``, each ``-e`` of perl): None for a word only known when it runs."""


@dataclass(frozen=True, slots=True)
class _Grammar:
    flags: str
    """Letters that take no value."""
    next_value: str
    """Letters whose value is attached or else the next word."""
    attached: str
    """Letters whose (optional) value is only ever attached."""
    inline: str
    module: str
    input_letters: str
    long_flags: frozenset[str]
    long_values: frozenset[str]
    long_inline: frozenset[str] = frozenset()
    prints: frozenset[str] = frozenset()
    """Options after which it prints and exits, running nothing."""
    plus: bool = False
    """The shells: ``+o name`` as ``-o name``."""


_PYTHON = _Grammar(
    flags="bBdEhiIOPqsSuvVxR?",
    next_value="WX",
    attached="",
    inline="c",
    module="m",
    input_letters="",
    long_flags=frozenset(),
    long_values=frozenset({"--check-hash-based-pycs"}),
    prints=frozenset(
        {"--help", "--version", "--help-env", "--help-xoptions", "--help-all", "-h", "-?", "-V"}
    ),
)
_PERL = _Grammar(
    flags="acfnpsStTuUvwWXh",
    next_value="I",
    attached="0lixCdDMmF",
    inline="eE",
    module="",
    input_letters="",
    long_flags=frozenset(),
    long_values=frozenset(),
    prints=frozenset({"-v", "-h", "-V"}),
)
_SHELL = _Grammar(
    flags="abefhkmnptuvxBCEHPTilrD",
    next_value="oO",
    attached="",
    inline="c",
    module="",
    input_letters="s",
    long_flags=frozenset(
        {
            "--norc",
            "--noprofile",
            "--posix",
            "--login",
            "--verbose",
            "--restricted",
            "--noediting",
            "--debugger",
            "--dump-strings",
            "--dump-po-strings",
            "--pretty-print",
            "--rpm-requires",
        }
    ),
    long_values=frozenset({"--rcfile", "--init-file"}),
    prints=frozenset({"--help", "--version"}),
    plus=True,
)
_SHELL_NAMES = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"})


def _family(name: str) -> str:
    return re.sub(r"[0-9.]+$", "", posixpath.basename(name))


def interpreter_run(name: str, args: Sequence[str | None]) -> InterpreterRun | None:
    """What ``name args`` runs, read by the interpreter's own option grammar; None for another program."""
    family = _family(name)
    if family in ("python", "pypy"):
        return _short_grammar(_PYTHON, args)
    if family == "perl":
        return _short_grammar(_PERL, args)
    if posixpath.basename(name) in _SHELL_NAMES:
        return _short_grammar(_SHELL, args)
    if family in ("node", "nodejs"):
        return _node(name, args)
    return None


def _short_grammar(grammar: _Grammar, args: Sequence[str | None]) -> InterpreterRun:
    i = 0
    while i < len(args):
        word = args[i]
        if word is None:
            return InterpreterRun("unknown")
        if word == "--":
            return InterpreterRun("script", i + 1) if i + 1 < len(args) else InterpreterRun("input")
        if word in grammar.prints:
            return InterpreterRun("inline")  # it prints and exits
        if (
            word == "-"
            or not (word.startswith("-") or (grammar.plus and word.startswith("+")))
            or len(word) < 2
        ):
            return InterpreterRun("input") if word == "-" else InterpreterRun("script", i)
        if word.startswith("--"):
            given = word.partition("=")[0]
            if given in grammar.long_inline:
                return InterpreterRun("inline")
            if given in grammar.long_values:
                i += 1 if "=" in word else 2
            elif word in grammar.long_flags:
                i += 1
            else:
                return InterpreterRun("unknown")
            continue
        step = 1
        for at, letter in enumerate(word[1:], start=1):
            rest = word[at + 1 :]
            if letter in grammar.inline:
                return InterpreterRun("inline", code=_inline_codes(grammar, args, i, rest))
            if letter in grammar.input_letters:
                return InterpreterRun("input")
            if letter in grammar.module:
                module = rest or (args[i + 1] if i + 1 < len(args) else None)
                return InterpreterRun("module", module=module) if module else InterpreterRun("unknown")
            if letter in grammar.next_value:
                step = 1 if rest else 2
                break
            if letter in grammar.attached:
                break
            if letter not in grammar.flags:
                return InterpreterRun("unknown")
        i += step
    return InterpreterRun("input")


def path_searched_script(name: str, args: Sequence[str | None]) -> str | None:
    """The script word ``name args`` may look up in PATH rather than the working directory, if any.

    ``source name``/``. name`` (bash's ``sourcepath``: PATH first), a shell's script operand (bash
    and ksh search PATH when the working directory has none), ``perl -S name``. A name with a slash
    is never searched. The file then run may be any PATH directory's, not only ``./name``.
    """
    base = posixpath.basename(name)
    if base in (".", "source"):
        operands = [a for a in args if a != "--"]
        word = operands[0] if operands else None
    else:
        run = interpreter_run(name, args)
        if run is None or run.kind != "script" or run.at is None or run.at >= len(args):
            return None
        word = args[run.at]
        if _family(name) == "perl" and not any(_perl_switch_s(a) for a in args[: run.at]):
            return None
    return word if word is not None and "/" not in word and not word.startswith("-") else None


def _perl_switch_s(word: str | None) -> bool:
    """Whether a perl switch cluster holds ``-S`` (before any letter whose value is the rest)."""
    if word is None or not word.startswith("-") or word.startswith("--"):
        return False
    for letter in word[1:]:
        if letter == "S":
            return True
        if letter in _PERL.attached or letter in _PERL.next_value:
            return False
    return False


def _inline_codes(
    grammar: _Grammar, args: Sequence[str | None], at: int, attached: str
) -> tuple[str | None, ...]:
    """The code of an inline option at ``args[at]`` and of any more that follow (perl's ``-e A -e B``)."""
    codes: list[str | None] = [attached or (args[at + 1] if at + 1 < len(args) else "")]
    at += 1 if attached else 2
    while at < len(args):
        word = args[at]
        if word is None or len(word) < 2 or word[0] != "-" or word[1] not in grammar.inline:
            break
        codes.append(word[2:] or (args[at + 1] if at + 1 < len(args) else ""))
        at += 1 if len(word) > 2 else 2
    return tuple(codes)


def _node(name: str, args: Sequence[str | None]) -> InterpreterRun:
    grammar = option_grammar(posixpath.basename(name)) or option_grammar("node")
    if grammar is None:
        return InterpreterRun("unknown")
    names, values, optional = grammar
    # The last ``-e``/``-p`` given is the code node runs (each one replaces the one before); the words
    # after the options are then its arguments, not a script.
    inline: InterpreterRun | None = None
    i = 0
    while i < len(args):
        word = args[i]
        if word is None:
            return InterpreterRun("unknown")
        if word == "--":
            if inline is not None:
                return inline
            return InterpreterRun("script", i + 1) if i + 1 < len(args) else InterpreterRun("input")
        if word == "-":
            return inline or InterpreterRun("input")
        if not word.startswith("-"):
            return inline or InterpreterRun("script", i)
        given, eq, _ = word.partition("=")
        option = names.get(given)
        if option is None:
            return InterpreterRun("unknown")
        if option in ("--eval", "--print", "-e", "-p"):
            value = word.partition("=")[2] if eq else (args[i + 1] if i + 1 < len(args) else "")
            inline = InterpreterRun("inline", code=(value,))
            i += 1 if eq else 2
            continue
        if option in ("--help", "--version", "-h", "-v"):
            return InterpreterRun("inline")
        if option == "--test":
            # The test runner runs every test file it finds (its operands, or node's default patterns
            # over the tree), each in its own process: files the line does not name.
            return InterpreterRun("unknown")
        i += 2 if option in values and not eq and option not in optional else 1
    return inline or InterpreterRun("input")


def script_files(runner: str, path: str, cwd: str) -> list[str]:
    """The files ``runner path`` may open as its program, relative to ``cwd`` as ``path`` is given.

    python: the file, or a directory's ``__main__.py``; node: the file, the name with an extension
    node tries, or a directory's ``package.json`` ``main`` (resolved the same way) or ``index.js``.
    Another program: the path itself.
    """
    family = _family(runner)
    full = posixpath.join(cwd, path)
    if family in ("python", "pypy"):
        return [posixpath.join(path, "__main__.py")] if posixpath.isdir(full) else [path]
    if family not in ("node", "nodejs"):
        return [path]
    return _node_files(path, cwd)


_NODE_EXTENSIONS = (".js", ".json", ".node", ".mjs", ".cjs")


def _node_files(path: str, cwd: str) -> list[str]:
    # As node's LOAD_AS_DIRECTORY: ``main`` is a file or a directory's index (whose own package.json node
    # does not read); a ``main`` found nowhere falls back to the directory's index.
    full = posixpath.join(cwd, path)
    found = _node_file(path, cwd)
    if found or not posixpath.isdir(full):
        return found or [path]
    main = _package_main(posixpath.join(full, "package.json"))
    if main:
        target = posixpath.join(path, main)
        found = _node_file(target, cwd) or _node_index(target, cwd)
        if found:
            return found
    return _node_index(path, cwd) or [posixpath.join(path, "index.js")]


def _node_file(path: str, cwd: str) -> list[str]:
    """``path`` or the name with the first extension node tries that is a file there ([]: none)."""
    return [
        p
        for p in (path, *(path + ext for ext in _NODE_EXTENSIONS))
        if posixpath.isfile(posixpath.join(cwd, p))
    ][:1]


def _node_index(path: str, cwd: str) -> list[str]:
    return [
        p
        for p in (posixpath.join(path, "index" + ext) for ext in (".js", ".json", ".node"))
        if posixpath.isfile(posixpath.join(cwd, p))
    ][:1]


def _package_main(package: str) -> str | None:
    try:
        with open(package, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    main = data.get("main") if isinstance(data, dict) else None
    return main if isinstance(main, str) and main else None
