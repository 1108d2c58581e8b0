"""Deny rules against what a repository's own git configuration and hooks make git run (PERM-17).

``git status`` runs ``core.fsmonitor``, ``git diff --ext-diff`` runs ``diff.external``, ``git add``
a clean filter, ``git commit`` its hooks, ``git st`` an alias ``!cmd``: none of it is on the command
line. Each example builds a real repository whose configuration (set directly, through an include,
or in a subdirectory's repository) or hooks (a link to the program, a script, a ``core.hooksPath``
directory) name a denied program, draws the git command that triggers it, spelled with git's global
options or after a ``cd``, and asks the harness under an allow rule for that git command. Real git is
the judge: a call the harness runs unasked is run for real, and the denied program must not have
run. Without git these tests skip.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import run_calls, shell_tool
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

_DENIED = "nuke"


@dataclass(frozen=True)
class Mechanism:
    """How the repository names the denied program: ``setup`` (run in the repository) and the git ``trigger``."""

    name: str
    setup: str
    trigger: str


# The denied program as configuration spells it: bare, with arguments, by path, through a shell.
_VALUES = ("{p}", "{p} x", "{bin}/{p}", "sh -c '{p} y'", "{p} #")


@st.composite
def mechanisms(draw: st.DrawFn) -> Mechanism:
    """A way the repository makes git run the program, and a git command that triggers it."""
    value = draw(st.sampled_from(_VALUES))
    kind = draw(
        st.sampled_from(
            [
                "fsmonitor",
                "external",
                "textconv",
                "clean",
                "alias",
                "alias-git",
                "editor",
                "hook",
                "hooks-path",
                "submodule",
            ]
        )
    )
    if kind == "fsmonitor":
        return Mechanism(
            kind, f"git config core.fsmonitor {_quoted(value)}", draw(st.sampled_from(["status", "diff"]))
        )
    if kind == "external":
        setup = f"git config diff.external {_quoted(value)} && echo b >> f"
        return Mechanism(kind, setup, draw(st.sampled_from(["diff --ext-diff", "diff --ext-diff --stat=9"])))
    if kind == "textconv":
        setup = f"git config diff.tc.textconv {_quoted(value)} && echo 'f diff=tc' > .gitattributes && echo b >> f"
        return Mechanism(kind, setup, draw(st.sampled_from(["diff", "diff HEAD", "diff -- f"])))
    if kind == "clean":
        setup = (
            f"git config filter.z.clean {_quoted(value)} && echo 'f filter=z' > .gitattributes && echo c >> f"
        )
        return Mechanism(kind, setup, draw(st.sampled_from(["add f", "add -A", "add ."])))
    if kind == "alias":
        name = draw(st.sampled_from(["st", "ci", "lg"]))
        return Mechanism(kind, f"git config alias.{name} {_quoted('!' + value)}", name)
    if kind == "alias-git":
        return Mechanism(
            kind, f"git config alias.st {_quoted('-c core.fsmonitor=' + _DENIED + ' status')}", "st"
        )
    if kind == "submodule":
        # A submodule's own configuration (.git/modules/NAME/config): git status recurses into it.
        nested = draw(st.sampled_from(["fsmonitor", "hook"]))
        make = (
            f"git -C sm config core.fsmonitor {_quoted(value)}"
            if nested == "fsmonitor"
            else f"printf '#!/bin/sh\\n%s\\n' {_quoted(value)} > .git/modules/sm/hooks/post-checkout; "
            f"chmod +x .git/modules/sm/hooks/post-checkout; git -C sm config core.fsmonitor {_quoted(value)}"
        )
        setup = (
            "git init -q ../inner && git -C ../inner commit -q --allow-empty -m s && "
            "git -c protocol.file.allow=always submodule -q add ../inner sm && git commit -q -m sm && "
            f"{make} && echo x > sm/new"
        )
        return Mechanism(
            f"{kind}-{nested}", setup, draw(st.sampled_from(["status", "status --ignore-submodules=none"]))
        )
    if kind == "editor":
        return Mechanism(kind, f"git config core.editor {_quoted(value)}", "commit -q --allow-empty")
    hook = draw(st.sampled_from(["pre-commit", "commit-msg", "post-commit"]))
    form = draw(st.sampled_from(["link", "script"]))
    folder = ".git/hooks" if kind == "hook" else "githooks"
    make = (
        f"ln -s {{bin}}/{_DENIED} {folder}/{hook}"
        if form == "link"
        else f"printf '#!/bin/sh\\n%s\\n' {_quoted(value)} > {folder}/{hook} && chmod +x {folder}/{hook}"
    )
    config = "" if kind == "hook" else f"mkdir -p {folder} && git config core.hooksPath {folder} && "
    return Mechanism(f"{kind}-{form}", config + make, "commit -q --allow-empty -m x")


def _quoted(text: str) -> str:
    return shlex.quote(text)


@st.composite
def placements(draw: st.DrawFn) -> tuple[str, str]:
    """(where the repository is, relative to the working directory; how the git command reaches it)."""
    where = draw(st.sampled_from(["", "sub", "a/b"]))
    if not where:
        return "", draw(st.sampled_from(["git {t}", "git -c color.ui=never {t}", "git --no-pager {t}"]))
    return where, draw(st.sampled_from(["git -C {w} {t}", "cd {w} && git {t}", "cd {w}; git --no-pager {t}"]))


def _environment(bin_dir: Path, home: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    keep.update(PATH=f"{bin_dir}:{os.environ.get('PATH', '')}", HOME=str(home), GIT_CONFIG_NOSYSTEM="1")
    keep.update(
        GIT_AUTHOR_NAME="a", GIT_AUTHOR_EMAIL="a@b", GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@b"
    )
    return keep


def _build(mechanism: Mechanism, where: str) -> tuple[Path, Path, dict[str, str]]:
    """A working directory with the repository, the denied program (a marker writer) and the environment."""
    root = fresh_dir()
    work, bin_dir, home = root / "work", root / "bin", root / "home"
    for folder in (work, bin_dir, home):
        folder.mkdir(parents=True)
    program = bin_dir / _DENIED
    program.write_text(f"#!/bin/sh\ntouch {shlex.quote(str(root / 'ran'))}\ncat >/dev/null 2>&1 || true\n")
    program.chmod(0o755)
    repository = work / where if where else work
    repository.mkdir(parents=True, exist_ok=True)
    setup = mechanism.setup.replace("{bin}", str(bin_dir)).replace("{p}", _DENIED)
    script = f"git init -q . && echo a > f && git add f && git commit -q -m i && {setup}"
    env = _environment(bin_dir, home)
    subprocess.run(
        ["bash", "-c", script], cwd=repository, env=env, check=True, capture_output=True, timeout=30
    )
    return work, root, env


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=40, deadline=None)
@given(mechanism=mechanisms(), placement=placements(), mode=st.sampled_from(["default", "bypassPermissions"]))
def test_deny_rule_holds_against_what_the_repository_makes_git_run(
    new_harness: Callable[[], Any], mechanism: Mechanism, placement: tuple[str, str], mode: str
) -> None:
    """PERM-17: a deny rule's program never runs unasked through a repository's git configuration or hooks.

    The configuration (``core.fsmonitor``, ``diff.external``, a textconv driver, a clean filter, an
    alias ``!cmd`` or one renaming a subcommand, ``core.editor``) or a hook (a link to the program, a
    script, in ``.git/hooks`` or a ``core.hooksPath`` directory) names the denied program; the git
    command that triggers it is allowed by a rule for git itself. Whatever the harness runs without
    anyone asked is run by real git in that repository: the denied program must not have run.
    """
    where, spelling = placement
    work, root, env = _build(mechanism, where)
    line = spelling.format(w=where, t=mechanism.trigger)
    rules = [
        RuleSpec(f"Bash({_DENIED}:*)", "deny"),
        RuleSpec("Bash(git:*)", "allow"),
        RuleSpec("Bash(cd:*)", "allow"),
    ]
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, mode=mode, cwd=work
    )
    if run.ran() == 0:
        return
    subprocess.run(
        ["bash", "-c", line], cwd=work, env=env, capture_output=True, timeout=30, stdin=subprocess.DEVNULL
    )
    assert not (root / "ran").exists(), (
        f"{line!r} ran unasked ({mode}) and git ran {_DENIED} through {mechanism.name} ({mechanism.setup})"
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-16", "MUST")
@pytest.mark.parametrize(
    "trigger", ["status", "diff", "log --oneline -1", "add f", "commit -q --allow-empty -m x"]
)
def test_an_ordinary_repository_keeps_git_allowed(new_harness: Callable[[], Any], trigger: str) -> None:
    """PERM-16: a repository with an ordinary configuration (a user, a remote, a branch) keeps git allowed."""
    mechanism = Mechanism(
        "ordinary",
        "git config user.name x && git remote add origin https://example.com/r.git && git config branch.main.remote origin",
        trigger,
    )
    work, _root, _env = _build(mechanism, "")
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec("Bash(git:*)", "allow")]
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": f"git {trigger}"})], rules=rules, cwd=work
    )
    assert run.ran() == 1, f"git {trigger} in an ordinary repository was not allowed: {run.describe()}"
