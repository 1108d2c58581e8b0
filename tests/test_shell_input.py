"""A shell's literal input is its code for the deny rules and the protected paths alike (PERM-15, PERM-17).

The protected-path check read a shell's code only from ``-c``: ``bash <<< 'echo hi'`` asked under any
allow rule, so every property whose allowed line feeds a shell its code on standard input asked for the
reference whatever the line held, and a harness that took another descriptor for standard input could
not be told from one that did not (``m_perm_17_descriptor_taken_for_stdin`` survived). Both checks now
read it through ``shell_input``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission
from reference_impl.permissions import rules_from_strings
from reference_impl.permissions._shell_forms import shell_input
from tests.test_rules import BASH

ALLOWED = ("Bash(bash:*)", "Bash(sh:*)", "Bash(echo:*)", "Bash(./f.sh:*)")


def _decide(line: str, mode: str, cwd: Path) -> str:
    rules = (
        *rules_from_strings(["Bash(rm:*)"], "deny", "userSettings"),
        *rules_from_strings(list(ALLOWED), "allow", "userSettings"),
    )
    return decide_permission(
        BASH, {"command": line}, PermissionContext(mode=mode, rules=rules, cwd=cwd)
    ).behavior


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
@pytest.mark.parametrize(
    ("line", "behavior"),
    [
        ("bash <<< 'echo hi'", "allow"),
        ("bash -s <<EOF\necho hi\nEOF", "allow"),
        ("nice bash /dev/stdin <<< 'echo hi'", "allow"),
        ("bash <<< 'rm -rf x'", "deny"),
        ("bash <<< 'echo x > .git/config'", "ask"),
        ("bash /dev/stdin <<< 'echo x >> ~/.bashrc'", "ask"),
        ("bash -s <<EOF\necho x > .claude/settings.json\nEOF", "ask"),
        ("echo 'echo hi' | bash", "ask"),  # the input is only known when it runs
        ("bash /dev/fd/3 3<<< 'echo hi' <<< 'echo hi'", "ask"),  # another descriptor
        ("bash f.sh", "allow"),  # a script file: a program of the project's, as ``./f.sh`` is
    ],
)
def test_a_shell_running_its_literal_input_is_judged_by_that_input(
    line: str, behavior: str, mode: str, tmp_path: Path
) -> None:
    (tmp_path / "f.sh").write_text("echo hi\n")
    assert _decide(line, mode, tmp_path) == behavior


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
@pytest.mark.parametrize(
    "script", ["echo hi\n", "echo x > .git/config\n", "rm -rf x\n", "bash <<< 'echo x >> ~/.bashrc'\n"]
)
def test_a_script_file_given_to_a_shell_is_judged_as_the_script_run_by_its_path(
    script: str, mode: str, tmp_path: Path
) -> None:
    """``bash f.sh`` is ``./f.sh``: both are judged alike. The deny rules read the script (PERM-17), and so
    does the protected-path check, for the protected paths it names literally (PERM-15, session 34: a
    script the model just wrote may plant a hook; one that builds the name is left to the sandbox)."""
    (tmp_path / "f.sh").write_text(script)
    (tmp_path / "f.sh").chmod(0o755)
    by_path = _decide("./f.sh", mode, tmp_path)
    for line in ("bash f.sh", "sh ./f.sh", "nice bash f.sh"):
        assert _decide(line, mode, tmp_path) == by_path, line
    assert by_path == ("allow" if script == "echo hi\n" else "ask")


def test_shell_input_names_the_code_or_why_it_is_unknown() -> None:
    assert shell_input("bash", ("-c", "echo hi"), None) == ("echo hi", None)
    assert shell_input("bash", (), "echo hi") == ("echo hi", None)
    assert shell_input("bash", ("-s",), "ls") == ("ls", None)
    assert shell_input("bash", ("f.sh",), "ls") == (None, None)
    assert shell_input("bash", (), None)[1] == "bash runs a script read from its input"
    assert "descriptor" in str(shell_input("sh", ("/dev/fd/3",), "ls")[1])
    assert "only known" in str(shell_input("sh", ("-c", None), None)[1])
