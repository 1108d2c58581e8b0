"""Protected files git writes with no path on its line: from another commit, or by convention (PERM-15).

``git checkout other``, ``git reset --hard other``, ``git merge other``, ``git stash pop``... name no
file, yet write every file the commit they bring holds: ``.claude/settings.json`` or
``.husky/pre-commit`` among them. A harness that judges the line's words lets them run unasked in
bypassPermissions. The repository is built twice, byte for byte (fixed dates, so the commits have
the same names), and real git judges what each line writes (bubblewrap, ``ths.written_paths``).

``git maintenance register`` adds the repository to ``maintenance.repo`` in ``~/.gitconfig``;
``scalar register`` writes it and the repository's configuration; ``git config --global`` does by its
option: none names the file it writes either (the judge's ``HOME`` is its working directory); nor
does ``npm config set`` (``.npmrc``).

``git checkout-index --prefix=.`` joins its prefix to each index entry as text (``.git/hooks/...``);
``git init --template=T`` copies T's hooks into ``.git/hooks``; ``git remote add``, ``git push -u``,
an alias... write ``.git/config``: from data, or into git's own configuration.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import assert_asked_not_run, run_line_in_bypass
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires

# Protected files a commit may hold (each protected by its name alone).
_MEMBERS = (
    ".claude/settings.json",
    ".husky/pre-commit",
    ".vscode/tasks.json",
    ".mcp.json",
    ".gitattributes",
    "sub/.claude/settings.local.json",
)
# Git commands that move the working tree to what ``{ref}`` holds, without naming a file of it.
_MOVES = (
    "git checkout {ref}",
    "git checkout -q --detach {ref}",
    "git switch --detach {ref}",
    "git switch -c new {ref}",
    "git checkout -q -b new {ref}",
    "git checkout -f {ref}",
    "git reset --hard {ref}",
    "git reset --keep {ref}",
    "git merge --no-edit {ref}",
    "git merge --ff-only {ref}",
    "git restore --source={ref} .",
    "git restore -s {ref} -- .",
    "git checkout {ref} -- .",
    "git cherry-pick {ref}",
    "git rebase {ref}",
    "git read-tree -u -m {ref}",
    "git worktree add w2 {ref}",
    "git stash pop",
    "git stash apply",
)
# ``-`` is ``@{-1}`` to checkout, switch, merge, rebase and cherry-pick (the previous branch: ``other``).
_REFS = ("other", "refs/heads/other", "other~0", "t-other", "@{-1}", "-", "other^{commit}", "{sha}")
_PREFIXES = ("", "git -C . ", "git --no-pager ")
_FIXED = {
    "GIT_AUTHOR_DATE": "2020-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _repository(work: Path, member: str) -> str:
    """``main`` checked out; branch ``other`` (tag ``t-other``) adds ``member``; a stash changes it. Its commit."""
    env = {**os.environ, **_FIXED, "HOME": str(work)}

    def git(*argv: str) -> str:
        done = subprocess.run(["git", *argv], cwd=work, env=env, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    git("init", "-q", "-b", "main")
    for key, value in (("user.email", "a@b.c"), ("user.name", "a"), ("commit.gpgsign", "false")):
        git("config", key, value)
    (work / "f").write_text("f\n", encoding="utf-8")
    git("add", "f")
    git("commit", "-qm", "base")
    git("checkout", "-qb", "other")
    (work / member).parent.mkdir(parents=True, exist_ok=True)
    (work / member).write_text("{}\n", encoding="utf-8")
    git("add", "-f", member)
    git("commit", "-qm", "brings a protected file")
    git("tag", "t-other")
    (work / member).write_text("{'changed': 1}\n", encoding="utf-8")
    git("stash", "-q")
    git("checkout", "-q", "main")
    (work / "g").write_text("g\n", encoding="utf-8")
    git("add", "g")
    git("commit", "-qm", "main")
    return git("rev-parse", "other")


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    move=st.sampled_from(_MOVES),
    ref=st.sampled_from(_REFS),
    prefix=st.sampled_from(_PREFIXES),
    member=st.sampled_from(_MEMBERS),
)
@example(move="git checkout {ref}", ref="other", prefix="", member=".claude/settings.json")
@example(move="git stash pop", ref="other", prefix="", member=".husky/pre-commit")
@example(move="git merge --no-edit {ref}", ref="t-other", prefix="", member=".claude/settings.json")
@example(move="git checkout {ref}", ref="-", prefix="", member=".claude/settings.json")
def test_a_protected_file_git_brings_from_another_commit_is_never_written_unasked(
    new_harness: Callable[[], Any], move: str, ref: str, prefix: str, member: str
) -> None:
    """PERM-15: a git command that moves the working tree (checkout, switch, reset --hard, merge, restore --source, cherry-pick, rebase, read-tree -u, worktree add, stash pop) and so writes a protected file the other commit holds asks in bypassPermissions.

    The line names no protected file: the commit does. Composed: the command x how the commit is
    named (branch, full ref, ``~0``, tag, ``@{-1}``, ``-``, ``^{commit}``, its hash) x git's own options x
    the protected file; real git in a sandbox judges (a line that writes none is discarded).
    """
    if shutil.which("bwrap") is None or shutil.which("git") is None:
        pytest.skip("the judge needs git and bubblewrap")
    work, judged = fresh_dir(), fresh_dir()
    sha = _repository(work, member)
    assert _repository(judged, member) == sha, "the two repositories must be the same"
    line = move.replace("{ref}", ref.replace("{sha}", sha))
    line = prefix + line.removeprefix("git ") if prefix else line
    written = ths.written_paths(line, judged)
    landed = [p for p in written if p in (member, f"w2/{member}")]
    assume(landed)
    run = run_line_in_bypass(new_harness(), line, work)
    assert_asked_not_run(run, f"{line!r} writes {landed[0]} (git says so)")


# What writes the user's git configuration: ``{g}`` is where git's own options go.
_WRITERS = (
    "git {g}maintenance register",
    "git {g}maintenance start",
    "git {g}maintenance unregister",
    "git {g}config --global core.pager less",
    "git {g}config --global --add include.path x",
    "git {g}config --global --unset maintenance.repo",
    "git {g}config --global -e",
    "scalar register",
    "scalar unregister",
    # npm-config(1): the user's .npmrc, or the project's with --location=project (its script-shell runs).
    "npm config set script-shell=nuke --location=project",
    "npm config set script-shell nuke",
    "npm --location project config set script-shell nuke",
    "npm set script-shell=nuke",
    # ``npm config edit`` writes the file (its defaults, commented) before it opens the editor.
    "npm config edit --editor=true",
    "npm config edit --location=project --editor true",
)
_GIT_OPTIONS = ("", "--no-pager ", "-C . ", "-c core.quotepath=off ", "-P ")


def _registered_repository(work: Path, registered: bool) -> None:
    """A repository with one commit in ``work``, which is also ``HOME`` (registered for maintenance or not)."""
    env = {**os.environ, "HOME": str(work), "GIT_CONFIG_NOSYSTEM": "1"}
    for argv in (
        ["init", "-q"],
        ["config", "user.email", "a@b.c"],
        ["config", "user.name", "a"],
        ["commit", "-q", "--allow-empty", "-m", "x"],
    ):
        subprocess.run(["git", *argv], cwd=work, env=env, check=True, capture_output=True)
    if registered:
        (work / ".gitconfig").write_text(f"[maintenance]\n\trepo = {work}\n", encoding="utf-8")


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=30, deadline=None)
@given(writer=st.sampled_from(_WRITERS), options=st.sampled_from(_GIT_OPTIONS), registered=st.booleans())
@example(writer="git {g}maintenance register", options="", registered=False)
@example(writer="git {g}maintenance start", options="", registered=False)
@example(writer="npm config edit --editor=true", options="", registered=False)
def test_a_protected_file_a_program_writes_by_convention_is_never_written_unasked(
    new_harness: Callable[[], Any], writer: str, options: str, registered: bool
) -> None:
    """PERM-15: a program that writes the user's git configuration (``~/.gitconfig``) or npm's (``.npmrc``) with no path on its line (git maintenance register/start/unregister, scalar register, git config --global, npm config set) asks in bypassPermissions.

    Composed: the writer x git's own options x whether the repository is registered already; real
    git in a sandbox judges (a line that writes no protected file is discarded).
    """
    if shutil.which("bwrap") is None or shutil.which(writer.split()[0]) is None:
        pytest.skip("the judge needs bubblewrap and the program")
    line = writer.replace("{g}", options)
    work, judged = fresh_dir(), fresh_dir()
    for directory in (work, judged):
        _registered_repository(directory, registered)
    written = ths.written_paths(line, judged)
    landed = [p for p in written if p in (".gitconfig", ".config/git/config", ".git/config", ".npmrc")]
    assume(landed)
    run = run_line_in_bypass(new_harness(), line, work)
    assert_asked_not_run(run, f"{line!r} writes ~/{landed[0]} (its run says so)")


# What git writes from data no word of the line names (the index under ``--prefix``, a template), or
# into its own configuration: ``{g}`` is where git's own options go.
_DATA_WRITERS = (
    "git {g}checkout-index -f --prefix=. -- git/hooks/pre-commit",
    "git {g}checkout-index -a -f --prefix=.",
    "git {g}checkout-index -fa --prefix .",
    "git {g}read-tree -u --prefix=.claude/ HEAD",
    "git {g}init -q --template=tpl",
    "git {g}init -q --templ=tpl",
    "git {g}-c init.templateDir=tpl init -q",
    "GIT_TEMPLATE_DIR=tpl git {g}init -q",
    "git {g}clone -q --template=tpl . copy",
    "git {g}clone -q -c core.fsmonitor=nuke . copy",
)
_CONFIGURATION_WRITERS = (
    "git {g}remote add o https://example.invalid/x",
    "git {g}remote set-url origin /nowhere",
    "git {g}remote rename origin o",
    "git {g}remote remove origin",
    "git {g}branch --set-upstream-to=origin/main",
    "git {g}branch -m topic trunk",
    "git {g}push -q -u origin main",
    "git {g}fetch -q --set-upstream origin main",
    "git {g}checkout -q -b new --track main",
    "git {g}checkout -q -b new origin/main",
    "git {g}switch -q feature",
    "git {g}checkout -q feature",
    "git {g}worktree add -q -b w2 w2 origin/main",
    "git {g}sparse-checkout set src",
    "git {g}init -q --shared=group",
    "git {g}ra o https://example.invalid/x",
)
_DATA_OPTIONS = ("", "--no-pager ", "-C . ", "-P ", "--literal-pathspecs ")


def _data_repository(work: Path) -> None:
    """Index entries ``git/hooks/pre-commit`` and ``claude/settings.json`` (committed), a template ``tpl``.

    Remote ``origin`` is the repository itself, fetched; its ``feature`` exists only as
    ``origin/feature``; ``topic`` tracks ``origin/main``; the alias ``ra`` is ``remote add``.
    """
    env = {**os.environ, **_FIXED, "HOME": str(work)}

    def git(*argv: str) -> None:
        subprocess.run(["git", *argv], cwd=work, env=env, capture_output=True, text=True, check=True)

    git("init", "-q", "-b", "main")
    for key, value in (("user.email", "a@b.c"), ("user.name", "a"), ("commit.gpgsign", "false")):
        git("config", key, value)
    git("config", "alias.ra", "remote add")
    for name in ("git/hooks/pre-commit", "claude/settings.json", "src/f"):
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text("#!/bin/sh\nnuke\n", encoding="utf-8")
    git("add", ".")
    git("commit", "-qm", "data")
    git("branch", "feature")
    git("remote", "add", "origin", ".")
    git("fetch", "-q", "origin")
    git("branch", "-q", "-D", "feature")
    git("branch", "-q", "--track", "topic", "origin/main")
    (work / "tpl" / "hooks").mkdir(parents=True)
    (work / "tpl" / "hooks" / "pre-commit").write_text("#!/bin/sh\nnuke\n", encoding="utf-8")


def _is_protected_landing(path: str, work: Path) -> bool:
    """Whether ``path`` is under .claude/, or git's configuration or hooks, and from the data if in a new clone.

    A new repository (``copy/``) always has its own: what counts there holds the data's ``nuke``.
    """
    parts = path.split("/")
    protected = ".claude" in parts or any(
        parts[i] == ".git" and (parts[i + 1 : i + 2] in (["config"], ["hooks"])) for i in range(len(parts))
    )
    if not protected or parts[0] != "copy":
        return protected
    return (work / path).is_file() and "nuke" in (work / path).read_text(encoding="utf-8", errors="replace")


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    writer=st.sampled_from(_DATA_WRITERS + _CONFIGURATION_WRITERS),
    options=st.sampled_from(_DATA_OPTIONS),
)
@example(writer="git {g}checkout-index -f --prefix=. -- git/hooks/pre-commit", options="")
@example(writer="git {g}init -q --template=tpl", options="")
@example(writer="git {g}-c init.templateDir=tpl init -q", options="")
@example(writer="git {g}remote add o https://example.invalid/x", options="")
@example(writer="git {g}push -q -u origin main", options="")
def test_a_protected_file_git_writes_from_its_data_or_configuration_is_never_written_unasked(
    new_harness: Callable[[], Any], writer: str, options: str
) -> None:
    """PERM-15: git writing .git/hooks or .git/config from data no word names asks in bypassPermissions.

    ``git checkout-index --prefix=.`` joins the prefix and each index entry as text (``.`` +
    ``git/hooks/pre-commit``); ``git init --template`` (``-c init.templateDir``, ``GIT_TEMPLATE_DIR``)
    copies the template's hooks into ``.git/hooks``, re-run or not; ``git remote add``, ``push -u``,
    ``checkout`` of a remote-only branch, an alias... write ``.git/config``. Composed: the writer x
    git's own options; real git in a sandbox judges (a line that writes no protected file is discarded).
    """
    if shutil.which("bwrap") is None or shutil.which("git") is None:
        pytest.skip("the judge needs git and bubblewrap")
    work, judged = fresh_dir(), fresh_dir()
    for directory in (work, judged):
        _data_repository(directory)
    line = writer.replace("{g}", options)
    written = ths.written_paths(line, judged)
    landed = sorted(p for p in written if _is_protected_landing(p, judged))
    assume(landed)
    run = run_line_in_bypass(new_harness(), line, work)
    assert_asked_not_run(run, f"{line!r} writes {landed[0]} (git says so)")


# An option line of ``git <sub> -h``: ``    -t, --track[=(direct|inherit)]``, ``    --sort <key>  ...``.
_HELP_OPTION = re.compile(r"^ {2,}(?:(-\w)(?:, )?)?(--[\w-]+)?(\[=[^\]]*\]|\s<[^>]+>)?", re.M)
# A value for an option's placeholder that git takes without complaint in the data repository.
_PLACEHOLDER_VALUES = {
    "<key>": "refname",
    "<format>": "%(refname)",
    "<upstream>": "origin/main",
    "<style>": "merge",
}


@functools.cache
def _git_options(sub: str) -> tuple[tuple[str, ...], ...]:
    """Every option ``git sub -h`` lists on this machine, spelled each way git reads it.

    Short and long; a long one also negated (``--no-``) and abbreviated to a unique prefix (parse-options);
    each with a value where it takes one (attached or as the next word), or with none where it is optional.
    """
    shown = subprocess.run(["git", sub, "-h"], capture_output=True, text=True, check=False)
    usage = shown.stdout + shown.stderr  # stderr inside a repository, stdout outside (git 2.39)
    longs = [m.group(2) for m in _HELP_OPTION.finditer(usage) if m.group(2)]
    found: list[tuple[str, ...]] = []
    for match in _HELP_OPTION.finditer(usage):
        short, long, value = match.groups()
        placeholder = (value or "").strip()
        needs = placeholder.startswith("<")
        argument = _PLACEHOLDER_VALUES.get(placeholder, "HEAD")
        for name in filter(None, (short, long)):
            found.append((name, argument) if needs else (name,))
        if long is None:
            continue
        if needs:
            found.append((f"{long}={argument}",))
        else:
            found.append((f"--no-{long[2:]}",))
        prefix = next(
            (long[:n] for n in range(4, len(long)) if sum(o.startswith(long[:n]) for o in longs) == 1), None
        )
        if prefix is not None:
            found.append((prefix, argument) if needs else (prefix,))
    return tuple(found)


# Lines that make a branch off the remote-tracking ``origin/main`` or guess one from ``origin/feature``.
_BRANCH_MAKERS = (
    ("branch", "{o} made origin/main"),
    ("branch", "made origin/main {o}"),
    ("checkout", "-q {o} -b made origin/main"),
    ("checkout", "-q {o} feature"),
    ("switch", "-q {o} -c made origin/main"),
    ("switch", "-q feature {o}"),
)


@st.composite
def _branch_maker_lines(draw: st.DrawFn) -> str:
    sub, shape = draw(st.sampled_from(_BRANCH_MAKERS))
    options = draw(st.lists(st.sampled_from(_git_options(sub)), min_size=1, max_size=2))
    spelled = " ".join(shlex.join(option) for option in options)
    git = draw(st.sampled_from(_DATA_OPTIONS))
    return f"git {git}{sub} " + shape.replace("{o}", spelled)


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=30, deadline=None)
@given(line=_branch_maker_lines())
@example(line="git branch -f made origin/main")
@example(line="git branch -v made origin/main")
def test_a_branch_git_makes_tracking_a_remote_one_is_never_written_unasked(
    new_harness: Callable[[], Any], line: str
) -> None:
    """PERM-15: a branch made off a remote-tracking one, whatever option stands beside, asks in bypassPermissions.

    git records its upstream in .git/config (git-branch(1): "set up upstream configuration").

    Composed: git branch/checkout/switch x every option ``git <sub> -h`` lists on the machine (short, long,
    negated, abbreviated; one or two) x where it stands x git's own options; real git judges (a line that
    leaves .git/config alone, or that git refuses, is discarded).
    """
    if shutil.which("bwrap") is None or shutil.which("git") is None:
        pytest.skip("the judge needs git and bubblewrap")
    work, judged = fresh_dir(), fresh_dir()
    for directory in (work, judged):
        _data_repository(directory)
    written = ths.written_paths(line, judged)
    assume(".git/config" in written)
    run = run_line_in_bypass(new_harness(), line, work)
    assert_asked_not_run(run, f"{line!r} writes .git/config (git says so)")
