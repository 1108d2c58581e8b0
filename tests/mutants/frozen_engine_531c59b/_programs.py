"""Programs that run a command given in one of their options, or in code of their own language.

``tar --to-command=CMD``, ``split --filter=CMD``, ``sort --compress-program=PROG``, ``git -c
alias.x='!CMD'`` (and the other settings git runs as commands), ``ssh -o ProxyCommand=CMD`` and
``make --eval`` run a shell command the line holds as data: it is judged as a script, like ``bash -c``
(PERM-16: a wrapper is a command too). ``awk``'s ``system("CMD")`` is such a script when its argument
is a plain string; an awk program that pipes to a command, or calls ``system`` on anything else, runs
something only known when it runs. So does a ``sed`` script with GNU sed's ``e`` command or flag, and
inline code of a general-purpose interpreter (``perl -e``, ``python3 -c``, ``node -e``, ...) that uses
what in its language starts a program. A program's code read from a file is unknown as well.

:func:`program_scripts` gives the scripts, or why what runs can't be known; the permission walk
judges the scripts as nested command lines and treats the unknown as it treats ``eval "$x"``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

__all__ = ["program_scripts"]

Words = Sequence[str | None]

# Settings whose value git runs as a shell command (case-insensitive, ``*`` any subsection).
_GIT_COMMAND_SETTINGS = re.compile(
    r"core\.(pager|editor|sshcommand|fsmonitor|askpass|hookspath)|sequence\.editor|pager\..+|"
    r"diff\.external|diff\..+\.(textconv|command)|merge\..+\.driver|filter\..+\.(clean|smudge|process)|"
    r"gpg(\..+)?\.program|credential(\..+)?\.helper|uploadpack\.packobjectshook|interactive\.difffilter|"
    r"sendemail\.(smtpserver|tocmd|cccmd)|web\.browser|browser\..+\.cmd|man\..+\.cmd|difftool\..+\.cmd|"
    r"mergetool\..+\.cmd|remote\..+\.(uploadpack|receivepack)",
    re.IGNORECASE,
)

# What starts a program (or loads code that may) in each interpreter's inline code.
_INTERPRETERS: dict[str, tuple[tuple[str, ...], re.Pattern[str]]] = {
    "python": (
        ("-c",),
        re.compile(r"\b(import|exec|eval|compile|open|getattr|globals|locals|vars|breakpoint)\b|__"),
    ),
    "perl": (
        ("-e", "-E"),
        re.compile(r"\b(system|exec|qx|open|fork|pipe|eval|do|require|use|syscall|readpipe)\b|`"),
    ),
    "ruby": (
        ("-e",),
        re.compile(
            r"\b(system|exec|spawn|fork|eval|require|load|open|IO|Kernel|Process|Open3|send|__send__|"
            r"public_send|instance_eval|class_eval|syscall)\b|`|%x"
        ),
    ),
    "node": (
        ("-e", "--eval", "-p", "--print"),
        re.compile(r"\b(require|import|process|eval|Function|globalThis|module|constructor)\b"),
    ),
    "php": (
        ("-r",),
        re.compile(
            r"\b(system|exec|shell_exec|passthru|proc_open|popen|pcntl_exec|eval|assert|include|require|"
            r"call_user_func|create_function|mail)\b|`"
        ),
    ),
    "lua": (("-e",), re.compile(r"\b(os|io|load|loadstring|dofile|require|package)\b")),
}
_INTERPRETER_NAMES = {
    "python": "python",
    "python2": "python",
    "python3": "python",
    "pypy": "python",
    "pypy3": "python",
    "perl": "perl",
    "ruby": "ruby",
    "node": "node",
    "nodejs": "node",
    "php": "php",
    "lua": "lua",
    "luajit": "lua",
}
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
# awk: ``system(`` with one plain double-quoted string, the only call whose command can be read.
_AWK_SYSTEM = re.compile(r'\bsystem\s*\(\s*"((?:[^"\\]|\\.)*)"\s*\)')


def _interpreter(name: str) -> str | None:
    base = re.sub(r"[0-9.]+$", "", name) if name.startswith(("python", "pypy", "lua")) else name
    return _INTERPRETER_NAMES.get(base) or _INTERPRETER_NAMES.get(name)


def _option_values(args: Words, short: str, long: str) -> tuple[list[str], bool]:
    """The values of ``-X VALUE``/``-XVALUE`` and ``--long=VALUE``/``--long VALUE``; whether one is unknown."""
    values: list[str] = []
    unknown = False
    for i, word in enumerate(args):
        following = args[i + 1] if i + 1 < len(args) else ""
        if word is None:
            continue
        if word == "--":
            break
        value: str | bool | None = False
        if long and word == f"--{long}":
            value = following
        elif long and word.startswith(f"--{long}="):
            value = word.split("=", 1)[1]
        elif short and word == short:
            value = following
        elif short and len(short) == 2 and word.startswith(short) and not word.startswith("--"):
            value = word[2:]
        if value is False:
            continue
        if value is None:
            unknown = True
        elif isinstance(value, str):
            values.append(value)
    return values, unknown


def _tar(args: Words) -> tuple[list[str], str | None]:
    scripts: list[str] = []
    unknown = False
    for short, long in (
        ("", "to-command"),
        ("-I", "use-compress-program"),
        ("-F", "info-script"),
        ("", "new-volume-script"),
    ):
        values, missing = _option_values(args, short, long)
        scripts += values
        unknown = unknown or missing
    actions, missing = _option_values(args, "", "checkpoint-action")
    unknown = unknown or missing
    scripts += [a.split("=", 1)[1] for a in actions if a.startswith("exec=")]
    return scripts, "tar runs a command only known at run time" if unknown else None


# Programs (and git subcommands) with one option whose value is a command: (short, long) spellings.
_COMMAND_OPTIONS = {"split": ("", "filter"), "sort": ("", "compress-program")}
_GIT_COMMAND_OPTIONS = {"rebase": ("-x", "exec"), "difftool": ("-x", "extcmd")}


def _command_option(what: str, args: Words, short: str, long: str) -> tuple[list[str], str | None]:
    values, unknown = _option_values(args, short, long)
    return values, f"{what} runs a command only known at run time" if unknown else None


def _joined(words: Words) -> str | None:
    """``words`` as one shell command line (None when one is only known at run time)."""
    if any(w is None for w in words):
        return None
    return " ".join(shlex.quote(str(w)) for w in words)


def _git_subcommand(name: str, args: Words) -> tuple[list[str], str | None]:
    """What a git subcommand runs: ``rebase -x``, ``bisect run``, ``submodule foreach``, filters, tools."""
    if name in _GIT_COMMAND_OPTIONS:
        return _command_option(f"git {name}", args, *_GIT_COMMAND_OPTIONS[name])
    if name in ("bisect", "submodule"):
        verb = "run" if name == "bisect" else "foreach"
        words = list(args)
        if verb in words:
            command = _joined(words[words.index(verb) + 1 :])
            return ([command], None) if command else ([], f"git {name} {verb} runs a command only known then")
    if name == "filter-branch":
        scripts: list[str] = []
        for i, word in enumerate(args):
            if word is not None and word.startswith("--") and word.endswith("-filter"):
                value = args[i + 1] if i + 1 < len(args) else ""
                if value is None:
                    return scripts, "git filter-branch runs a filter only known at run time"
                scripts.append(value)
        return scripts, None
    if name == "config" and any(w is None or str(w).lower().startswith("alias.") for w in args):
        # A command written into git's configuration runs when the alias is used, maybe on this line.
        return [], "git config writes an alias, a command git runs later"
    return [], None


def _git(args: Words) -> tuple[list[str], str | None]:
    scripts: list[str] = []
    for i, word in enumerate(args):
        if word is None:
            return scripts, "git is given a setting only known at run time"
        if not word.startswith("-"):
            if i == 0 or args[i - 1] not in ("-c", "-C", "--git-dir", "--work-tree", "--namespace"):
                more, why = _git_subcommand(word, args[i + 1 :])
                return scripts + more, why
            continue
        if word.startswith("--config-env"):
            return scripts, "git takes a setting from the environment"
        if word == "-c" or (word.startswith("-c") and len(word) > 2):
            setting = word[2:] if len(word) > 2 else (args[i + 1] if i + 1 < len(args) else "")
            if setting is None:
                return scripts, "git is given a setting only known at run time"
            key, _, value = setting.partition("=")
            if key.lower().startswith("alias.") and value.startswith("!"):
                scripts.append(value[1:])
            elif _GIT_COMMAND_SETTINGS.fullmatch(key):
                scripts.append(value)
    return scripts, None


def _ssh(args: Words) -> tuple[list[str], str | None]:
    scripts: list[str] = []
    values, unknown = _option_values(args, "-o", "")
    for value in values:
        parts = re.split(r"\s*=\s*|\s+", value, maxsplit=1)
        key, command = parts[0], parts[1] if len(parts) > 1 else ""
        if key.lower() in ("proxycommand", "localcommand", "knownhostscommand", "remotecommand"):
            scripts.append(command)
    return scripts, "ssh is given an option only known at run time" if unknown else None


def _awk(args: Words) -> tuple[list[str], str | None]:
    programs: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word is None:
            return [], "awk's program is only known at run time"
        if word == "--":
            i += 1
            break
        if word in ("-f", "-i", "-l", "-E") or word.startswith(("--file", "--include", "--load", "--exec")):
            return [], "awk runs a program read from a file"
        if word in ("-e", "--source"):
            source = args[i + 1] if i + 1 < len(args) else ""
            if source is None:
                return [], "awk's program is only known at run time"
            programs.append(source)
            i += 2
            continue
        if word.startswith("--source="):
            programs.append(word.split("=", 1)[1])
        elif word in ("-F", "-v", "-W"):
            i += 1  # the option's argument
        elif not word.startswith("-") or word == "-":
            break
        i += 1
    if not programs:
        program = args[i] if i < len(args) else ""
        if program is None:
            return [], "awk's program is only known at run time"
        programs.append(program)
    scripts: list[str] = []
    for program in programs:
        rest = _AWK_SYSTEM.sub("", program)
        if "|" in rest or "system" in rest or "@load" in rest:
            return [], "the awk program runs a command only known at run time"
        scripts += [re.sub(r"\\(.)", r"\1", m.group(1)) for m in _AWK_SYSTEM.finditer(program)]
    return scripts, None


# GNU sed's ``e``: a command (at the start of a command, after its address) or a flag of ``s``.
_SED_E_COMMAND = re.compile(r"(^|[;\n{}!]|[0-9$/])\s*e(\s|;|}|$)")
_SED_E_FLAG = re.compile(r"s(.)(?:(?!\1)[^\\]|\\.)*\1(?:(?!\1)[^\\]|\\.)*\1[gpiImMw0-9]*e")


def _sed(args: Words) -> tuple[list[str], str | None]:
    scripts, unknown = _option_values(args, "-e", "expression")
    files, file_unknown = _option_values(args, "-f", "file")
    if files or file_unknown:
        return [], "sed runs a script read from a file"
    if not scripts and not unknown:
        operands = [a for a in args if a is None or not a.startswith("-")]
        if operands and operands[0] is None:
            unknown = True
        elif operands:
            scripts = [str(operands[0])]
    if unknown:
        return [], "sed's script is only known at run time"
    for script in scripts:
        if _SED_E_COMMAND.search(script) or _SED_E_FLAG.search(script):
            return [], "the sed script runs a command (GNU sed's e)"
    return [], None


def program_scripts(name: str, args: Words, stdin: str | None = None) -> tuple[list[str], str | None]:
    """The shell commands program ``name`` runs from ``args``, and why more may run (or None).

    ``stdin`` is the text of its here-document or here-string, if it has one.
    """
    if name == "tar":
        return _tar(args)
    if name in _COMMAND_OPTIONS:
        return _command_option(name, args, *_COMMAND_OPTIONS[name])
    if name == "git":
        return _git(args)
    if name == "ssh":
        return _ssh(args)
    if name == "make":
        values, unknown = _option_values(args, "-E", "eval")
        if values or unknown:
            return [], "make runs the recipes of a makefile given on its command line"
        return [], None
    if name in _AWKS:
        return _awk(args)
    if name == "sed":
        return _sed(args)
    language = _interpreter(name)
    if language is not None:
        return _interpreter_code(name, language, args, stdin)
    return [], None


def _interpreter_code(
    name: str, language: str, args: Words, stdin: str | None
) -> tuple[list[str], str | None]:
    """Why an interpreter's code may start a program: inline code, or code read from its input."""
    options, pattern = _INTERPRETERS[language]
    if any(word in ("-V", "--version", "-h", "--help") for word in args):
        return [], None  # it prints and exits
    for i, word in enumerate(args):
        if word is None:
            return [], f"{name} is given code only known at run time"
        code = _inline_code(word, args[i + 1] if i + 1 < len(args) else "", options)
        if code is not False:
            if code is None or pattern.search(str(code)):
                return [], f"{name} runs code that may start any program"
            return [], None
        if word in ("-", "/dev/stdin"):
            break  # the program is its input
        if not word.startswith("-"):
            return [], None  # a script file and its arguments
    # No code on the line and no script file: the interpreter runs what its input holds.
    if stdin is None:
        return [], f"{name} runs code read from its input"
    if pattern.search(stdin):
        return [], f"{name} runs code from its input that may start any program"
    return [], None


# Flags without an argument that may come before the code option in one word (``python3 -Sc``, ``perl -ne``).
_CLUSTER_FLAGS = "bBdEhiIOPqsSuvVxnplawT"


def _inline_code(word: str, following: str | None, options: tuple[str, ...]) -> str | bool | None:
    """The code ``word`` (and the word after it) gives an interpreter, or False when it gives none.

    ``-c CODE``, ``-cCODE``, ``-Sc CODE`` (a cluster of flags ending in the option), ``--eval CODE``,
    ``--eval=CODE``.
    """
    for option in options:
        if option.startswith("--"):
            if word == option:
                return following
            if word.startswith(f"{option}="):
                return word.split("=", 1)[1]
            continue
        letter = option[1]
        match = re.fullmatch(rf"-[{_CLUSTER_FLAGS}]*{re.escape(letter)}(.*)", word, re.DOTALL)
        if match and not word.startswith("--"):
            return match.group(1) or following
    return False
