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
    how: str  # "spelled", "malformed" or "look-alike"
    spelled: str  # the rule's words up to its program name, as written (for bash to read back)


# Rule forms: (form with {} for the program, the words after the program on each line).
_FORMS = (("{}:*", ("", " x")), ("{} *", (" x",)), ("{} -f:*", (" -f x",)), ("{} -f x", (" -f x",)))
_MALFORMED = (("{}:", (" x", "")), ("{}::*", (" x",)), ("{}: *", (" x",)))


@st.composite
def spelled_rules(draw: st.DrawFn) -> SpelledRule:
    """A deny/ask ``Bash`` rule naming a real program in a drawn spelling, and 1-3 lines that run it spelled otherwise."""
    program = draw(st.sampled_from(_installed()))
    wrapper = draw(st.sampled_from(_WRAPPERS))
    how = draw(st.sampled_from(["spelled", "spelled", "malformed", "look-alike"]))
    spelled = draw(program_spellings(program))
    form, tails = draw(st.sampled_from(_MALFORMED if how == "malformed" else _FORMS))
    if how == "look-alike":
        alike = _look_alikes()
        at = draw(st.sampled_from([i for i, c in enumerate(program) if c in alike]))
        # Another script's letter or a compatibility form, or the letter in the other case (bash's
        # names are case-sensitive: ``RM`` is no ``rm``).
        swapped = draw(st.sampled_from((*alike[program[at]], program[at].upper())))
        spelled = program[:at] + swapped + program[at + 1 :]
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
    (``рm``, full-width ``ｒｍ``) that bash finds no program for. Bash judges: the spelled words read
    back as the program (``printf``), the look-alike names no program bash finds, and each line,
    run by the bash oracle, executes the program. Beside ``Bash`` allowed, with a host that denies
    what is asked, in any mode, the harness refuses the rule naming it, or runs none of the lines.
    """
    if rule.how == "spelled":
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
    rules = [RuleSpec(rule.text, behavior), RuleSpec("Bash", "allow")]  # type: ignore[arg-type]
    calls = [("Bash", {"command": line}) for line in rule.lines]
    try:
        run = run_calls(
            new_harness(), [shell_tool()], calls, rules=rules, mode=mode, host=host_answering("deny")
        )
    except Exception as error:
        message = str(error)
        assert rule.text in message or repr(rule.text) in message or ascii(rule.text) in message, (
            f"refused {rule.text!r} without naming it: {message}"
        )
        return
    assert run.ran() == 0, (
        f"{behavior} rule {rule.text!r} ({rule.how}) loaded and let a line running {rule.program} run ({mode}): "
        f"{run.describe()}"
    )
