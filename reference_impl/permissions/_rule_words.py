r"""A shell deny or ask rule's words read as bash reads them (PERM-12, PERM-17).

A ``Bash(...)`` rule's content is matched as text against the spellings of each command bash
would run (:mod:`~reference_impl.permissions._shell_forms`: as written, and after quote removal
with a path-qualified name reduced to its program). A deny rule written with bash's own quoting
(``Bash("rm":*)``, ``Bash(\rm:*)``, ``Bash($'rm':*)``, ``Bash(r""m -rf:*)``) would as text match
only lines spelled the same way, so it loads and denies no ``rm``. :func:`bash_read_shell_rule`
reads the rule's words as bash would and re-spells them as the unquoted form the matcher tries
(its words' values joined by single spaces), with the program reduced to its name as the matcher
reduces it (``/bin/rm`` is ``rm``, ``command rm`` and ``sudo rm`` run ``rm``).

A rule whose program bash could not run under that name is refused (:class:`RuleWordsError`): a
name bash expands (``r{m,}``, ``$x``, a glob), a name ending in ``:`` (``rm:``, ``rm::*``: a
``:*`` prefix mistyped), an empty name, a ``*`` in a ``:*`` prefix rule's name (``*:*``: the
prefix is literal text), a look-alike of another letter (``рm`` with a Cyrillic ``р``,
full-width ``ｒｍ``) that bash finds no program for. Only deny and ask rules are read so: an allow
rule read more broadly than written would allow more.
"""

from __future__ import annotations

import posixpath
import shutil
import unicodedata
from dataclasses import dataclass, field
from typing import Literal

from reference_impl.permissions._bash_words import ansi_c_value, unquote_double
from reference_impl.permissions._wrapped_commands import is_wrapper, unwrap

__all__ = ["RuleWordsError", "bash_read_shell_rule"]

RuleForm = Literal["prefix", "pattern"]


class RuleWordsError(ValueError):
    """A shell rule whose words name no program bash would run as the rule spells it."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


@dataclass(slots=True)
class _Word:
    """One word of a rule as bash reads it: its value, where the rule's ``*`` wildcards stand, and how it was written."""

    raw: list[str] = field(default_factory=list)
    value: list[str] = field(default_factory=list)
    wildcard: list[bool] = field(default_factory=list)
    expanded: bool = False  # bash expands part of it when the line runs ($x, `x`, "$x")
    unquoted: set[str] = field(default_factory=set)  # pattern characters left unquoted
    started: bool = False  # an empty quoted word ('' or "") is still a word

    def add(self, raw: str, value: str, *, wildcard: bool = False) -> None:
        self.raw.append(raw)
        self.started = True
        for char in value:
            self.value.append(char)
            self.wildcard.append(wildcard)

    @property
    def text(self) -> str:
        return "".join(self.value)

    @property
    def written(self) -> str:
        return "".join(self.raw)

    @property
    def has_wildcard(self) -> bool:
        return any(self.wildcard)


# Unquoted, these make the rule a list, a pipeline, a redirection or a comment: not one command's
# words. Such a rule is left as written; whether it can match is judged by ``_rule_liveness``.
_NOT_A_WORD = frozenset(";&|<>()\n")


def _read_quoted(body: str, start: int, quote: str) -> int:
    """The index of the quote closing the one at ``start`` (bash's rules for ``'`` and ``"``); -1 if none."""
    index = start + 1
    while index < len(body):
        if body[index] == quote:
            return index
        if quote == '"' and body[index] == "\\":
            index += 1
        index += 1
    return -1


def _ansi_end(body: str, start: int) -> int:
    """The index of the ``'`` closing ``$'...'`` opened at ``start`` (a backslash escapes it); -1 if none."""
    index = start + 2
    while index < len(body):
        if body[index] == "\\":
            index += 2
            continue
        if body[index] == "'":
            return index
        index += 1
    return -1


def _words(body: str, form: RuleForm) -> list[_Word] | None:
    """The rule's words as bash reads them; None for text that is not one command's words."""
    words: list[_Word] = []
    word = _Word()
    index = 0
    while index < len(body):
        char = body[index]
        if char in " \t":
            if word.started:
                words.append(word)
                word = _Word()
            index += 1
        elif char in _NOT_A_WORD or (char == "#" and not word.started):
            return None
        elif char == "\\":
            if index + 1 >= len(body):
                return None
            following = body[index + 1]
            if following != "\n":
                word.add(char + following, following)
            index += 2
        elif char == "'":
            end = _read_quoted(body, index, "'")
            if end < 0:
                return None
            word.add(body[index : end + 1], body[index + 1 : end])
            index = end + 1
        elif char == '"' or (char == "$" and body[index + 1 : index + 2] == '"'):
            opening = index + (char == "$")
            end = _read_quoted(body, opening, '"')
            if end < 0:
                return None
            inner = body[opening + 1 : end]
            if "$" in inner.replace("\\$", "") or "`" in inner.replace("\\`", ""):
                word.expanded = True
            # A rule's ``\*`` is a literal star wherever it stands (the rule syntax's own escape).
            word.add(body[index : end + 1], unquote_double(inner).replace("\\*", "*"))
            index = end + 1
        elif char == "$" and body[index + 1 : index + 2] == "'":
            end = _ansi_end(body, index)
            if end < 0:
                return None
            word.add(body[index : end + 1], ansi_c_value(body[index + 2 : end]))
            index = end + 1
        elif char in "$`":
            word.expanded = True
            word.add(char, char)
            index += 1
        else:
            wildcard = char == "*" and form == "pattern"
            if char in "*?[]{},~":
                word.unquoted.add(char)
            word.add(char, char, wildcard=wildcard)
            index += 1
    if word.started:
        words.append(word)
    return words


def _is_assignment(word: _Word) -> bool:
    name, equals, _ = word.written.partition("=")
    return bool(equals) and name.isidentifier()


def _scripts(text: str) -> set[str]:
    """The scripts of the letters in ``text`` (the first word of each letter's Unicode name)."""
    return {unicodedata.name(c, "?").split()[0] for c in text if c.isalpha()}


def _look_alike(word: _Word, *, program: bool) -> str | None:
    """Why a word's letters read as other letters than bash reads, or None.

    Bash compares bytes: full-width ``ｒｍ`` or a Cyrillic ``р`` in ``рm`` is no ``rm``. A word is
    refused when a character has a compatibility form (NFKC differs: full-width, ligatures, ...),
    when it mixes Latin letters with another script's, and, for the program name, when it holds
    any letter outside ASCII and bash finds no program of that name.
    """
    text = word.text
    for char in text:
        if unicodedata.normalize("NFKC", char) != char:
            return (
                f"{text!r} holds U+{ord(char):04X} ({unicodedata.name(char, '?')}), which reads as "
                f"{unicodedata.normalize('NFKC', char)!r} but is another character to bash"
            )
    scripts = _scripts(text)
    if "LATIN" in scripts and len(scripts) > 1:
        others = ", ".join(sorted(scripts - {"LATIN"}))
        return f"{text!r} mixes Latin letters with {others} ones that look alike but are other characters to bash"
    if program and not text.isascii() and shutil.which(text) is None:
        odd = next(c for c in text if not c.isascii())
        return (
            f"bash finds no program {text!r}; it holds U+{ord(odd):04X} ({unicodedata.name(odd, '?')}), "
            "which may look like an ASCII letter but names another program"
        )
    return None


def _program_problem(head: _Word, form: RuleForm) -> str | None:
    """Why bash could not run the rule's first word as the program it names, or None."""
    written = head.written
    if head.expanded:
        return f"bash expands the program name {written!r} when the line runs: name the program itself"
    if head.unquoted & {"?", "["} or (
        {"{", "}"} <= head.unquoted and (head.unquoted & {","} or ".." in written)
    ):
        return f"bash expands the program name {written!r} as a pattern: name the program itself"
    if "~" in head.unquoted and written.startswith("~"):
        return f"bash expands the program name {written!r} (a home directory): name the program itself"
    if form == "prefix" and "*" in head.unquoted:
        return (
            f"'*' in the program name {written!r} of a ':*' prefix rule is literal text, not a wildcard: "
            "write the tool name alone (Bash) for every command, or 'name *' for a pattern"
        )
    if not head.text:
        return "the program name is empty: bash runs no command of that name"
    if head.text.endswith(":"):
        name = head.text.rstrip(":")
        return (
            f"bash finds no program {head.text!r}: a prefix rule is written '{name}:*' (one ':' before '*')"
        )
    name = head.text
    if "/" not in name and name != name.lower() and shutil.which(name) is None and shutil.which(name.lower()):
        # Bash's names are case-sensitive: ``RM`` is no ``rm``, and a rule naming it would deny nothing.
        return f"bash finds no program {name!r} (names are case-sensitive); did you mean {name.lower()!r}?"
    return _look_alike(head, program=True)


def _program_word(head: _Word) -> _Word:
    """The head with a path-qualified name reduced to the program's name, as the matcher reduces a line's."""
    if "/" not in head.text or head.has_wildcard:
        return head
    name = posixpath.basename(head.text)
    if not name:
        return head
    reduced = _Word()
    reduced.add(name, name)
    return reduced


def _wrapped(words: list[_Word], form: RuleForm) -> list[_Word]:
    """The command a wrapper in the rule runs (``command rm``, ``sudo -u x rm``), as its own words.

    The matcher tries a line's wrapped command alone (``sudo /bin/rm x`` is also ``rm x``), so the
    rule naming the wrapped command denies it however the wrapper is spelled: never narrower.
    """
    while len(words) > 1 and is_wrapper(words[0].text):
        # The wrapper's own words, up to a wildcard: ``command rm *`` still runs ``rm``.
        literal = next((i for i, w in enumerate(words) if w.has_wildcard), len(words))
        args = tuple(w.text for w in words[1:literal])
        inner = unwrap(words[0].text, args)
        if not inner or tuple(inner) != args[len(args) - len(inner) :]:
            break  # none, or a default the wrapper runs (xargs' echo): not the rule's words
        start = literal - len(inner)
        problem = _program_problem(words[start], form)
        if problem is not None:
            raise RuleWordsError(problem)
        words = [_program_word(words[start]), *words[start + 1 :]]
    return words


def _spelled(word: _Word, form: RuleForm) -> str:
    """The word as the rule's pattern spells its value: a literal ``*`` escaped where ``*`` is a wildcard."""
    if word.expanded:
        return word.written  # the matcher keeps a run-time word as written
    if form == "prefix":
        return word.text
    return "".join(
        ("*" if wild else "\\*" if c == "*" else c) for c, wild in zip(word.value, word.wildcard, strict=True)
    )


def _backslash_before_wildcard(word: _Word) -> bool:
    r"""Whether a literal backslash stands just before a ``*`` wildcard: the matcher reads ``\*`` as a literal star."""
    return any(char == "\\" and wild for char, wild in zip(word.value, word.wildcard[1:], strict=False))


def bash_read_shell_rule(content: str) -> str:
    r"""A deny or ask ``Bash`` rule's content with its words as bash reads them, or :class:`RuleWordsError`.

    ``"rm":*``, ``\rm:*``, ``$'rm':*`` and ``/bin/rm:*`` all become ``rm:*``; ``command rm -rf:*``
    becomes ``rm -rf:*``. Content that is not one command's words (an operator, an unclosed quote)
    is returned as written, for the liveness check to judge.
    """
    prefix = content.endswith(":*") and not content.endswith("\\:*")
    form: RuleForm = "prefix" if prefix else "pattern"
    body = content[:-2] if prefix else content
    words = _words(body, form)
    if not words or _is_assignment(words[0]):
        return content
    problem = _program_problem(words[0], form)
    if problem is not None:
        raise RuleWordsError(problem)
    for word in words[1:]:
        odd = _look_alike(word, program=False)
        if odd is not None:
            raise RuleWordsError(odd)
    words = _wrapped([_program_word(words[0]), *words[1:]], form)
    read = " ".join(_spelled(word, form) for word in words)
    if prefix:
        if read.endswith("\\"):
            raise RuleWordsError(f"the prefix {read!r} ends in a backslash, which would escape ':*'")
        return read + ":*"
    if any("\\" in w.text and not w.expanded for w in words) and ("\\\\" in read or read.endswith("\\")):
        raise RuleWordsError(f"the words {read!r} hold a backslash a rule pattern can't spell")
    if any(_backslash_before_wildcard(w) for w in words if not w.expanded):
        raise RuleWordsError(
            f"the words {read!r} hold a backslash before a '*' wildcard, which reads as a literal '*'"
        )
    return read
