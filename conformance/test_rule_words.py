r"""A shell deny or ask rule means what bash would run under the name it gives, or is refused (PERM-12, PERM-17).

A ``Bash(...)`` rule's words are shell words: ``"rm"``, ``'rm'``, ``\rm``, ``r""m``, ``$'\x72m'``
and ``/usr/bin/rm`` all make bash run ``rm``. A deny rule spelled so that loads and then denies no
``rm`` line guards nothing. The rules here are composed, not listed: a real program's name drawn
through bash's quoting (quotes, escapes, ANSI-C strings, empty strings glued on), path-qualified
through the machine's own ``PATH`` directories, behind a wrapper, written with a mistyped ``:*``,
or with a letter swapped for a look-alike from another script, a compatibility form or the other case; and lines
that run the program in other spellings. Bash is the judge: ``printf`` shows the words it reads
from the rule, and the bash oracle shows each line executes the program.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance._controls import require_control
from conformance._strategies_permissions import host_answering, run_calls, shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

# Programs a deny rule is commonly about; only those installed here are drawn.
_PROGRAMS = ("rm", "chmod", "mv", "curl", "dd", "git")
# Wrappers that run the command after them; the rule and the line carry the same one.
_WRAPPERS = ("", "command ", "sudo ", "env ", "nice -n 5 ", "timeout 5 ")


@functools.cache
def _installed() -> tuple[str, ...]:
    return tuple(p for p in _PROGRAMS if shutil.which(p) is not None)


@functools.cache
def _directories_holding(program: str) -> tuple[str, ...]:
    """The ``PATH`` directories (and /bin, /usr/bin) where ``program`` is an executable file."""
    found = [
        d
        for d in dict.fromkeys([*os.environ.get("PATH", "").split(os.pathsep), "/usr/bin", "/bin"])
        if d.startswith("/") and os.access(os.path.join(d, program), os.X_OK)
    ]
    return tuple(found)


@functools.cache
def _look_alikes() -> dict[str, tuple[str, ...]]:
    """For each ASCII letter, the characters that read as it, found in the Unicode database, not listed.

    Its compatibility forms (NFKC gives the letter back: full-width, mathematical, circled) and the
    same-named letters of other scripts (``CYRILLIC SMALL LETTER O``).
    """
    found: dict[str, list[str]] = {}
    for code in range(0x80, 0x1FFFF):
        char = chr(code)
        name = unicodedata.name(char, "")
        folded = unicodedata.normalize("NFKC", char)
        if len(folded) == 1 and folded.isascii() and folded.isalpha() and folded != char:
            found.setdefault(folded, []).append(char)
        script, _, rest = name.partition(" ")
        if script in ("CYRILLIC", "GREEK", "ARMENIAN", "COPTIC") and rest.startswith(
            ("SMALL LETTER ", "CAPITAL LETTER ")
        ):
            letter = rest.rsplit(" ", 1)[-1]
            if len(letter) == 1 and letter.isalpha():
                found.setdefault(letter.lower() if "SMALL" in rest else letter, []).append(char)
    return {letter: tuple(chars) for letter, chars in found.items()}


@st.composite
def bash_spellings(draw: st.DrawFn, word: str) -> str:
    r"""``word`` spelled so that bash reads it back as ``word``.

    Each piece plain, single- or double-quoted, backslash-escaped, or in ``$'...'`` (as itself,
    ``\xHH`` or ``\ooo``), with empty quotes glued on anywhere.
    """
    out: list[str] = []
    index = 0
    while index < len(word):
        size = draw(st.integers(1, max(1, min(3, len(word) - index))))
        piece = word[index : index + size]
        index += size
        how = draw(st.sampled_from(["plain", "single", "double", "escaped", "ansi", "hex", "octal"]))
        if how == "single":
            piece = f"'{piece}'"
        elif how == "double":
            piece = f'"{piece}"'
        elif how == "escaped":
            piece = "".join(f"\\{c}" for c in piece)
        elif how == "ansi":
            piece = f"$'{piece}'"
        elif how == "hex":
            piece = "$'" + "".join(f"\\x{ord(c):02x}" for c in piece) + "'"
        elif how == "octal":
            piece = "$'" + "".join(f"\\{ord(c):03o}" for c in piece) + "'"
        if draw(st.integers(0, 4)) == 0:
            piece = draw(st.sampled_from(["''", '""', "$''"])) + piece
        out.append(piece)
    return "".join(out)


@st.composite
def program_spellings(draw: st.DrawFn, program: str) -> str:
    """``program`` as a command's first word: its name or a path to it in a real ``PATH`` directory, in bash's spellings."""
    directories = _directories_holding(program)
    name = program
    path_qualified: bool = draw(st.booleans())
    if directories and path_qualified:
        name = f"{draw(st.sampled_from(directories)).rstrip('/')}/{program}"
    return draw(bash_spellings(name)) if draw(st.integers(0, 3)) else name


@dataclass(frozen=True)
class SpelledRule:
    """A shell deny/ask rule naming ``program``, the lines that run ``program`` as it names it, and how it was drawn."""

    text: str
    program: str
    lines: tuple[str, ...]
    how: str  # "spelled", "malformed", "look-alike" or "braced"
    spelled: str  # the rule's words up to its program name, as written (for bash to read back)


# Rule forms: (form with {} for the program, the words after the program on each line).
_FORMS = (("{}:*", ("", " x")), ("{} *", (" x",)), ("{} -f:*", (" -f x",)), ("{} -f x", (" -f x",)))
_MALFORMED = (("{}:", (" x", "")), ("{}::*", (" x",)), ("{}: *", (" x",)))


@st.composite
def spelled_rules(draw: st.DrawFn) -> SpelledRule:
    """A deny/ask ``Bash`` rule naming a real program in a drawn spelling, and 1-3 lines that run it spelled otherwise."""
    program = draw(st.sampled_from(_installed()))
    wrapper = draw(st.sampled_from(_WRAPPERS))
    how = draw(st.sampled_from(["spelled", "spelled", "malformed", "look-alike", "braced"]))
    spelled = draw(program_spellings(program))
    form, tails = draw(st.sampled_from(_MALFORMED if how == "malformed" else _FORMS))
    if how == "look-alike":
        alike = _look_alikes()
        at = draw(st.sampled_from([i for i, c in enumerate(program) if c in alike]))
        # Another script's letter or a compatibility form, or the letter in the other case (bash's
        # names are case-sensitive: ``RM`` is no ``rm``).
        swapped = draw(st.sampled_from((*alike[program[at]], program[at].upper())))
        spelled = program[:at] + swapped + program[at + 1 :]
    if how == "braced":
        # A letter as a one-letter sequence expression: bash expands ``{r..r}m`` to ``rm``.
        at = draw(st.integers(0, len(program) - 1))
        spelled = f"{program[:at]}{{{program[at]}..{program[at]}}}{program[at + 1 :]}"
    # Tabs are blanks to bash as spaces are.
    blank = draw(st.sampled_from([" ", "\t"]))
    text = f"Bash({wrapper.replace(' ', blank)}{form.format(spelled).replace(' ', blank)})"
    lines = draw(
        st.lists(
            st.tuples(program_spellings(program), st.sampled_from(tails)).map(
                lambda p: f"{wrapper}{p[0]}{p[1]}"
            ),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    return SpelledRule(text, program, tuple(lines), how, f"{wrapper}{spelled}")


def _bash_words(spelled: str) -> list[str]:
    """The words bash reads from ``spelled`` (no globbing): bash's own reading of a rule's words."""
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", f"set -f; printf '%s\\0' {spelled}"],
        capture_output=True,
        timeout=30,
        check=False,
    )
    return done.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]


def _bash_finds(name: str) -> bool:
    done = subprocess.run(
        ["bash", "--norc", "-c", 'type -P -- "$1"', "_", name], capture_output=True, timeout=30, check=False
    )
    return done.returncode == 0


# The red team's cases and the next ones: (rule, lines running rm, how drawn, the rule's program words).
_PINNED = (
    ('Bash("rm":*)', ("rm x",), "spelled", '"rm"'),
    ("Bash(\\rm:*)", ("/usr/bin/rm x",), "spelled", "\\rm"),
    ("Bash($'r\\x6d' -f:*)", ("'rm' -f x",), "spelled", "$'r\\x6d'"),
    ("Bash(/bin/rm:*)", ("rm x", "/usr/bin/rm x"), "spelled", "/bin/rm"),
    ("Bash(command rm:*)", ("rm x",), "spelled", "command rm"),
    ("Bash(sudo rm:*)", ("sudo /bin/rm x",), "spelled", "sudo rm"),
    ("Bash(command rm: *)", ("command rm x",), "malformed", "command rm"),
    ("Bash(rm::*)", ("rm x",), "malformed", "rm"),
    ("Bash(\u0440m:*)", ("rm x",), "look-alike", "\u0440m"),
    ("Bash(\uff52\uff4d:*)", ("rm x",), "look-alike", "\uff52\uff4d"),
    ("Bash(RM:*)", ("rm x",), "look-alike", "RM"),
)


def _pinned(test: Callable[..., None]) -> Callable[..., None]:
    for text, lines, how, spelled in _PINNED:
        rule = SpelledRule(text, "rm", lines, how, spelled)
        test = example(rule=rule, behavior="deny", mode="default")(test)
    return test


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rule=spelled_rules(),
    behavior=st.sampled_from(["deny", "ask"]),
    mode=st.sampled_from(["default", "bypassPermissions"]),
)
@_pinned
def test_a_shell_rule_is_refused_or_denies_its_program_however_spelled(
    new_harness: Callable[[], Any], bash_oracle: ths.BashSandbox, rule: SpelledRule, behavior: str, mode: str
) -> None:
    """PERM-12, PERM-17: a deny or ask rule is refused at load naming it, or no line running what it names runs unasked.

    The rule names a real program spelled as bash reads it (quoted, escaped, ``$'...'``, glued
    empty quotes, path-qualified through a real ``PATH`` directory, behind a wrapper), or mistyped
    (``rm:``, ``rm::*``, ``rm: *``: meant ``rm:*``), or with a letter swapped for a look-alike
    (``рm``, full-width ``ｒｍ``) that bash finds no program for, or with a letter as a brace
    expansion (``{r..r}m``). Bash judges: the spelled (or brace-expanded) words read
    back as the program (``printf``), the look-alike names no program bash finds, and each line,
    run by the bash oracle, executes the program. Beside ``Bash`` allowed, with a host that denies
    what is asked, in any mode, the harness refuses the rule naming it, or runs none of the lines.
    """
    if rule.how in ("spelled", "braced"):
        read = _bash_words(rule.spelled)
        require_control(
            bool(read) and os.path.basename(read[-1]) == rule.program,
            f"bash reads {rule.spelled!r} as {read!r}, not as {rule.program!r}",
        )
    elif rule.how == "look-alike":
        name = rule.spelled.split()[-1]
        require_control(not _bash_finds(name), f"bash finds a program {name!r}: no look-alike here")
    for line in rule.lines:
        executed = bash_oracle.executed(line)
        require_control(
            any(os.path.basename(record[0]) == rule.program for record in executed),
            f"bash ran {executed!r} for {line!r}, not {rule.program!r}",
        )
    _assert_refused_by_name_or_runs_none(
        new_harness,
        rule.text,
        behavior,
        mode,
        rule.lines,
        f"({rule.how}) loaded and let a line running {rule.program}",
    )


def _assert_refused_by_name_or_runs_none(
    new_harness: Callable[[], Any], text: str, behavior: str, mode: str, lines: tuple[str, ...], what: str
) -> None:
    """Beside ``Bash`` allowed, with a host that denies what is asked, rule ``text`` is refused naming it, or no line runs."""
    rules = [RuleSpec(text, behavior), RuleSpec("Bash", "allow")]  # type: ignore[arg-type]
    calls = [("Bash", {"command": line}) for line in lines]
    try:
        run = run_calls(
            new_harness(), [shell_tool()], calls, rules=rules, mode=mode, host=host_answering("deny")
        )
    except Exception as error:
        message = str(error)
        assert text in message or repr(text) in message or ascii(text) in message, (
            f"refused {text!r} without naming it: {message}"
        )
        return
    assert run.ran() == 0, f"{behavior} rule {text!r} {what} run ({mode}): {run.describe()}"


# An argument's characters: letters, and those bash's quoting makes literal (blanks, operators, a
# comment sign, pattern characters, a dollar sign, a backslash). Parentheses are left out: the rule
# syntax escapes them itself.
_ARG_CHARS = "abx-.  \t;&|<>#*?$\\"
_PLAIN = frozenset("abx-.")
# How a rule of each form ends after its words.
_ENDINGS = {"prefix": ":*", "glued": "*", "exact": ""}


def _spell_piece(piece: str, how: str) -> str:
    """``piece`` in one of bash's quotings, read back by bash as ``piece``."""
    if how == "plain":
        return piece
    if how == "single":
        return f"'{piece}'"
    if how in ("double", "locale"):  # ``$"..."`` is a double-quoted string bash may translate
        inner = "".join(f"\\{c}" if c in '$`"\\' else c for c in piece)
        return ("$" if how == "locale" else "") + f'"{inner}"'
    if how == "escaped":
        return "".join(f"\\{c}" for c in piece)
    if how == "ansi":
        return "$'" + piece.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if how == "hex":
        return "$'" + "".join(f"\\x{ord(c):02x}" for c in piece) + "'"
    return "$'" + "".join(f"\\{ord(c):03o}" for c in piece) + "'"


@st.composite
def argument_spellings(draw: st.DrawFn, word: str) -> str:
    r"""``word`` (an argument) spelled so that bash reads it back as ``word``, piece by piece.

    Each piece plain (only if it holds nothing bash would read), single-, double- or locale-quoted,
    backslash-escaped or in ``$'...'``, with empty quotes glued on. A literal backslash is spelled
    so that no ``\\`` reaches the rule's text (the rule syntax's own escape).
    """
    out: list[str] = []
    index = 0
    while index < len(word):
        size = draw(st.integers(1, min(4, len(word) - index)))
        piece = word[index : index + size]
        index += size
        hows = ["single", "double", "locale", "escaped", "ansi", "hex", "octal"]
        if "\\" in piece:
            hows = ["single", "hex", "octal"]
        elif set(piece) <= _PLAIN:
            hows.append("plain")
        if draw(st.integers(0, 4)) == 0:
            out.append(draw(st.sampled_from(["''", '""', "$''", '$""'])))
        out.append(_spell_piece(piece, draw(st.sampled_from(hows))))
    return "".join(out)


@dataclass(frozen=True)
class ArgumentRule:
    """A deny/ask rule naming a program and its arguments, and lines passing the same arguments spelled otherwise."""

    text: str
    program: str
    spelled: str  # the rule's words as written (for bash to read back)
    words: tuple[str | None, ...]  # the words bash reads from them; None for a run-time word
    lines: tuple[tuple[str, tuple[str | None, ...]], ...]  # each line and the argv bash runs for it


@st.composite
def argument_rules(draw: st.DrawFn) -> ArgumentRule:
    """A deny/ask ``Bash`` rule: a real program and 1-3 arguments in drawn quotings, as a prefix, exact or glued-``*`` rule.

    One argument may be a run-time word (``$HOME`` glued to quoted pieces), written the same on
    every line, since what it expands to is known only when the line runs.
    """
    program = draw(st.sampled_from(_installed()))
    arguments = draw(
        st.lists(
            st.text(st.sampled_from(_ARG_CHARS), min_size=1, max_size=8).filter(lambda a: "\\\\" not in a),
            min_size=1,
            max_size=3,
        )
    )
    runtime_at = draw(st.one_of(st.none(), st.integers(0, len(arguments) - 1)))
    runtime = ""
    if runtime_at is not None:
        expansion = draw(st.sampled_from(["$HOME", '"$HOME"', "${HOME}"]))
        before, after = (
            draw(argument_spellings(arguments[runtime_at])),
            draw(st.sampled_from(["", "'.'", "x"])),
        )
        runtime = before + expansion + after
    form = draw(st.sampled_from(["prefix", "exact", "glued"]))
    # Glued: the last argument ends in a ``*`` wildcard; a line passes it with more after it.
    more = "y" if form == "glued" else ""

    def spelled(last_more: str) -> tuple[str, tuple[str | None, ...]]:
        words: list[str] = [draw(program_spellings(program))]
        read: list[str | None] = [program]
        for at, argument in enumerate(arguments):
            if at == runtime_at:
                words.append(runtime)
                read.append(None)
            else:
                value = argument + (last_more if at == len(arguments) - 1 else "")
                words.append(draw(argument_spellings(value)))
                read.append(value)
        return " ".join(words), tuple(read)

    if form == "glued" and runtime_at == len(arguments) - 1:
        form, more = "exact", ""  # a ``*`` glued to a run-time word is text as written
    spelled_rule, words = spelled("")
    text = f"Bash({spelled_rule}{_ENDINGS[form]})"
    tails = ("", " x") if form == "prefix" else ("",)
    lines: list[tuple[str, tuple[str | None, ...]]] = []
    for _ in range(draw(st.integers(1, 3))):
        line, argv = spelled(more)
        tail = draw(st.sampled_from(tails))
        lines.append((line + tail, argv + (("x",) if tail else ())))
    return ArgumentRule(text, program, spelled_rule, words, tuple(lines))


def _same_argv(executed: tuple[str, ...], expected: tuple[str | None, ...]) -> bool:
    """Whether bash ran ``expected`` (the program by its name; a run-time word may be anything)."""
    return len(executed) == len(expected) and all(
        want is None or got == want or (at == 0 and os.path.basename(got) == want)
        for at, (got, want) in enumerate(zip(executed, expected, strict=True))
    )


# The red team's case: a literal backslash just before the wildcard (the matcher reads ``\*`` as a star).
_BACKSLASH_STAR = ArgumentRule(
    "Bash(rm 'a\\'*)", "rm", "rm 'a\\'", ("rm", "a\\"), (("rm 'a\\y'", ("rm", "a\\y")),)
)

# Found by a random draw (session 35): a locale string glued after a plain piece (``-$";;"``) read
# as ``-$;;``, an option, so the deny rule on its value did not match.
_LOCALE_AFTER_PLAIN = ArgumentRule(
    "Bash(rm ';;' '-;;' ' ')",
    "rm",
    "rm ';;' '-;;' ' '",
    ("rm", ";;", "-;;", " "),
    (("rm \\;\\; -$\";;\" ' '", ("rm", ";;", "-;;", " ")),),
)


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rule=argument_rules(),
    behavior=st.sampled_from(["deny", "ask"]),
    mode=st.sampled_from(["default", "bypassPermissions"]),
)
@example(rule=_BACKSLASH_STAR, behavior="deny", mode="default")
@example(rule=_LOCALE_AFTER_PLAIN, behavior="deny", mode="default")
def test_a_shell_rules_arguments_are_read_as_bash_reads_them(
    new_harness: Callable[[], Any], bash_oracle: ths.BashSandbox, rule: ArgumentRule, behavior: str, mode: str
) -> None:
    """PERM-17, PERM-12: a rule's arguments in bash's quotings catch lines passing them spelled otherwise, or it is refused.

    The arguments hold blanks (runs of them, tabs), operators, ``#``, pattern characters, ``$`` and
    backslashes, made literal by single, double and ``$"..."`` quotes, escapes and ``$'...'``
    strings, with empty quotes glued on; one may be a run-time word written alike everywhere. The
    rule is a prefix (``:*``), exact, or ends in a ``*`` glued to its last argument. Bash judges:
    ``printf`` reads the rule's words back as drawn, and the bash oracle runs each line as the
    program with those arguments. With ``Bash`` allowed and a host that denies what is asked, the
    harness refuses the rule naming it, or runs none of the lines.
    """
    read = _bash_words(rule.spelled)
    require_control(
        len(read) == len(rule.words)
        and all(
            w is None or r == w or (at == 0 and os.path.basename(r) == w)
            for at, (r, w) in enumerate(zip(read, rule.words, strict=False))
        ),
        f"bash reads {rule.spelled!r} as {read!r}, not as {rule.words!r}",
    )
    for line, argv in rule.lines:
        executed = bash_oracle.executed(line)
        require_control(
            any(_same_argv(record, argv) for record in executed),
            f"bash ran {executed!r} for {line!r}, not {argv!r}",
        )
    lines = tuple(line for line, _ in rule.lines)
    _assert_refused_by_name_or_runs_none(
        new_harness, rule.text, behavior, mode, lines, "loaded and let a line passing its arguments"
    )
