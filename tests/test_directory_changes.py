"""``cd`` in a compound command: free inside the working directories, a command of its own elsewhere.

Claude Code documents a ``cd`` into the working directory or an additional one as read-only: a
compound such as ``cd packages/api && npm test`` runs without a prompt when every other part is
allowed. The reference engine does the same, and real bash is the judge of where the shell really
is: whenever the engine allows a line of ``cd``s (in subshells or not) and ``pwd -P``s without a
rule naming ``cd``, every directory bash prints lies in the working directories.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference_impl import PermissionContext, PermissionDecision, decide_permission, parse_rule
from tests.test_rules import BASH

_ALLOW = ("Bash(mkdir:*)", "Bash(cmake:*)", "Bash(npm run build:*)", "Bash(pwd:*)", "Bash(ls:*)")


def _decide(
    command: str, cwd: Path, *, extra: tuple[Path, ...] = (), allow: tuple[str, ...] = _ALLOW
) -> PermissionDecision:
    rules = tuple(parse_rule(text, "allow", "userSettings") for text in allow)
    rules += (parse_rule("Bash(rm:*)", "deny", "projectSettings"),)
    context = PermissionContext(mode="default", rules=rules, cwd=cwd, additional_dirs=extra)
    return decide_permission(BASH, {"command": command}, context)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for sub in ("build", "packages/api", "docs"):
        (root / sub).mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (root / "out").symlink_to(tmp_path / "outside")
    (root / "back").symlink_to(root / "packages")
    return root


@pytest.mark.parametrize(
    "command",
    [
        "mkdir -p build && cd build && ls ..",
        "cd packages/api && npm run build",
        "cd packages && cd api && ls",
        "cd ./docs; ls",
        "cd back/api && ls",  # a link that stays inside
        "cd build/../docs && ls",
        "mkdir -p new/dir && cd new/dir && ls ..",  # made on the line: inside by its name
    ],
)
def test_a_cd_inside_the_working_directories_needs_no_rule(project: Path, command: str) -> None:
    """The everyday compounds are allowed by the rules for their other parts alone."""
    decision = _decide(command, project)
    assert decision.behavior == "allow", decision.reason.detail


@pytest.mark.parametrize(
    "command",
    [
        "cd .. && ls",
        "cd /tmp && ls",
        "cd out && ls",  # a link out of the project
        "cd ~ && ls",
        "cd && ls",  # $HOME
        "cd - && ls",  # $OLDPWD
        'cd "$D" && ls',
        "cd $(pwd)/build && ls",
        "cd build/*/ && ls",
        "cd build && cd ../.. && ls",
        "(cd packages/api) ; cd ../.. && ls",  # the subshell's cd does not last
        "(cd packages/api) && cd .. && ls",
        "X=1 cd build && ls",
        "cp -r docs build/x && cd build/x && ls",  # a part may plant a link for the cd to follow
        "cd build",  # nothing else: no rule allows anything
    ],
)
def test_a_cd_that_may_leave_them_needs_a_rule(project: Path, command: str) -> None:
    """Outside the working directories, or not known to stay in them, ``cd`` is a command of its own."""
    assert _decide(command, project).behavior != "allow"
    assert _decide(command, project, allow=(*_ALLOW, "Bash(cp:*)")).behavior != "allow"


def test_an_additional_directory_counts_and_cdpath_does_not_widen(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``additionalDirectories`` are working directories too; with ``CDPATH`` set a bare name may be
    found elsewhere, so only ``./name`` and absolute targets are judged."""
    outside = project.parent / "outside"
    assert _decide(f"cd {outside} && ls", project).behavior != "allow"
    assert _decide(f"cd {outside} && ls", project, extra=(outside,)).behavior == "allow"
    monkeypatch.setenv("CDPATH", str(outside))
    assert _decide("cd build && ls", project).behavior != "allow"
    assert _decide("cd ./build && ls", project).behavior == "allow"


def test_a_deny_rule_still_holds_after_a_cd(project: Path) -> None:
    """A free ``cd`` allows nothing by itself: the denied part is still denied."""
    assert _decide("cd build && rm -rf x", project).behavior == "deny"


def test_a_link_created_after_the_decision_is_seen_next_time(project: Path) -> None:
    """The answer is judged against the disk each time, never remembered across a change."""
    assert _decide("cd later && ls", project).behavior == "allow"
    (project / "later").symlink_to(project.parent / "outside")
    assert _decide("cd later && ls", project).behavior != "allow"


# Targets composed of the project's names, ``..``, ``.`` and two links (one out, one staying in).
_TARGETS = st.one_of(
    st.lists(
        st.sampled_from(["..", "build", "packages", "api", ".", "out", "back"]), min_size=1, max_size=3
    ).map("/".join),
    st.sampled_from(["/", "/tmp"]),
)


@st.composite
def _cd_lines(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        target = draw(_TARGETS)
        step = f"cd {target}"
        parts.append(f"({step})" if draw(st.booleans()) else step)
        if draw(st.booleans()):
            parts.append("pwd -P")
    parts.append("pwd -P")
    return " ; ".join(parts)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=_cd_lines())
def test_an_allowed_line_never_leaves_the_working_directories_as_bash_runs_it(
    project: Path, line: str
) -> None:
    """Bash is the judge: when the engine allows a line of ``cd``s without a rule naming ``cd``,
    every directory ``pwd -P`` prints in real bash lies in the working directories."""
    decision = _decide(line, project)
    if decision.behavior != "allow":
        return
    env = {k: v for k, v in os.environ.items() if k != "CDPATH"}
    run = subprocess.run(
        ["bash", "-c", line], cwd=project, env=env, capture_output=True, text=True, timeout=10
    )
    real = os.path.realpath(project)
    for printed in run.stdout.split():
        assert printed == real or printed.startswith(real + "/"), (line, printed)


@pytest.mark.parametrize(
    "line",
    [
        "for OLDPWD in sub; do cd ~-; git status; done",
        "for PWD in sub; do cd ~+; git status; done",
        "for CDPATH in ..; do cd sub; git status; done",
        "CDPATH=.. cd sub && git status",
    ],
)
def test_git_in_a_directory_the_line_names_only_at_run_time_is_not_allowed(project: Path, line: str) -> None:
    """PERM-17: ``~-`` and ``~+`` are $OLDPWD and $PWD (a loop may set them), and ``cd sub`` searches $CDPATH: whose repository configuration git reads is not known, so a deny rule
    (which that configuration may reach) keeps git from being allowed."""
    decision = _decide(line, project, allow=(*_ALLOW, "Bash(git:*)", "Bash(cd:*)"))
    assert decision.behavior != "allow", (line, decision)
