"""Bash builtins that run a command given in an option, read as bash's own getopt reads them (PERM-17).

``help`` (bash 5.2) documents, besides ``eval``, ``trap`` and ``source``:

* ``jobs -x command [args]``: runs the command;
* ``mapfile``/``readarray -C callback``: evaluates the callback every quantum lines;
* ``compgen``/``complete -C command``, ``-F function`` and ``-W wordlist`` (expanded: its
  ``$(...)`` runs); ``compgen`` runs them at once, ``complete`` when a completion is asked for;
* ``bind -x keyseq:shell-command``: runs the command when the key is read;
* ``fc``: runs an editor (``-e ename``, ``$FCEDIT``) and then the edited or re-run history commands;
* ``enable -f file``: loads a shared object (the bash reader treats ``enable`` as renaming builtins).

Their options are parsed as bash's ``internal_getopt`` parses them: letters clustered in one word
(``-tC nuke``), a value attached to its letter (``-Cnuke``) or in the next word, ``--`` ending the
options. The option strings are those of bash's ``builtins/*.def`` (``tests/test_builtin_options.py``
checks them against ``help -s`` of the machine's bash).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

__all__ = ["BUILTIN_OPTION_STRINGS", "builtin_commands", "builtin_options"]

BUILTIN_OPTION_STRINGS: dict[str, str] = {
    "jobs": "lpnxrs",
    "mapfile": "d:u:n:O:tC:c:s:",
    "readarray": "d:u:n:O:tC:c:s:",
    "compgen": "abcdefgjksuvo:A:G:W:P:S:X:F:C:",
    "complete": "abcdefgjksuvpro:A:G:W:P:S:X:F:C:DEI",
    "bind": "lvpVPsSXf:q:u:m:r:x:",
    "fc": "e:lnrs",
}
"""Per builtin that may run a command: its getopt option string (a letter, ``:`` when it takes a value)."""

Words = Sequence[str | None]


def builtin_options(name: str, args: Words) -> tuple[list[tuple[str, str | None]], int] | None:
    """The (letter, value) pairs bash's getopt reads from ``args``, and where the operands start.

    None when a word only known at run time may be an option (or an option's value is one: the
    value is then None). A letter bash does not know stops nothing here: it is kept, as bash
    would refuse the command (fail closed: whatever follows is still read).
    """
    spec = BUILTIN_OPTION_STRINGS[name]
    found: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word is None:
            return None
        if word == "--":
            return found, i + 1
        if not word.startswith("-") or word == "-":
            break
        if name == "fc" and word[1:].isdigit():
            break  # ``fc -5``: a history number, an operand
        j = 1
        while j < len(word):
            letter = word[j]
            at = spec.find(letter)
            if at >= 0 and spec[at + 1 : at + 2] == ":":
                if j + 1 < len(word):
                    found.append((letter, word[j + 1 :]))
                else:
                    i += 1
                    found.append((letter, args[i] if i < len(args) else ""))
                break
            found.append((letter, None))
            j += 1
        i += 1
    return found, i


def builtin_commands(name: str, args: Words) -> tuple[list[str], str | None]:
    """The shell commands builtin ``name`` runs with ``args``, or why they are only known when it runs."""
    if name not in BUILTIN_OPTION_STRINGS:
        return [], None
    parsed = builtin_options(name, args)
    if parsed is None:
        return [], f"{name} is given an option only known when it runs"
    options, operands = parsed
    letters = {letter for letter, _ in options}
    if name == "fc":
        if "l" in letters:
            return [], None  # it lists history entries
        return [], "fc runs an editor and then commands from the history, which the engine does not read"
    scripts: list[str] = []
    if name == "jobs" and "x" in letters:
        rest = args[operands:]
        if any(word is None for word in rest):
            return [], "jobs -x runs a command only known when it runs"
        scripts.append(shlex.join(str(word) for word in rest))
    for letter, value in options:
        runs = (
            (name in ("mapfile", "readarray") and letter == "C")
            or (name in ("compgen", "complete") and letter in "CF")
            or (name == "bind" and letter == "x")
        )
        expanded = name in ("compgen", "complete") and letter == "W"
        if not (runs or expanded):
            continue
        if value is None:
            return [], f"{name} -{letter} is given a command only known when it runs"
        if name == "bind":
            # ``keyseq:shell-command``; a keyseq holding a colon is not split by the engine.
            keyseq, colon, command = value.partition(":")
            if not colon or keyseq.count('"') % 2 or keyseq.count("'") % 2:
                return [], "bind -x is given a binding the engine does not split"
            value = command
        # The wordlist is expanded as words are (``-W '$(nuke)'`` runs nuke): read as a command's words.
        scripts.append(f": {value}" if expanded else value)
    return scripts, None
