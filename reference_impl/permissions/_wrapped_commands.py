"""The commands a command runs: wrappers, shells' scripts, ``eval``, ``find -exec`` (PERM-16, PERM-17).

A wrapper (``sudo``, ``env``, ``timeout``, ``xargs``, ``flock``, ``ssh``, ...) runs the command in
its arguments: :func:`unwrap` finds it by parsing the wrapper's options exactly, and is None when
unsure. ``env -S STRING`` splits its string into words as GNU env does (:func:`env_split`); a shell
runs its ``-c`` script or its input; ``eval`` and ``trap`` run their arguments; ``find -exec`` its
command. These work on words after quote removal (:data:`Argv`); judging what they find is
:mod:`~reference_impl.permissions._shell_forms`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeAlias

from reference_impl.permissions._descriptors import STDIN, descriptor_of

__all__ = [
    "HARMLESS_WRAPPERS",
    "SCRIPT_BUILTINS",
    "SHELLS",
    "Argv",
    "builtin_script",
    "env_split",
    "env_split_strings",
    "find_commands",
    "is_wrapper",
    "reads_its_input",
    "shell_script",
    "unwrap",
    "wrapped_candidates",
    "wrapper_directories",
    "wrapper_scripts",
]

Argv: TypeAlias = tuple[str | None, ...]
"""A command's words after quote removal, ``None`` for a word only known at run time."""

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")


@dataclass(frozen=True, slots=True)
class _Wrapper:
    harmless: bool
    flags: str = ""  # short options without an argument
    with_argument: str = ""  # short options taking one
    long_with_argument: frozenset[str] = frozenset()
    long_flags: frozenset[str] = frozenset()
    positionals: int = 0  # words before the command (timeout's duration)
    assignments: bool = False  # NAME=value words before the command (env, sudo)
    numeric_option: bool = False  # ``nice -5``
    default: tuple[str, ...] = ()  # the command run when none is given (xargs: echo)
    script_option: str = ""  # short options whose argument is a shell script (``su -c``, ``flock -c``)
    script_words: bool = False  # the command's words are joined into a script (``watch``, ``ssh``)
    chdir: str = ""  # short options whose argument is the directory the command runs in (``env -C``)
    long_chdir: frozenset[str] = frozenset()
    moves: bool = False  # runs the command in a directory of its own choosing (chroot, a login shell)


HARMLESS_WRAPPERS = frozenset({"time", "nice", "timeout", "nohup", "stdbuf"})
"""Wrappers that only change how their command runs (Claude Code strips them before matching)."""

_WRAPPERS: dict[str, _Wrapper] = {
    "time": _Wrapper(
        True, flags="apqv", with_argument="fo", long_with_argument=frozenset({"format", "output"})
    ),
    "nice": _Wrapper(
        True, with_argument="n", long_with_argument=frozenset({"adjustment"}), numeric_option=True
    ),
    "timeout": _Wrapper(
        True,
        flags="v",
        with_argument="sk",
        long_with_argument=frozenset({"signal", "kill-after"}),
        long_flags=frozenset({"preserve-status", "foreground", "verbose"}),
        positionals=1,
    ),
    "nohup": _Wrapper(True),
    "stdbuf": _Wrapper(True, with_argument="ioe", long_with_argument=frozenset({"input", "output", "error"})),
    "env": _Wrapper(
        False,
        flags="i0v",
        with_argument="uCS",
        long_with_argument=frozenset({"unset", "chdir", "split-string"}),
        long_flags=frozenset({"ignore-environment", "null", "debug"}),
        assignments=True,
        chdir="C",
        long_chdir=frozenset({"chdir"}),
    ),
    "sudo": _Wrapper(
        False,
        flags="AbEeHiKklnPSsVv",
        with_argument="ugpCDhrtUTR",
        long_with_argument=frozenset(
            {"user", "group", "prompt", "close-from", "chdir", "role", "type", "other-user", "host", "chroot"}
        ),
        long_flags=frozenset({"preserve-env", "login", "non-interactive", "shell", "background", "set-home"}),
        assignments=True,
        chdir="D",
        long_chdir=frozenset({"chdir"}),
    ),
    "doas": _Wrapper(False, flags="nSs", with_argument="uC"),
    "xargs": _Wrapper(
        False,
        flags="0prtxo",
        with_argument="adEILnPs",
        long_with_argument=frozenset(
            {"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars"}
        ),
        long_flags=frozenset({"null", "no-run-if-empty", "verbose", "interactive", "exit", "open-tty"}),
        default=("echo",),
    ),
    "exec": _Wrapper(False, flags="cl", with_argument="a"),
    "command": _Wrapper(False, flags="p"),
    "builtin": _Wrapper(False),
    "setsid": _Wrapper(False, flags="cfw", long_flags=frozenset({"ctty", "fork", "wait"})),
    "ionice": _Wrapper(False, flags="t", with_argument="cnp"),
    "chroot": _Wrapper(
        False, long_with_argument=frozenset({"userspec", "groups"}), positionals=1, moves=True
    ),
    "unbuffer": _Wrapper(False),
    "caffeinate": _Wrapper(False, flags="dimsu", with_argument="tw"),
    # Programs whose documented job is to run their arguments as a command (or a script).
    "flock": _Wrapper(False, flags="sexunoF", with_argument="wEc", positionals=1, script_option="c"),
    "taskset": _Wrapper(False, flags="acp", positionals=1),
    "chrt": _Wrapper(False, flags="abdfiormpvRe", with_argument="TPD", positionals=1),
    "unshare": _Wrapper(False, flags="imnpuUCTrfc", with_argument="S G"),
    "nsenter": _Wrapper(False, flags="aimnpuUCTFZ", with_argument="tSGrwe", chdir="w"),
    "su": _Wrapper(False, flags="lmpPfw", with_argument="cgGs", positionals=1, script_option="c"),
    "runuser": _Wrapper(False, flags="lmpPfw", with_argument="cgGsu", script_option="c"),
    "sg": _Wrapper(False, positionals=1, with_argument="c", script_option="c"),
    "script": _Wrapper(False, flags="aefqtkw", with_argument="cEIOTBm", script_option="c"),
    "watch": _Wrapper(False, flags="bcdeghprtwx", with_argument="nq", script_words=True),
    "strace": _Wrapper(False, flags="cCdDfFhiqrtTvVwxXyYzZk", with_argument="abeEIoOpPsSuU"),
    "ltrace": _Wrapper(False, flags="bcCfhiLrStTV", with_argument="aAeFlnopsuwDx"),
    "pkexec": _Wrapper(
        False, long_with_argument=frozenset({"user"}), long_flags=frozenset({"keep-cwd"}), moves=True
    ),
    "firejail": _Wrapper(False),
    "systemd-run": _Wrapper(False, flags="GPqrSt", with_argument="MpEuH", moves=True),
    "valgrind": _Wrapper(False, flags="qv"),
    "parallel": _Wrapper(False, flags="0kqtuv", with_argument="jnNSdI"),
    "busybox": _Wrapper(False),  # ``busybox rm x`` runs the ``rm`` applet
    "toybox": _Wrapper(False),
    # A reserved word the grammar reads as a command name: ``coproc [NAME] command``.
    "coproc": _Wrapper(False),
    "ssh": _Wrapper(
        False,
        flags="46AaCfGgKkMNnqsTtVvXxYy",
        with_argument="BbcDEeFIiJLlmOopQRSWw",
        positionals=1,
        script_words=True,
    ),
}
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})

# env's long options as GNU getopt reads them (an unambiguous prefix names one): whether each takes
# an argument (True), an optional one given with ``=`` ("optional") or none (False).
_ENV_LONG_OPTIONS: dict[str, bool | str] = {
    "ignore-environment": False,
    "null": False,
    "unset": True,
    "chdir": True,
    "split-string": True,
    "block-signal": "optional",
    "default-signal": "optional",
    "ignore-signal": "optional",
    "list-signal-handling": False,
    "debug": False,
    "help": False,
    "version": False,
}


def env_split_strings(args: Argv) -> list[tuple[str | None, int]]:
    """Each string ``env`` splits into words (``-S``), however spelled, and the index of the word after it.

    ``-S 'rm x'``, ``-S'rm x'``, ``-vS'rm x'``, ``-iS 'rm x'``, ``--split-string='rm x'``,
    ``--split-string 'rm x'`` and its abbreviations (``--split=``, ``--s=``) all split ``rm x``.
    None for a string only known at run time.
    """
    found: list[tuple[str | None, int]] = []
    i = 0
    while i < len(args):
        word = args[i]
        following = args[i + 1] if i + 1 < len(args) else ""
        if word is None:
            found.append((None, i + 1))  # an option only known at run time may be -S
            break
        if word == "--" or not word.startswith("-"):
            break  # options end at the first assignment or command word
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            exact = [o for o in _ENV_LONG_OPTIONS if o == name]
            matches = exact or [o for o in _ENV_LONG_OPTIONS if name and o.startswith(name)]
            if len(matches) != 1:
                break  # unknown or ambiguous: env refuses to run anything
            takes = _ENV_LONG_OPTIONS[matches[0]]
            step = 2 if takes is True and not eq else 1
            if matches[0] == "split-string":
                found.append((value if eq else following, i + step))
            i += step
            continue
        step = 1
        for j in range(1, len(word)):
            if word[j] in "uCS":
                attached = j + 1 < len(word)
                step = 1 if attached else 2
                if word[j] == "S":
                    found.append((word[j + 1 :] if attached else following, i + step))
                break
        i += step
    return found


_ENV_ESCAPES = {
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "#": "#",
    "$": "$",
}


def env_split(text: str) -> tuple[str, ...] | None:
    r"""The words ``env -S`` makes of ``text`` (GNU coreutils' rules), or None when only known at run time.

    Blanks and ``\_`` outside quotes separate words; single quotes keep everything but ``\\`` and
    ``\'``; double quotes and bare text take the escapes ``\f \n \r \t \v \\ \" \' \# \$``
    (``\_`` is a space inside double quotes); ``\c`` ends the string; ``#`` starting a word starts
    a comment. ``${NAME}`` is the environment's, known only at run time (None), as is any other
    escape (env refuses the string).
    """
    words: list[str] = []
    word: list[str] | None = None
    quote = ""
    i = 0
    while i < len(text):
        char = text[i]
        if quote == "'":
            if char == "'":
                quote = ""
            elif char == "\\" and text[i + 1 : i + 2] in ("\\", "'"):
                i += 1
                word = word or []
                word.append(text[i])
            else:
                word = word or []
                word.append(char)
            i += 1
            continue
        if char == "$" and text[i + 1 : i + 2] == "{":
            return None
        if char == "\\":
            code = text[i + 1 : i + 2]
            if code == "c":
                break
            if code == "_":
                if quote:
                    word = word or []
                    word.append(" ")
                elif word is not None:
                    words.append("".join(word))
                    word = None
            elif code in _ENV_ESCAPES:
                word = word or []
                word.append(_ENV_ESCAPES[code])
            else:
                return None
            i += 2
            continue
        if quote == '"':
            if char == '"':
                quote = ""
            else:
                word = word or []
                word.append(char)
        elif char in " \t\n\v\f\r":
            if word is not None:
                words.append("".join(word))
                word = None
        elif char == "#" and word is None:
            break
        elif char in "'\"":
            quote = char
            word = word or []
        else:
            word = word or []
            word.append(char)
        i += 1
    if quote:
        return None  # env refuses an unterminated quote: nothing runs, but say so rather than guess
    if word is not None:
        words.append("".join(word))
    return tuple(words)


def wrapper_directories(name: str, args: Argv) -> list[str | None]:
    """The directories a wrapper's options run its command in (``env -C d``, ``sudo --chdir=d``); None: unknown.

    Paths on the wrapped command's line resolve there. A wrapper that picks a directory of its own
    (``chroot``, ``pkexec``, ``systemd-run``, ``su -``/``sudo -i`` login shells) gives an unknown one.
    """
    spec = _WRAPPERS.get(name)
    if spec is None:
        return []
    if spec.moves or (name in ("su", "runuser") and any(w in ("-", "-l", "--login") for w in args)):
        return [None]
    found: list[str | None] = []
    skip = False
    for index, word in enumerate(args):
        following = args[index + 1] if index + 1 < len(args) else None
        if skip:
            skip = False
            continue
        if word is None or word == "--":
            break
        if word.startswith("--"):
            option, equals, value = word[2:].partition("=")
            skip = not equals and option in spec.long_with_argument
            if option in spec.long_chdir:
                found.append(value if equals else following)
        elif word.startswith("-") and len(word) > 1:
            at = next((i for i, letter in enumerate(word[1:], 1) if letter in spec.with_argument), None)
            skip = at is not None and at == len(word) - 1
            if at is not None and word[at] in spec.chdir:
                found.append(word[at + 1 :] or following)
            elif name == "sudo" and at is None and "i" in word[1:]:
                return [None]  # a login shell starts in the target user's home
        elif not (spec.assignments and _ASSIGNMENT.match(word)):
            break  # the command itself
    return found


def unwrap(name: str, args: Argv) -> Argv | None:
    """The command a wrapper runs, parsing its options exactly; None when unsure (or none is run)."""
    spec = _WRAPPERS[name]
    i = 0
    positionals = spec.positionals
    while i < len(args):
        word = args[i]
        if word is None:
            return None
        if word == "--":
            i += 1
            break
        if (spec.assignments and _ASSIGNMENT.match(word)) or (
            spec.numeric_option and re.fullmatch(r"--?[0-9]+", word)
        ):
            i += 1
        elif word.startswith("--") and len(word) > 2:
            option, eq, _ = word[2:].partition("=")
            if option in spec.long_with_argument:
                i += 1 if eq else 2
            elif option in spec.long_flags:
                i += 1
            else:
                return None
        elif word.startswith("-") and len(word) > 1:
            j = 1
            step = 1
            while j < len(word):
                letter = word[j]
                if letter in spec.with_argument:
                    step = 1 if j + 1 < len(word) else 2
                    break
                if letter not in spec.flags:
                    return None
                j += 1
            if name == "command" and ("v" in word or "V" in word):
                return None
            i += step
        elif positionals:
            positionals -= 1
            i += 1
        else:
            break
    rest = args[i:]
    if positionals:
        return None
    if not rest:
        return spec.default or None
    return rest


def is_wrapper(name: str) -> bool:
    """Whether ``name`` (a program's basename) runs a command given in its arguments."""
    return name in _WRAPPERS


def wrapper_scripts(name: str, args: Argv, command: Argv | None) -> Iterator[str | None]:
    """The shell scripts wrapper ``name`` runs: its ``-c SCRIPT`` option, or its command's words joined.

    None for a script only known at run time.
    """
    spec = _WRAPPERS[name]
    if spec.script_option:
        for i, word in enumerate(args):
            if word is None or word == "--":
                break
            if word.startswith("-") and not word.startswith("--") and len(word) > 1:
                letters = word[1:]
                hit = next((k for k, c in enumerate(letters) if c in spec.script_option), None)
                if hit is None:
                    continue
                if hit + 1 < len(letters):
                    yield letters[hit + 1 :]
                else:
                    yield args[i + 1] if i + 1 < len(args) else ""
            elif word.startswith("--command="):
                yield word.partition("=")[2]
    if spec.script_words and command is not None:
        yield None if any(w is None for w in command) else " ".join(w for w in command if w is not None)


def wrapped_candidates(args: Argv) -> Iterator[Argv]:
    """Every way ``args`` could hold a wrapped command: each suffix that starts with a plain word."""
    for i, word in enumerate(args):
        if word is None:
            yield args[i:]
            return
        if not word.startswith("-") and not _ASSIGNMENT.match(word):
            yield args[i:]


def shell_script(args: Argv) -> str | None:
    """The script of ``sh -c SCRIPT`` (options before it allowed); None when it is not that form."""
    command_string = False
    i = 0
    while i < len(args):
        word = args[i]
        if word is None:
            return None
        if word in ("-o", "+o", "-O", "+O"):
            i += 2
            continue
        if word.startswith("--"):
            i += 1
            continue
        if word.startswith(("-", "+")) and len(word) > 1:
            command_string = command_string or "c" in word[1:]
            i += 1
            continue
        return word if command_string else None
    return None


def reads_its_input(args: Argv) -> bool:
    """Whether a shell given ``args`` runs its standard input: ``-s``, or ``/dev/stdin`` as its script."""
    for word in args:
        if word is None:
            return False
        if word == "--":
            continue
        if word.startswith("-") and not word.startswith("--") and len(word) > 1:
            if "s" in word[1:]:
                return True
            continue
        return descriptor_of(word) == STDIN
    return False


SCRIPT_BUILTINS = frozenset({"eval", "trap"})


def builtin_script(name: str, args: Argv) -> str | None:
    """The script ``eval`` (its arguments joined) or ``trap`` (its first argument) runs."""
    if any(a is None for a in args):
        return None
    words = [a for a in args if a is not None]
    if name == "eval":
        return " ".join(words)
    words = words[1:] if words[:1] == ["--"] else words
    if not words or words[0].startswith("-"):
        return "" if not words or words[0] in ("-l", "-p") else None
    return words[0]


def find_commands(args: Argv) -> list[Argv]:
    """The commands ``find`` runs with ``-exec``, ``-execdir``, ``-ok`` and ``-okdir``."""
    found: list[Argv] = []
    i = 0
    while i < len(args):
        if args[i] in _FIND_EXEC:
            j = i + 1
            while j < len(args) and args[j] not in (";", "+"):
                j += 1
            found.append(args[i + 1 : j])
            i = j
        i += 1
    return found
