"""Protected paths: files and directories never written without asking, whatever the mode (PERM-15).

Files that make code run later or configure the harness, git or a shell (``.git``, ``.claude``,
``.bashrc``, ``.mcp.json``, ...), however the path is spelled; a shell command's output
redirections and every path a program may change as named on its line count as writes: any
program the engine can't prove changes no named file (``tee F``, ``cp a F``, ``curl -oF``,
``chmod +x F``, one it does not know), through wrappers, ``find -exec``, ``sh -c`` and ``eval``,
in every directory the line may have moved to. An allow rule naming the program grants running
it, never writing a protected file (a blanket grant is no grant of a protected path).
"""

from __future__ import annotations

import os
import posixpath
import stat
from pathlib import Path

from reference_impl.permissions._bash_reader import ShellCommand, split_command
from reference_impl.permissions._bash_words import is_globby
from reference_impl.permissions._code_targets import CodeTargets, code_language, line_code
from reference_impl.permissions._line_writes import program_targets
from reference_impl.permissions._paths import lexical_path, resolved_path
from reference_impl.permissions._program_model import is_interpreter
from reference_impl.permissions._python_resolution import SITE_DIRECTORIES, STARTUP_MODULES
from reference_impl.permissions._rules import Call
from reference_impl.permissions._shell_parts import SYNTAX_ERROR, ShellPart
from reference_impl.permissions._wrapped_commands import (
    SCRIPT_BUILTINS,
    SHELLS,
    builtin_script,
    find_commands,
    is_wrapper,
    shell_script,
    unwrap,
)

__all__ = ["PROTECTED_DIRECTORIES", "PROTECTED_FILES", "protected_reason", "protected_write"]

PROTECTED_DIRECTORIES = frozenset({".git", ".claude", ".vscode", ".idea", ".husky"})
"""Directories whose files are never edited without asking, whatever the mode (PERM-15)."""

PROTECTED_FILES = frozenset(
    {".mcp.json", ".gitmodules", ".gitconfig", ".gitattributes", ".bashrc", ".bash_profile", ".bash_login"}
    | {".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".envrc", ".npmrc"}
    | {".pypirc", ".netrc", ".inputrc", ".tcshrc", ".cshrc", ".kshrc", ".config/fish/config.fish"}
)
"""Files that make code run later, or configure the harness, git or a shell (PERM-15)."""


def protected_reason(path: str, cwd: Path) -> str | None:
    """Why writing ``path`` (any spelling; both its lexical and resolved forms) must be asked about."""
    try:
        forms = {lexical_path(path, cwd), resolved_path(path, cwd)}
    except (OSError, ValueError):
        return f"the path {path!r} can't be resolved"
    for form in forms:
        segments = form.split("/")
        hit = PROTECTED_DIRECTORIES.intersection(segments[:-1]) or PROTECTED_DIRECTORIES.intersection(
            segments[-1:]
        )
        if hit:
            return f"{path} is inside the protected directory {sorted(hit)[0]}"
        if segments[-1] in PROTECTED_FILES or "/".join(segments[-3:]) in PROTECTED_FILES:
            return f"{path} is a protected file ({segments[-1]})"
        # Python's startup code: a site directory's .pth files and modules (Python runs the one at every
        # start and imports the others before the next directory's), sitecustomize and usercustomize.
        site = SITE_DIRECTORIES.intersection(segments)
        if site:
            return f"{path} is in a Python site directory ({sorted(site)[0]}), whose code Python loads"
        if segments[-1] in STARTUP_MODULES:
            return f"{path} is a module Python imports at startup ({segments[-1]})"
    try:
        status = os.stat(resolved_path(path, cwd))
    except (OSError, ValueError):
        return None  # a new file has no other name
    if stat.S_ISREG(status.st_mode) and status.st_nlink > 1:
        # A hard link has a name of its own: the file may be ``.git/config`` under another name.
        return f"{path} has {status.st_nlink} names (hard links), and another may be a protected file"
    return None


# What changes the shell's own directory: its builtins, and what runs shell code in the shell itself.
_DIRECTORY_CHANGERS = frozenset({"cd", "pushd", "popd", "eval", "source", "."})
# Words that run the builtin named after them (with their options): ``builtin cd``, ``command -- cd``.
_BUILTIN_RUNNERS = frozenset({"builtin", "command"})


def _may_change_directory(part: ShellPart) -> bool:
    """Whether this command may change the directory the rest of the line runs in.

    It may unless its program is known and is none of :data:`_DIRECTORY_CHANGERS`, however it is
    reached through ``builtin`` and ``command``: a program only known at run time (``$c``, ``$(echo
    cd)``, a glob) may be ``cd``.
    """
    if part.opaque:
        return True
    words = list(part.argv)
    while words and words[0] in _BUILTIN_RUNNERS:
        words.pop(0)
        while words and words[0] is not None and words[0].startswith("-"):
            if words.pop(0) == "--":
                break
    return bool(words) and (words[0] is None or words[0] in _DIRECTORY_CHANGERS)


def _as_known(part: ShellPart) -> tuple[str | None, ...]:
    """The part's words, a glob (``tee -a .bashr?``) or brace as ``None``: what it names is known when it runs."""
    if len(part.raw) != len(part.argv):
        return part.argv
    return tuple(
        None if word is not None and is_globby(raw) else word
        for word, raw in zip(part.argv, part.raw, strict=True)
    )


def _move_target(part: ShellPart) -> str | None:
    """Where a change of directory leads, as written (``~`` for ``cd`` alone); None when not known."""
    words = list(_as_known(part))
    while words and words[0] in _BUILTIN_RUNNERS:
        words.pop(0)
        while words and words[0] is not None and words[0].startswith("-"):
            if words.pop(0) == "--":
                break
    if not words or words[0] not in ("cd", "pushd"):
        return None  # popd, eval, source, a program only known at run time
    operands = words[1:]
    while operands and operands[0] in ("-L", "-P", "-e", "-@", "-n", "--"):
        if operands.pop(0) == "--":
            break
    if not operands:
        return "~" if words[0] == "cd" else None
    target = operands[0]
    if target is None or target.startswith(("-", "+")):
        return None  # ``cd -``, ``pushd +1``: a directory of the stack
    return target


_MOST_DIRECTORIES = 32


def _directories(command: ShellCommand, directories: list[str] | None) -> list[str] | None:
    """Every directory a part of the line may run in (absolute), or None when one is not known."""
    if directories is None:
        return None
    found = list(directories)
    for part in command.parts:
        if not _may_change_directory(part):
            continue
        target = _move_target(part)
        if target is None:
            return None
        if target.startswith(("/", "~")):
            moved = [lexical_path(target, Path("/"))]
        else:
            moved = [posixpath.join(directory, target) for directory in found]
        found = list(dict.fromkeys((*found, *moved)))
        if len(found) > _MOST_DIRECTORIES:
            return None
    return found


def _scripts(argv: tuple[str | None, ...]) -> list[str | None]:
    """The shell code a command runs (``sh -c S``, ``eval S``), through wrappers and ``find -exec``."""
    scripts: list[str | None] = []
    for _ in range(8):
        if not argv or argv[0] is None:
            break
        base, args = posixpath.basename(argv[0]), argv[1:]
        if base in SHELLS:
            script = shell_script(args)
            scripts.append(None if script is None and None in args else script)
        elif base in SCRIPT_BUILTINS:
            script = builtin_script(base, args)
            scripts.append(None if script is None and None in args else script)
        elif base == "find":
            for command in find_commands(args):
                scripts.extend(_scripts(command))
        inner = unwrap(base, args) if is_wrapper(base) else None
        if not inner:
            break
        argv = inner
    return [s for s in scripts if s != ""]


def _interpreter_code(part: ShellPart) -> CodeTargets | None:
    """What an interpreter's inline code (or here-document) in this command writes and runs, through wrappers."""
    argv = part.argv
    for _ in range(8):
        if not argv or argv[0] is None:
            return None
        base, args = posixpath.basename(argv[0]), argv[1:]
        if is_interpreter(base) or code_language(base) is not None:
            return line_code(base, args, part.stdin)
        inner = unwrap(base, args) if is_wrapper(base) else None
        if not inner:
            return None
        argv = inner
    return None


def _line_reason(command: ShellCommand, directories: list[str] | None, cwd: Path, depth: int) -> str | None:
    """Why this line (run in any of ``directories``, None: not known) may write a protected path."""
    if SYNTAX_ERROR in command.problems:
        # The grammar could not read all of it (``{ [x]y; echo x > .git/config; }``): a write in the
        # part it could not read is not in ``writes``, so what the line writes is not known.
        return "the command is not read with certainty (the grammar finds a syntax error), so what it writes is not known"
    places = _directories(command, directories)
    targets = [t for part in command.parts for t in program_targets(_as_known(part))]
    for written in (*command.writes, *targets):
        if written is None:
            return "the command writes to a file only known when it runs"
        if written.startswith(("/", "~")):
            reason = protected_reason(written, cwd)
        elif places is None:
            # ``cd .git && echo x > config``: a relative path written after the line changes
            # directory to where the walk can't tell.
            return f"the command changes directory before writing {written}, so where it lands is not known"
        else:
            reason = next((r for d in places if (r := protected_reason(written, Path(d))) is not None), None)
        if reason is not None:
            return reason
    for part in command.parts:
        code = _interpreter_code(part)
        if code is not None:
            # An interpreter's own code writes what it names (PERM-15): a literal path is judged like
            # a redirection's, a path built when it runs may be any; what it runs is a line of its own.
            if code.writes_built is not None:
                return f"the command's code may write a protected file: {code.writes_built}"
            for path in code.writes:
                reason = (
                    protected_reason(path, cwd)
                    if path.startswith(("/", "~")) or places is None
                    else next((r for d in places if (r := protected_reason(path, Path(d))) is not None), None)
                )
                if reason is not None:
                    return reason
            for run in code.runs:
                reason = _line_reason(split_command(run), places, cwd, depth + 1) if depth < 8 else "nested"
                if reason is not None:
                    return reason
        for script in _scripts(part.argv):
            if script is None:
                return "the command runs shell code only known when it runs"
            if depth >= 8:
                return "the command nests shell code too deeply to tell what it writes"
            reason = _line_reason(split_command(script), places, cwd, depth + 1)
            if reason is not None:
                return reason
    return None


def protected_write(call: Call, cwd: Path) -> str | None:
    """Why this call may write a protected path (a file tool's edit, or anything a shell line writes), if it may."""
    target = call.target
    if target is None:
        return None
    if target.kind == "edit":
        return protected_reason(target.value, cwd)
    shell = call.shell
    if shell is None:
        return None
    return _line_reason(shell, [lexical_path(".", cwd)], cwd, 0)
