"""Every spelling of a screened option is screened: the program's own help pairs them (PERM-17).

``git clone -c`` is ``--config``, ``git difftool -t`` is ``--tool``, ``git rebase -x`` is ``--exec``:
a screen written for one spelling holds for every spelling the mined grammar maps to the same option.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission, parse_rule
from reference_impl.permissions import _program_grammar, _program_model
from tests.test_rules import BASH


def _spellings() -> list[tuple[str, ...]]:
    """(program, [subcommand], spelling): each catalogued alias of an option the model screens."""
    found: list[tuple[str, ...]] = []
    screens = {**_program_model._SCREENED, **_program_model._SUBCOMMAND_SCREENS}
    for name, (letters, longs) in sorted(screens.items()):
        program = _program_grammar._catalogue().get(name)
        if program is None:
            continue
        tables = [((), program.options)] if program.global_options is None else []
        tables += [((sub,), opts) for sub, opts in sorted((program.sub_options or {}).items())]
        for words, opts in tables:
            screened = {opts.resolve(f"--{n}") for n in longs} | {opts.names.get(f"-{c}") for c in letters}
            found += [
                (name, *words, spelling)
                for spelling, canonical in sorted(opts.names.items())
                if canonical in screened
            ]
    return found


@pytest.mark.parametrize("argv", _spellings(), ids=" ".join)
def test_each_spelling_of_a_screened_option_is_unread(argv: tuple[str, ...]) -> None:
    assert _program_model.unread_program(argv[0], [*argv[1:], "nuke"]) is not None, argv


def test_the_aliases_include_the_red_teams() -> None:
    spellings = set(_spellings())
    assert {("git", "clone", "-c"), ("git", "difftool", "-t"), ("git", "rebase", "-x")} <= spellings


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("git clone -q -c core.sshCommand=nuke ssh://h/r ../c", "ask"),
        ("git clone -q -ccore.sshCommand=nuke ssh://h/r ../c", "ask"),
        ("git clone -c protocol.ext.allow=always ext::nuke ../c", "ask"),
        ("git difftool -t nuke", "ask"),
        ("git clone https://example.invalid/r", "allow"),
        ("git commit -c HEAD", "allow"),
        ("git push -u origin main", "allow"),
        ("git -c core.quotepath=off status", "allow"),
    ],
)
def test_short_spellings_under_a_broad_allow(line: str, expected: str, tmp_path: Path) -> None:
    rules = (
        parse_rule("Bash(nuke:*)", "deny", "userSettings"),
        parse_rule("Bash(git:*)", "allow", "userSettings"),
    )
    context = PermissionContext(rules=rules, cwd=tmp_path, project_root=tmp_path)
    assert decide_permission(BASH, {"command": line}, context).behavior == expected, line
