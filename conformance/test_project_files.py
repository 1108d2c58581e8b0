"""Deny rules against what a project's own files make a project tool run (PERM-17).

``npm test`` runs ``package.json``'s scripts, ``make`` its Makefile's recipes, ``python3 -m json.tool``
a ``json`` package the project puts beside it. Each case writes such a file naming a denied program
(a marker writer on ``PATH``), asks the harness to run the tool under an allow rule for it, and, when
the harness runs it unasked, runs the line for real: the denied program must not have run. Without
the tool installed the case skips, naming it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import run_calls, shell_tool
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

_DENIED = "nuke"

# name -> (the program it needs, {file: text}, the line, the allow rule); {p} is the denied program.
CASES: dict[str, tuple[str, dict[str, str], str, str]] = {
    "npm test script": (
        "npm",
        {"package.json": '{"name": "x", "version": "1.0.0", "scripts": {"test": "{p} --all"}}'},
        "npm test",
        "Bash(npm test:*)",
    ),
    "npm pretest script": (
        "npm",
        {"package.json": '{"name": "x", "version": "1.0.0", "scripts": {"pretest": "{p}", "test": "true"}}'},
        "npm run test --silent",
        "Bash(npm run:*)",
    ),
    "make recipe": ("make", {"Makefile": "check:\n\t@{p} now\n"}, "make check", "Bash(make:*)"),
    "make variable": ("make", {"Makefile": "RUN = {p}\ncheck:\n\t$(RUN)\n"}, "make -s check", "Bash(make:*)"),
    "a script run by its path": (
        "sh",
        {"scripts/test.sh": "#!/bin/sh\necho testing\n{p}\n"},
        "./scripts/test.sh",
        "Bash(./scripts/test.sh:*)",
    ),
    "a script given to a shell": (
        "bash",
        {"ci.sh": "set -e\n{p} --now\n"},
        "bash ci.sh",
        "Bash(bash ci.sh:*)",
    ),
    "a module the project shadows": (
        "python3",
        {"json/__init__.py": "import os\nos.system('{p}')\n", "json/tool.py": ""},
        "python3 -m json.tool /dev/null",
        "Bash(python3 -m json.tool:*)",
    ),
}


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_deny_rule_holds_against_what_the_project_files_name(
    new_harness: Callable[[], Any], name: str, mode: str
) -> None:
    """PERM-17: a deny rule's program, named by a project file a project tool runs, never runs unasked.

    A ``package.json`` script (and its ``pre`` script), a Makefile recipe or variable, a script run by
    its path or given to a shell (written by an earlier call, say), a module the project shadows: the harness trusts the project's code, but not past a deny rule it names.
    Real ``npm``, ``make`` and ``python3`` are the judge.
    """
    program, files, line, allow = CASES[name]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    root = fresh_dir()
    work, bin_dir = root / "work", root / "bin"
    bin_dir.mkdir(parents=True)
    marker = root / "ran"
    (bin_dir / _DENIED).write_text(f"#!/bin/sh\ntouch {shlex.quote(str(marker))}\n")
    (bin_dir / _DENIED).chmod(0o755)
    for relative, text in files.items():
        (work / relative).parent.mkdir(parents=True, exist_ok=True)
        (work / relative).write_text(text.replace("{p}", _DENIED))
        if text.startswith("#!"):
            (work / relative).chmod(0o755)
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec(allow, "allow")]
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, mode=mode, cwd=work
    )
    if run.ran() == 0:
        return
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}"}
    subprocess.run(
        ["bash", "-c", line], cwd=work, env=env, capture_output=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert not marker.exists(), (
        f"{line!r} ran unasked ({mode}) and ran {_DENIED} through the project's {name}"
    )


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-16", "MUST")
def test_ordinary_project_files_keep_their_tools_allowed(new_harness: Callable[[], Any]) -> None:
    """PERM-16: a package.json whose scripts name no guarded program keeps ``npm test`` allowed."""
    work = fresh_dir() / "work"
    work.mkdir(parents=True)
    (work / "package.json").write_text(
        '{"name": "x", "scripts": {"test": "jest --ci", "pretest": "eslint ."}}'
    )
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec("Bash(npm test:*)", "allow")]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": "npm test"})], rules=rules, cwd=work)
    assert run.ran() == 1, f"npm test with ordinary scripts was not allowed: {run.describe()}"
