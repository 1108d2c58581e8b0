"""Protected paths: files and directories never written without asking, whatever the mode (PERM-15).

Files that make code run later or configure the harness, git or a shell (``.git``, ``.claude``,
``.bashrc``, ``.mcp.json``, ...), however the path is spelled; a shell command's output
redirections and the targets programs name (``cp a .git/hooks/x``, ``tar xf t -C .git``, ``tee F``)
count as writes.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from reference_impl.permissions._bash_words import is_globby
from reference_impl.permissions._line_writes import program_targets
from reference_impl.permissions._paths import lexical_path, resolved_path
from reference_impl.permissions._rules import Call
from reference_impl.permissions._shell_parts import SYNTAX_ERROR, ShellPart

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


def protected_write(call: Call, cwd: Path) -> str | None:
    """Why this call writes a protected path (a file tool's edit or a shell redirection), if it does."""
    target = call.target
    if target is None:
        return None
    if target.kind == "edit":
        return protected_reason(target.value, cwd)
    shell = call.shell
    if shell is None:
        return None
    if SYNTAX_ERROR in shell.problems:
        # The grammar could not read all of it (``{ [x]y; echo x > .git/config; }``): a write in the
        # part it could not read is not in ``writes``, so what the line writes is not known.
        return "the command is not read with certainty (the grammar finds a syntax error), so what it writes is not known"
    moves = any(_may_change_directory(part) for part in shell.parts)
    targets = [t for part in shell.parts for t in program_targets(_as_known(part))]
    for written in (*shell.writes, *targets):
        if written is None:
            return "the command writes to a file only known when it runs"
        if moves and not written.startswith(("/", "~")):
            # ``cd .git && echo x > config``: a relative path written after the line changes
            # directory lands where the walk can't tell.
            return f"the command changes directory before writing {written}, so where it lands is not known"
        reason = protected_reason(written, cwd)
        if reason is not None:
            return reason
    return None
