"""The spellings of a command that shell rules are tried against, one view per side (PERM-11, PERM-16).

Derived from what bash would run (:func:`~reference_impl.permissions._bash_reader.split_command`),
computed once per command string and cached:

* :func:`allow_units`: the commands that must *each* be allowed. Harmless wrappers and plain
  environment assignments are stripped (``time``, ``nice``, ``timeout``, ``nohup``, ``stdbuf``,
  ``NODE_ENV=test``); any other wrapper (``sudo``, ``env``, ``xargs``, ``exec``, ``command``,
  ``find -exec``, ``bash -c``, ``eval``, ...) is a command of its own *and* its wrapped command
  must be allowed too. None when the command can't be allowed by rules at all.
* :func:`deny_forms`: every spelling a deny or ask rule is tried against: as written, after quote
  removal, with assignments and any wrapper (with its options) stripped, with a path-qualified
  name reduced to its basename, the scripts of ``bash -c`` / ``eval``; and whether some command
  is *opaque* (its name is an expansion), in which case every deny rule applies.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeAlias

from reference_impl.permissions._bash_reader import ShellCommand, ShellPart, split_command
from reference_impl.permissions._bash_words import is_globby
from reference_impl.permissions._code_targets import line_code
from reference_impl.permissions._descriptors import STDIN, descriptor_of
from reference_impl.permissions._evaluated import data_run_as_code
from reference_impl.permissions._interpreter_options import interpreter_run
from reference_impl.permissions._line_writes import Run, program_writes, unread_by_writes
from reference_impl.permissions._program_model import (
    is_interpreter,
    unread_program,
    without_git_display_options,
)
from reference_impl.permissions._programs import helper_commands, possible_helpers, program_scripts
from reference_impl.permissions._wrapped_commands import (
    HARMLESS_WRAPPERS,
    SCRIPT_BUILTINS,
    SHELLS,
    Argv,
    builtin_script,
    env_split,
    env_split_strings,
    find_commands,
    is_wrapper,
    reads_its_input,
    shell_script,
    unwrap,
    wrapped_candidates,
    wrapper_scripts,
)

__all__ = [
    "CD_UNIT",
    "AllowUnits",
    "DenyForms",
    "allow_candidates",
    "allow_units",
    "deny_candidates",
    "deny_forms",
    "script_operand",
    "shell_input",
]


_BARE_WORD = re.compile(r"[\w@%+=:,./~^*?\[\]{}-]+")


def _quote(word: str) -> str:
    if word and _BARE_WORD.fullmatch(word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def _quoted_form(argv: Argv, raw: tuple[str, ...]) -> str:
    """The words re-quoted so that a shell reads them back as these words (run-time words as written)."""
    return " ".join(r if v is None or is_globby(r) else _quote(v) for v, r in zip(argv, raw, strict=False))


def _plain_form(argv: Argv, raw: tuple[str, ...]) -> str:
    """The words after quote removal joined by spaces (run-time words as written)."""
    return " ".join(r if v is None else v for v, r in zip(argv, raw, strict=False))


def _raw_of(argv: Argv) -> tuple[str, ...]:
    return tuple("?" if v is None else v for v in argv)


def _name_unknown(argv: Argv) -> bool:
    return not argv or argv[0] is None


AllowUnits: TypeAlias = tuple[tuple[str, ...], ...]
"""The commands that must each be allowed, each as the forms an allow rule may match."""

CD_UNIT = "\x00cd\x00"
"""Marks a unit that only changes directory: its first element is this mark and the target.

No rule's pattern contains a NUL, so only a rule matching anything (``Bash(*)``) matches the mark.
"""


def _changed_directory(part: ShellPart) -> str | None:
    """The literal target of ``cd DIR`` (one word, no option, no expansion), else None."""
    argv, raw = part.argv, part.raw
    if part.assignments or len(argv) != 2 or argv[0] != "cd" or raw[0] != "cd":
        return None
    target = argv[1]
    if not target or target.startswith("-") or is_globby(raw[1]) or "$" in raw[1] or "`" in raw[1]:
        return None
    return target


def _may_write_before(parts: Sequence[ShellPart]) -> bool:
    """Whether a part before a ``cd`` may write files (a link planted for the ``cd`` to follow)."""
    for part in parts:
        if _changed_directory(part) is not None:
            continue
        if part.opaque or part.argv[0] is None:
            return True
        paths, why = program_writes(posixpath.basename(part.argv[0]), part.argv[1:])
        if paths or why is not None:
            return True
    return False


def _allow_argv(
    argv: Argv, raw: tuple[str, ...], depth: int, stdin: str | None = None
) -> list[tuple[str, ...]] | None:
    """Units for one command given as words: its own forms, then those of what it wraps."""
    if _name_unknown(argv) or depth > 8 or (raw and is_globby(raw[0])):
        return None
    forms = [_quoted_form(argv, raw)]
    name = argv[0]
    assert name is not None
    while name in HARMLESS_WRAPPERS:
        inner = unwrap(name, argv[1:])
        if inner is None or _name_unknown(inner):
            break
        raw = raw[len(argv) - len(inner) :] if len(raw) == len(argv) else _raw_of(inner)
        argv = inner
        name = argv[0]
        assert name is not None
        if is_globby(raw[0]):
            return None
        forms.append(_quoted_form(argv, raw))
    base = posixpath.basename(name)
    plain_git = without_git_display_options(argv) if base == "git" else None
    if plain_git is not None:
        forms.append(" ".join(str(word) for word in plain_git))
    units = [tuple(dict.fromkeys(forms))]
    args = argv[1:]
    if is_wrapper(base):
        # Not stripped (not harmless, written with a path, or options not understood): the
        # wrapper is a command of its own, and what it runs must be allowed too.
        if _looks_up(base, args):
            return units  # ``command -v x`` only looks a name up
        option_scripts, why = program_scripts(base, args)  # ``ssh -o ProxyCommand=...``
        if why is not None:
            return None
        for option_script in option_scripts:
            nested_units = allow_units(split_command(option_script), depth + 1)
            if nested_units is None:
                return None
            units.extend(nested_units)
        inner = unwrap(base, args)
        if inner is None:
            return None if args else units
        if base == "env" and env_split_strings(args):
            return None
        nested = _allow_argv(inner, _raw_of(inner), depth + 1, stdin)
        if nested is None:
            return None
        # A rule written for the wrapper command as written (``Bash(sudo systemctl *)``) covers what
        # it wraps too; a rule for the wrapped program alone still has to cover the wrapper itself.
        return units + [tuple(dict.fromkeys((*unit, *units[0]))) for unit in nested]
    if base in SHELLS:
        if not args and stdin is None:
            return units
        script = shell_script(args)
        if (
            script is None
            and stdin is not None
            and (reads_its_input(args) or all(a is not None and a.startswith("-") for a in args))
        ):
            script = stdin  # the shell runs its here-document
        if script is None:
            return units if all(a is not None and not a.startswith(("-", "+")) for a in args[:1]) else None
        nested_units = allow_units(split_command(script), depth + 1)
        return None if nested_units is None else units + list(nested_units)
    if base in SCRIPT_BUILTINS:
        script = builtin_script(base, args)
        if script is None:
            return None if args else units
        nested_units = allow_units(split_command(script), depth + 1)
        return None if nested_units is None else units + list(nested_units)
    if base == "find":
        for inner in find_commands(args):
            nested = _allow_argv(inner, _raw_of(inner), depth + 1)
            if nested is None:
                return None
            units.extend(nested)
    script, why = data_run_as_code(base, args, stdin)
    if why is not None:
        return None
    if script is not None:
        nested_units = allow_units(split_command(script), depth + 1)
        return None if nested_units is None else units + list(nested_units)
    return units


def allow_units(command: ShellCommand, depth: int = 0) -> AllowUnits | None:
    """The commands that must each be allowed for ``command`` to run (each as its candidate forms).

    None when no set of allow rules may allow it: a problem, a doubtful part, a wrapper whose
    options can't be parsed with certainty, or nothing to run.
    """
    if not command.confident or not command.parts or depth > 8:
        return None
    units: list[tuple[str, ...]] = []
    for part in command.parts:
        forms_here: list[str] = [part.text]
        argv, raw = part.argv, part.raw
        if part.assignments and not part.plain_assignments:
            units.append(
                tuple(dict.fromkeys([part.text, " ".join((*part.assignments, _quoted_form(argv, raw)))]))
            )
            continue  # an assignment that changes what runs: only a rule naming it can allow it
        if argv[:1] in (("test",), ("[",)) and not part.assignments:
            continue  # a test runs nothing (its subscripts are hidden code, caught by the reader)
        target = _changed_directory(part)
        if target is not None and not _may_write_before(command.parts[: command.parts.index(part)]):
            # ``cd build``: runs nothing; free when it stays in the working directories (decided
            # where those are known, :func:`~reference_impl.permissions._shell_rules.shell_allow_match`).
            units.append((CD_UNIT + target, part.text, _quoted_form(argv, raw)))
            continue
        found = _allow_argv(argv, raw, depth, part.stdin)
        if found is None:
            return None
        first = (*forms_here, *found[0])
        if part.assignments:
            first = (*first, " ".join((*part.assignments, found[0][0])))
        units.append(tuple(dict.fromkeys(first)))
        units.extend(found[1:])
    return tuple(units) if units else None  # only tests: nothing for a rule to allow


@dataclass(frozen=True, slots=True)
class DenyForms:
    """Every spelling of a command a deny or ask rule is tried against, and why it may be anything.

    ``opaque`` is why some command may be anything (a run-time name, a script only known when it
    runs): every deny rule may apply. ``unread`` are the commands the engine does not read
    (:func:`~reference_impl.permissions._program_model.unread_program`), each with why and the forms
    an allow rule naming that program may vouch for (the user's explicit trust of that form).
    """

    forms: frozenset[str]
    opaque: str | None
    unread: tuple[tuple[str, tuple[str, ...]], ...] = ()
    commands: frozenset[Argv] = frozenset()
    """Every command met, as words (the program by name): what rules read by its grammar are tried on."""
    possible: frozenset[str] = frozenset()
    """Programs a command may start depending on what the line doesn't show (git over ssh, tar's
    detected compression): a rule naming one may apply."""


class _Reading(set[str]):
    """The forms found so far, and the unread commands met on the way (see :class:`DenyForms`)."""

    def __init__(self) -> None:
        super().__init__()
        self.unread: list[tuple[str, tuple[str, ...]]] = []
        self.commands: set[Argv] = set()
        self.possible: set[str] = set()

    def note_unread(self, why: str, argv: Argv, raw: tuple[str, ...], written: Argv = ()) -> None:
        """``written``: the words as written (``./gradlew test``), which an allow rule may name too."""
        both = ((argv, raw), (written, _raw_of(written))) if written else ((argv, raw),)
        forms = tuple(dict.fromkeys(f for a, r in both for f in (_quoted_form(a, r), _plain_form(a, r))))
        self.unread.append((why, forms))

    def widen(self, start: int, argv: Argv, raw: tuple[str, ...]) -> None:
        """Add the wrapper's own forms to the unread commands noted since ``start`` (what it wraps)."""
        outer = (_quoted_form(argv, raw), _plain_form(argv, raw))
        for i in range(start, len(self.unread)):
            why, forms = self.unread[i]
            self.unread[i] = (why, tuple(dict.fromkeys((*forms, *outer))))


def _program_name(name: str) -> str:
    """The program a command name runs, as deny rules name it: ``/usr/bin/rm`` is ``rm``."""
    return posixpath.basename(name) or name


def _deny_env_split(args: Argv, forms: set[str], depth: int) -> str | None:
    """``env -S STRING``: its words go back into env's own arguments (``-S '-i rm x'`` is ``env -i rm x``)."""
    reason: str | None = None
    for script, after in env_split_strings(args):
        words = env_split(script) if script is not None else None
        if script is None or words is None:
            return "env -S with a string only known when it runs"
        # Both readings: env's own (its words as env's arguments again) and, stricter, a shell's.
        again: Argv = ("env", *words, *args[after:])
        reason = reason or _deny_argv(again, _raw_of(again), forms, depth + 1)
        reason = reason or _deny_command(split_command(script), forms, depth + 1)
    return reason


def _deny_argv(
    argv: Argv,
    raw: tuple[str, ...],
    forms: set[str],
    depth: int,
    stdin: str | None = None,
    *,
    exact: bool = True,
) -> str | None:
    """Add the forms of one command (words) to ``forms``; return a reason when it could be anything.

    ``exact`` is False for a guess at what a wrapper runs (one of its argument suffixes): its forms
    are added, but only the command the wrapper's parsed options name is judged as read or unread.
    """
    if depth > 8:
        return "wrappers nested too deeply"
    if _name_unknown(argv):
        return f"the command name {raw[0] if raw else '?'!r} is only known when bash runs it"
    if is_globby(raw[0]):
        return f"the command name {raw[0]!r} is a pattern bash expands"
    name = argv[0]
    assert name is not None
    base = _program_name(name)
    written = argv
    forms.add(_quoted_form(argv, raw))
    forms.add(_plain_form(argv, raw))
    if base != name:
        argv = (base, *argv[1:])
        raw = (base, *raw[1:])
        forms.add(_quoted_form(argv, raw))
        forms.add(_plain_form(argv, raw))
    if isinstance(forms, _Reading):
        forms.commands.add(tuple(argv))
        if written is not argv:
            forms.commands.add(tuple(written))  # ``./tool``: the file it names may be a link
    args = argv[1:]
    reason: str | None = None
    if is_wrapper(base):
        candidates: list[Argv] = []
        parsed = unwrap(base, args)
        if base == "xargs" and parsed:
            replace = _xargs_replace(args)
            if replace is not None:  # ``-I{}``: the input takes the place of each ``{}``
                inner: Argv | None = parsed
                while inner and inner[0] is not None and is_wrapper(_program_name(inner[0])):
                    inner = unwrap(_program_name(inner[0]), inner[1:])
                if inner and (inner[0] is None or replace in inner[0]):
                    return f"xargs puts its input where a command's name is ({replace!r})"
            elif parsed[0] is not None and is_wrapper(_program_name(parsed[0])):
                # ``echo nuke | xargs env``: xargs appends words read from its input, and the wrapper
                # it runs runs them as a command: which program is only known when it runs. What the
                # line itself shows runs for certain (``xargs nohup rm x``): its forms are read first,
                # so a deny of it is a deny, not a question.
                _deny_argv(parsed, _raw_of(parsed), forms, depth + 1, stdin, exact=exact)
                return f"xargs gives {_program_name(parsed[0])} a command read from its input"
        if parsed is not None:
            before = len(forms.unread) if isinstance(forms, _Reading) else 0
            reason = _deny_argv(parsed, _raw_of(parsed), forms, depth + 1, stdin, exact=exact)
            if isinstance(forms, _Reading):
                forms.widen(before, argv, raw)  # ``Bash(sudo systemctl *)`` names the wrapped command too
        elif exact and args and isinstance(forms, _Reading) and not _looks_up(base, args):
            forms.note_unread(f"{base}'s options are not ones the engine reads", argv, raw)
        candidates.extend(wrapped_candidates(args))
        if base == "env":
            reason = reason or _deny_env_split(args, forms, depth)
        for inner in dict.fromkeys(candidates):
            if inner != parsed:
                reason = reason or _deny_argv(inner, _raw_of(inner), forms, depth + 1, stdin, exact=False)
        for script in wrapper_scripts(base, args, parsed):
            if script is None:
                return f"{base} runs a script only known when bash runs it"
            reason = reason or _deny_command(split_command(script), forms, depth + 1)
        option_scripts, why = program_scripts(base, args)  # ``ssh -o ProxyCommand=...``
        if why is not None:
            return why
        for option_script in option_scripts:
            reason = reason or _deny_command(split_command(option_script), forms, depth + 1)
    elif base in SHELLS:
        script, why = shell_input(base, args, stdin)
        if why is not None:
            return why
        if script is not None:
            reason = _deny_command(split_command(script), forms, depth + 1)
        elif operands := _shell_operands(base, args):
            reason = _script_as_program(args, operands[0], forms, depth)
    elif base in SCRIPT_BUILTINS:
        script = builtin_script(base, args)
        if script is None and args:
            return f"{base} of a string only known when bash runs it"
        if script is not None:
            reason = _deny_command(split_command(script), forms, depth + 1)
    elif base == "find":
        for inner in find_commands(args):
            reason = reason or _deny_argv(inner, _raw_of(inner), forms, depth + 1, exact=exact)
    else:
        run = interpreter_run(base, args)
        if run is not None and run.kind == "script" and run.at is not None and run.at < len(args):
            reason = _script_as_program(args, args[run.at], forms, depth)  # ``python3 -u ./nuke``
        elif base in (".", "source") or (
            is_interpreter(base) and args[:1] and not str(args[0]).startswith("-")
        ):
            reason = _script_as_program(args, args[0] if args else None, forms, depth)
        script, why = data_run_as_code(base, args, stdin)
        if why is not None:
            return why
        if script is not None:
            reason = _deny_command(split_command(script), forms, depth + 1)
        if isinstance(forms, _Reading):
            forms.possible.update(possible_helpers(base, args))
        for helper in helper_commands(base, args):  # ``tar czf`` starts gzip, ``zcat`` is gzip
            reason = reason or _deny_command(split_command(helper), forms, depth + 1)
        unread = unread_program(base, args, stdin) if exact and isinstance(forms, _Reading) else None
        if unread is not None and isinstance(forms, _Reading):
            forms.note_unread(unread, argv, raw, written if written is not argv else ())
        # An interpreter's own code: what it runs by a literal name is a command of the line; a
        # program or code it names only when it runs may be anything (awk's is read with its options).
        code = line_code(base, args, stdin) if is_interpreter(base) else None
        if code is not None:
            if code.built is not None:
                return f"{base}'s code may run anything: {code.built}"
            for command in code.runs:
                reason = reason or _deny_command(split_command(command), forms, depth + 1)
    return reason


def script_operand(argv: Argv) -> tuple[str, ...] | None:
    """The script file a shell or an interpreter is given, with the words after it (``sh bin/nuke x``).

    A shell's first operand after its options when it is given no ``-c`` script; ``.``/``source``'s
    file; an interpreter's first word when it is not an option. None otherwise (or when unknown).
    """
    if not argv or argv[0] is None:
        return None
    base, args = _program_name(argv[0]), argv[1:]
    run = interpreter_run(base, args)
    if run is not None:
        # Read by the interpreter's own option grammar (``python3 -W ignore a.py``, ``bash -o x a.sh``).
        at = run.at if run.kind == "script" else None
    elif base in SHELLS:
        if shell_script(args) is not None:
            return None
        at = next((i for i, a in enumerate(args) if a is None or not a.startswith(("-", "+"))), None)
    elif base in (".", "source") or is_interpreter(base):
        at = 0 if args and args[0] is not None and not args[0].startswith("-") else None
    else:
        return None
    if at is None or at >= len(args) or args[at] is None or descriptor_of(str(args[at])) is not None:
        return None
    return tuple(str(a) if a is not None else "?" for a in args[at:])


def _shell_operands(base: str, args: Argv) -> list[str]:
    """A shell's operands (its script file first), read by its own option grammar (``bash -o x a.sh``)."""
    operands = [a for a in args if a is not None and not a.startswith(("-", "+"))]
    run = interpreter_run(base, args)
    if run is not None and run.kind != "unknown":
        operands = [str(a) for a in args[run.at :] if a is not None] if run.at is not None else []
    return operands


def shell_input(base: str, args: Argv, stdin: str | None) -> tuple[str | None, str | None]:
    """The code shell ``base`` runs from ``args`` or its input ``stdin`` (None: not known), or why it can't be known.

    ``(code, None)`` for ``sh -c CODE`` and for a shell that runs its input (no script file, ``-s``,
    ``/dev/stdin``) given a literal one; ``(None, None)`` when it runs a script file; ``(None, why)``
    when what it runs is only known when it runs (a run-time word, another descriptor, an input the
    line does not hold). One reading for the deny rules and the protected paths (PERM-15, PERM-17).
    """
    script = shell_script(args)
    if script is None and any(a is None for a in args):
        return None, f"{base} runs a script only known when bash runs it"
    if script is not None:
        return script, None
    operands = _shell_operands(base, args)
    if operands and descriptor_of(operands[0]) not in (None, STDIN):
        return None, f"{base} runs what the descriptor {operands[0]!r} holds, which the engine does not know"
    if reads_its_input(args) or not operands:
        # No script file (or ``-s``, ``/dev/stdin``): the shell runs its input.
        return (stdin, None) if stdin is not None else (None, f"{base} runs a script read from its input")
    return None, None


def _script_as_program(args: Argv, script: str | None, forms: set[str], depth: int) -> str | None:
    """A script file a shell or an interpreter runs (``sh bin/nuke``, ``. ./deploy.sh``) is that program.

    Its name is matched as a program's (``Bash(nuke:*)``, ``Bash(./deploy.sh:*)``), with the words
    after it, and the file it names is looked at as a program's is (a link to a denied program).
    """
    if script is None or descriptor_of(script) is not None:
        return None
    rest = args[args.index(script) + 1 :] if script in args else ()
    reason = None
    # A bare name is a file in the working directory to the shell, as ``./name`` is (no PATH lookup).
    for path in (script,) if "/" in script else (script, f"./{script}"):
        words = (path, *rest)
        reason = reason or _deny_argv(words, _raw_of(words), forms, depth + 1, exact=False)
    return reason


def _xargs_replace(args: Argv) -> str | None:
    """Xargs's replace string (``-I R``, ``-IR``, ``-i``/``--replace[=R]``, ``{}`` by default), or None."""
    for i, word in enumerate(args):
        if word is None or not word.startswith("-") or word == "--":
            return None
        if word == "-I":
            following = args[i + 1] if i + 1 < len(args) else None
            return following or "{}"
        if word.startswith("-I"):
            return word[2:]
        if word in ("-i", "--replace"):
            return "{}"
        if word.startswith(("-i", "--replace=")):
            return word.split("=", 1)[1] if "=" in word else word[2:]
    return None


def _looks_up(base: str, args: Argv) -> bool:
    """``command -v x``: the wrapper only looks a name up."""
    return base == "command" and any(
        a is not None and a.startswith("-") and ("v" in a or "V" in a) for a in args
    )


def _programs_run(argv: Argv) -> list[tuple[Argv, str]]:
    """The part's words and program name, then those of the commands its wrappers run (``sudo cp``)."""
    runs: list[tuple[Argv, str]] = []
    while argv and argv[0] is not None and len(runs) < 8:
        base = _program_name(argv[0])
        runs.append((argv, base))
        if base == "env":  # ``env -S 'bash f'``: the split string's words are a command too
            for script, _ in env_split_strings(argv[1:]):
                words = env_split(script) if script is not None else None
                if words:
                    runs.extend(_programs_run(words))
        inner = unwrap(base, argv[1:]) if is_wrapper(base) else None
        if not inner:
            break
        argv = inner
    return runs


def _deny_command(command: ShellCommand, forms: set[str], depth: int) -> str | None:
    if depth > 8:
        return "scripts nested too deeply"
    source = command.source.strip()
    if source:
        forms.add(source)
    if command.canonical:
        forms.add(command.canonical)
    reason: str | None = None
    joined: list[str] = []
    for part in command.parts:
        forms.add(part.text)
        joined.append(_plain_form(part.argv, part.raw))
        found = _deny_argv(part.argv, part.raw, forms, depth, part.stdin)  # always: it adds the forms
        if part.assignments and not part.plain_assignments and isinstance(forms, _Reading):
            # ``PATH=tools:$PATH ls``, ``ZIPOPT='-T -TT cmd' zip``: the program is looked up, or reads
            # options or commands, from what the line sets for it.
            names = ", ".join(a.split("=", 1)[0] for a in part.assignments)
            # Only a rule naming the assignments too vouches for it (``Bash(PATH=tools:$PATH ls)``).
            words = (*part.assignments, *part.argv)
            raw = (*part.assignments, *part.raw)
            forms.note_unread(f"the command is given {names}, which may change what it runs", words, raw)
        if found is not None and part.argv == (None,) and part.doubts:
            found = part.doubts[0]  # the reader's own words for what it could not read
        reason = reason or found
    if joined:
        forms.add(" ".join(joined))
    runs = [
        Run(argv, base, index, part.assignments)
        for index, part in enumerate(command.parts)
        for argv, base in _programs_run(part.argv)
    ]
    reason = reason or unread_by_writes(command, runs)
    if not isinstance(command.source, str) or (not command.parts and command.problems):
        reason = reason or "; ".join(command.problems) or "nothing recognisable"
    return reason


@lru_cache(maxsize=8192)
def deny_forms(command: str) -> DenyForms:
    """Every form of ``command`` a deny or ask rule is tried against, and whether it is opaque."""
    forms = _Reading()
    reason = _deny_command(split_command(command), forms, 0)
    return DenyForms(
        forms=frozenset(f for f in forms if f),
        opaque=reason,
        unread=tuple(forms.unread),
        commands=frozenset(forms.commands),
        possible=frozenset(forms.possible),
    )


def allow_candidates(part: ShellPart) -> tuple[str, ...]:
    """The forms of one part an allow rule may match (the first unit of the part; wrapped commands aside)."""
    found = _allow_argv(part.argv, part.raw, 0) if not part.doubts else None
    return (part.text,) if found is None else tuple(dict.fromkeys((part.text, *found[0])))


def deny_candidates(part: ShellPart) -> tuple[str, ...]:
    """Every form of one part a deny or ask rule is tried against."""
    forms: set[str] = {part.text}
    _deny_argv(part.argv, part.raw, forms, 0)
    return tuple(sorted(forms))
