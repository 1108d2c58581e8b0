"""Protected files changed through a directory the line names: recursion, find's actions, code handed a tree (PERM-15).

``chmod -R a+w .``, ``find . -name '*.json' -delete``, ``tar --remove-files -cf t.tar .``: the line names ``.``, never
``.git/config`` or ``.claude/settings.json``, yet changes or removes them. Whatever changes the
contents of a directory it is given changes the protected files the directory holds. The line is
composed (a program that descends or removes what it reads, with that option in each spelling its own
``--help`` gives: alone, bundled, abbreviated; ``find`` with a filter and an action; interpreter code handed
the directory) x a spelling of a directory holding the protected file (``.``, ``"$PWD"``, ``~+``,
``sub/..``, a nested project's ``sub``) x a wrapper; run for real in a bubblewrap sandbox, it is kept
only where the filesystem shows the protected file changed or removed. In bypassPermissions the
harness must ask, and not run it. Without bubblewrap these tests skip.
"""

from __future__ import annotations

import functools
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import assert_protected_write_asks
from pytest_toolharness.adapters import requires

# Programs that change or remove the files under a directory they are given when told to, with the rest of
# their line, and the words their ``--help`` uses for the option that tells them.
_DESCENDING: dict[str, tuple[tuple[str, ...], str]] = {
    "chmod": (("a+w", "o+w", "u-w", "g+x"), "recursive"),
    "rm": (("", "-f"), "recursive"),
    "gzip": (("", "-f"), "recursive"),
    "tar": (("-cf /tmp/t.tar", "-czf /tmp/t.tgz"), "remove files"),
}
# A flag of each that takes no value, to bundle the option's letter with.
_OTHER_FLAG = {"chmod": "v", "rm": "f", "gzip": "q", "tar": "v"}
_SPELLING = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")


@functools.cache
def _changing_spellings(program: str) -> tuple[str, ...]:
    """The spellings of the options ``program --help`` describes in its own words as descending or removing."""
    try:
        text = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ()
    found: list[str] = []
    for line in text.splitlines():
        head, _, description = line.strip().partition("  ")
        if line.startswith(" ") and head.startswith("-") and _DESCENDING[program][1] in description.lower():
            found += [s for s in _SPELLING.findall(head) if s not in found]
    return tuple(found)


@st.composite
def _recursion(draw: st.DrawFn, program: str) -> str:
    """A spelling of ``program``'s descending option: as its help gives it, bundled, or abbreviated."""
    spellings = _changing_spellings(program)
    if not spellings:
        return "-R"
    spelling = draw(st.sampled_from(spellings), label="descending option")
    if spelling.startswith("--"):
        # Getopt takes an unambiguous prefix (``--rec``); an ambiguous one changes nothing (discarded).
        cut = draw(st.integers(min_value=min(5, len(spelling)), max_value=len(spelling)), label="prefix")
        return spelling[:cut]
    letter, other = spelling[1], _OTHER_FLAG[program]
    return draw(st.sampled_from((f"-{letter}", f"-{other}{letter}", f"-{letter}{other}")), label="bundle")


def _find_filters(target: str) -> tuple[str, ...]:
    """``find`` tests that select ``target`` (or more)."""
    name = target.rpartition("/")[2]
    suffix = name.rpartition(".")[2]
    segment = target.split("/")[-2] if "/" in target else name
    return (
        "",
        f"-name {name}",
        f"-name '*.{suffix}'",
        f"-path '*{segment}*'",
        "-type f",
        "-name '*.none' -o -type f",
    )


_FIND_ACTIONS = ("-delete", "-exec rm -f {} +", "-exec chmod a+w {} +", "-execdir rm -f {} \\;")

# Code handed the directory as its last argument, appending to every file under it: (inline line, script's name).
_CODE = {
    "python3": (
        'import os, sys\n[open(os.path.join(r, f), "a").write("x") for r, _, fs in os.walk(sys.argv[-1]) for f in fs]',
        "w.py",
    ),
    "perl": (
        'use File::Find; find(sub { -f and open(my $f, ">>", $_) and print $f "x" }, $ARGV[-1]);',
        "w.pl",
    ),
    "node": (
        'const fs = require("fs"), p = require("path"), d = process.argv.at(-1); '
        "for (const f of fs.readdirSync(d, {recursive: true})) { const q = p.join(d, f); "
        'if (fs.lstatSync(q).isFile()) fs.appendFileSync(q, "x"); }',
        "w.js",
    ),
}


def _code_line(language: str, directory: str, as_script: bool) -> tuple[str, dict[str, str]]:
    """The line running ``language``'s code on ``directory``: inline (``-e``/``-c``) or as the project's script."""
    code, script = _CODE[language]
    if as_script:
        return f"{language} {script} {directory}", {script: code + "\n"}
    return f"{language} {'-c' if language == 'python3' else '-e'} {shlex.quote(code)} {directory}", {}


_TARGETS = (
    ".git/config",
    ".git/hooks/pre-commit",
    ".claude/settings.json",
    ".vscode/settings.json",
    ".mcp.json",
    ".husky/pre-commit",
    "sub/.claude/settings.json",
    "sub/.git/config",
)
# Spellings of the project's own directory (a nested project's: ``sub``), and how the line gets there.
_PROJECT = (".", "./", '"$PWD"', "$PWD/", "${PWD}", "~+", "sub/..", "./sub/../", '"."', "\\.")
_NESTED = ("sub", "sub/", "./sub", '"sub"', "s''ub", "sub/.")
_WRAPPERS = ("", "timeout 9 ", "nice ", "env ", "command ")


@st.composite
def _tree_lines(draw: st.DrawFn) -> tuple[str, str, dict[str, str]]:
    """``(line, target, files)``: a line changing what a directory holding the protected ``target`` holds."""
    target = draw(st.sampled_from(_TARGETS), label="target")
    files = {target: "x\n", "sub/keep": ""}
    spellings = _PROJECT + (_NESTED if target.startswith("sub/") else ())
    directory = draw(st.sampled_from(spellings), label="directory")
    how = draw(st.sampled_from(("descending", "find", "code")), label="how")
    if how == "descending":
        program = draw(st.sampled_from(sorted(_DESCENDING)), label="program")
        rest = draw(st.sampled_from(_DESCENDING[program][0]), label="rest")
        words = [program, draw(_recursion(program)), rest, directory]
        command = " ".join(w for w in words if w)
    elif how == "find":
        test = draw(st.sampled_from(_find_filters(target)), label="find test")
        action = draw(st.sampled_from(_FIND_ACTIONS), label="find action")
        command = " ".join(w for w in ("find", directory, test, action) if w)
    else:
        installed = [name for name in sorted(_CODE) if shutil.which(name)]
        language = draw(st.sampled_from(installed), label="language")
        command, script = _code_line(language, directory, draw(st.booleans(), label="script file"))
        files.update(script)
    command = draw(st.sampled_from(_WRAPPERS), label="wrapper") + command
    shape = draw(st.sampled_from(("plain", "bash -c", "eval", "cd first")), label="shape")
    if shape == "bash -c":
        command = f"bash -c {shlex.quote(command)}"
    elif shape == "eval":
        command = f"eval {shlex.quote(command)}"
    elif shape == "cd first" and directory in ("sub/..", "./sub/../"):
        command = f"cd sub && {command.replace(directory, '..')}"
    return command, target, files


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=40, deadline=None)
@given(case=_tree_lines())
@example(case=("chmod -R a+w .", ".git/config", {".git/config": "x\n"}))
@example(case=("find . -name '*.json' -delete", ".claude/settings.json", {".claude/settings.json": "x\n"}))
@example(case=("find . -name '*.none' -o -type f -delete", ".mcp.json", {".mcp.json": "x\n"}))
@example(case=('rm -rf "$PWD"', ".mcp.json", {".mcp.json": "x\n"}))
@example(case=("chmod -vR o+w sub", "sub/.git/config", {"sub/.git/config": "x\n"}))
@example(case=("tar --remove-f -cf /tmp/t.tar .", ".claude/settings.json", {".claude/settings.json": "x\n"}))
@example(case=("chmod --recur a+w ~+", ".vscode/settings.json", {".vscode/settings.json": "x\n"}))
@example(
    case=(
        "python3 w.py .",
        ".git/hooks/pre-commit",
        {".git/hooks/pre-commit": "x\n", "w.py": _CODE["python3"][0]},
    )
)
def test_a_protected_file_changed_through_a_directory_it_is_in_asks(
    new_harness: Callable[[], Any], case: tuple[str, str, dict[str, str]]
) -> None:
    """PERM-15: a line that changes or removes what a directory holds, where that includes a protected file, asks in bypassPermissions.

    Composed: a program told to descend (its recursive option as its ``--help`` spells it, bundled,
    abbreviated), ``find`` with a test and an action, or interpreter code handed the directory x a
    spelling of the directory (the project's, a nested project's) x a wrapper or shell code; the
    line, run in a sandbox, judges (one that changes no protected file is discarded).
    """
    if shutil.which("bwrap") is None:
        pytest.skip("the filesystem judge needs bubblewrap (apt-get install bubblewrap)")
    line, target, files = case
    assert_protected_write_asks(new_harness(), line, target, " through a directory holding it", files)
