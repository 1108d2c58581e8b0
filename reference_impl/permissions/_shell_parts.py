"""What the bash reader makes of a command line: its simple commands and what could not be read (PERM-17).

:class:`ShellPart` is one simple command bash would run, :class:`ShellCommand` the whole line
(:func:`~reference_impl.permissions._bash_reader.split_command` builds them).
"""

from __future__ import annotations

from dataclasses import dataclass

from reference_impl.permissions._bash_words import is_globby

__all__ = ["SYNTAX_ERROR", "ShellCommand", "ShellPart"]

SYNTAX_ERROR = "the command is not valid bash (syntax error)"
"""The problem recorded for a line bash would refuse to run."""


@dataclass(frozen=True, slots=True)
class ShellPart:
    """One simple command bash would run.

    ``text`` is the command as written; ``argv`` its words after quote removal, ``None`` for a
    word only known at run time; ``raw`` the same words as written; ``assignments`` the leading
    ``NAME=value`` words as written, with ``plain_assignments`` telling whether all of them assign
    a known value to a variable that does not change what runs; ``doubts`` why an allow rule must
    not trust this command.
    """

    text: str
    argv: tuple[str | None, ...]
    raw: tuple[str, ...]
    assignments: tuple[str, ...] = ()
    plain_assignments: bool = True
    doubts: tuple[str, ...] = ()
    stdin: str | None = None
    """The text of a here-document or here-string given as its input, when known."""

    @property
    def opaque(self) -> bool:
        """Whether the program this command runs is only known at run time."""
        return not self.argv or self.argv[0] is None or is_globby(self.raw[0])


@dataclass(frozen=True, slots=True)
class ShellCommand:
    """A command line as bash would run it: its simple commands and what the walker made of it.

    ``problems`` are constructs the walker does not model, a syntax error, odd blanks, an output
    redirection to a file; ``writes`` the targets of output redirections (``None`` for one only
    known at run time); ``holds`` the files input redirections open (``3< f``; ``None``: one only
    known at run time), which a name of the descriptor (``/dev/fd/3``) reopens for writing;
    ``canonical`` the top-level list re-joined with single-spaced operators (so
    ``Bash(curl * | bash)`` matches however it was spaced).
    """

    source: str
    parts: tuple[ShellPart, ...]
    problems: tuple[str, ...]
    canonical: str
    writes: tuple[str | None, ...] = ()
    holds: tuple[str | None, ...] = ()

    @property
    def confident(self) -> bool:
        """Whether allow rules may judge this command: no problem and no doubtful part."""
        return not self.problems and all(not part.doubts for part in self.parts)
