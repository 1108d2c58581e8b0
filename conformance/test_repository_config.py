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
from unittest import mock

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


_KINDS = (
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
)


@st.composite
def mechanisms(draw: st.DrawFn, kinds: tuple[str, ...] = _KINDS) -> Mechanism:
    """A way the repository makes git run the program, and a git command that triggers it."""
    value = draw(st.sampled_from(_VALUES))
    kind = draw(st.sampled_from(kinds))
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


# Git reads its global configuration from $HOME/.gitconfig, or from $GIT_CONFIG_GLOBAL: the line points
# one at ../cfg by any of bash's ways of setting a variable ({v}, to {x}), composed with a way of
# exporting it (HOME is exported already; under ``set -a`` every assignment is). An expansion assigns
# only an unset or empty variable: with HOME set it is a no-op, and real git says so.
_ASSIGNMENTS = (
    "{v}={x} git {t}",
    "{v}={x}; git {t}",
    "export {v}={x}; git {t}",
    "declare {v}={x}; git {t}",
    "for {v} in {x}; do git {t}; done",
    "read -r {v} <<< {x}; git {t}",
    "printf -v {v} %s {x}; git {t}",
    "mapfile -t {v} <<< {x}; git {t}",
    ": ${{v}={x}}; git {t}",
    'echo "${{v}:={x}}" >/dev/null && git {t}',
    "case ${{v}={x}} in *) git {t};; esac",
    "[[ -n ${{v}:={x}} ]] && git {t}",
)
_GLOBAL_VARIABLES = {"HOME": "../cfg", "GIT_CONFIG_GLOBAL": "../cfg/.gitconfig"}
_EXPORTS = ("", "set -a; ", "set -o allexport; ")


@st.composite
def global_config_settings(draw: st.DrawFn) -> str:
    """A line (``{t}`` the git subcommand) that makes git read ../cfg/.gitconfig as its global configuration."""
    variable = draw(st.sampled_from(sorted(_GLOBAL_VARIABLES)))
    assignment = draw(st.sampled_from(_ASSIGNMENTS))
    exporting = draw(st.sampled_from(_EXPORTS))
    return exporting + assignment.replace("{v}", variable).replace("{x}", _GLOBAL_VARIABLES[variable])


_HOME = "~"
"""The placement where the mechanism is in a global configuration ``../cfg/.gitconfig`` the line makes git read."""
_GLOBAL_MECHANISMS = ("fsmonitor", "alias", "alias-git", "editor")
_IN_HOME = "$HOME"
"""The placement where the repository is the HOME directory itself, which a bare ``cd`` reaches."""
"""The mechanisms that are configuration alone (no hook, attribute or submodule), which a global file can hold."""


_LINKED = "evil"
"""The placement where the repository is ``evil``, reached by climbing out of ``l``, a link to ``evil/sub``."""
# ``..`` after the link climbs from its target wherever the kernel resolves it (a program's chdir,
# ``cd -P``, and bash's ``cd ..`` after ``cd -P l`` put it in evil/sub); bash's plain ``cd l/..`` folds
# the text and stays, so the working directory, no repository, is where git would run.
_THROUGH_LINK = (
    "git -C l/.. {t}",
    "git -C l -C .. {t}",
    "git --no-pager -C l/../ {t}",
    "cd -P l/.. && git {t}",
    "cd -LP l/..; git {t}",
    "cd l && git -C .. {t}",
    "cd -P l && cd .. && git {t}",
    "env -C l/.. git {t}",
    "env --chdir=l/.. git {t}",
)


@st.composite
def placements(draw: st.DrawFn) -> tuple[str, str]:
    """(where the repository is, relative to the working directory; how the git command reaches it).

    ``where`` is ``~`` for a repository in the working directory whose configuration moved to a
    folder the line then makes git's HOME, ``$HOME`` for a repository that is HOME itself, ``evil``
    for one the line reaches by ``..`` after a link into it.
    """
    where = draw(st.sampled_from(["", "sub", "a/b", _HOME, _IN_HOME, _LINKED]))
    if where == _LINKED:
        return where, draw(st.sampled_from(_THROUGH_LINK))
    if where == _HOME:
        return where, draw(global_config_settings())
    if where == _IN_HOME:
        return where, draw(
            st.sampled_from(["cd && git {t}", "cd; git --no-pager {t}", "cd ~ && git {t}", "git -C ~ {t}"])
        )
    if not where:
        return "", draw(st.sampled_from(["git {t}", "git -c color.ui=never {t}", "git --no-pager {t}"]))
    return where, draw(
        st.sampled_from(
            [
                "git -C {w} {t}",
                "cd {w} && git {t}",
                "cd {w}; git --no-pager {t}",
                "git --no-pager -C {w} {t}",
                "git -c color.ui=never -C {w} {t}",
                "git -C . -C {w} {t}",
            ]
        )
    )


@st.composite
def repositories(draw: st.DrawFn) -> tuple[Mechanism, tuple[str, str]]:
    """A mechanism and a placement (one a global configuration can hold, for the ``~`` placement)."""
    placement = draw(placements())
    return draw(mechanisms(_GLOBAL_MECHANISMS if placement[0] == _HOME else _KINDS)), placement


def _environment(bin_dir: Path, home: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    keep.update(PATH=f"{bin_dir}:{os.environ.get('PATH', '')}", HOME=str(home), GIT_CONFIG_NOSYSTEM="1")
    keep.update(
        GIT_AUTHOR_NAME="a", GIT_AUTHOR_EMAIL="a@b", GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@b"
    )
    # A commit whose line did not reach the configuration's core.editor falls back to these (not vi,
    # which would wait on its closed input until the timeout).
    keep.update(VISUAL="true", EDITOR="true")
    return keep


def _ran_unasked(
    harness: Any, line: str, rules: list[RuleSpec], mode: str, work: Path, env: dict[str, str]
) -> bool:
    """Whether the harness ran ``line`` unasked and real git, running it, ran the denied program (its marker is there)."""
    with mock.patch.dict(os.environ, {"HOME": env["HOME"]}):  # the harness's HOME is git's
        run = run_calls(
            harness, [shell_tool()], [("Bash", {"command": line})], rules=rules, mode=mode, cwd=work
        )
    if run.ran() == 0:
        return False
    subprocess.run(
        ["bash", "-c", line], cwd=work, env=env, capture_output=True, timeout=30, stdin=subprocess.DEVNULL
    )
    return (work.parent / "ran").exists()


def _denied_program(root: Path) -> Path:
    """The folder of the denied program: a marker writer, which leaves ``root/ran`` when it runs."""
    bin_dir = root / "bin"
    bin_dir.mkdir(parents=True)
    program = bin_dir / _DENIED
    program.write_text(f"#!/bin/sh\ntouch {shlex.quote(str(root / 'ran'))}\ncat >/dev/null 2>&1 || true\n")
    program.chmod(0o755)
    return bin_dir


def _build(mechanism: Mechanism, where: str) -> tuple[Path, Path, dict[str, str]]:
    """A working directory with the repository, the denied program (a marker writer) and the environment."""
    root = fresh_dir()
    work, bin_dir, home = root / "work", _denied_program(root), root / "home"
    for folder in (work, home):
        folder.mkdir(parents=True)
    repository = home if where == _IN_HOME else work / where if where not in ("", _HOME) else work
    repository.mkdir(parents=True, exist_ok=True)
    if where == _LINKED:
        (repository / "sub").mkdir()
        (work / "l").symlink_to(f"{_LINKED}/sub")
    setup = mechanism.setup.replace("{bin}", str(bin_dir)).replace("{p}", _DENIED)
    script = f"git init -q . && echo a > f && git add f && git commit -q -m i && {setup}"
    if where == _HOME:
        # The configuration goes to ../cfg/.gitconfig; the repository starts again with a plain one.
        script += " && mkdir ../cfg && cp .git/config ../cfg/.gitconfig && rm -rf .git && git init -q ."
        script += " && git add f && git commit -q -m i"
    env = _environment(bin_dir, home)
    subprocess.run(
        ["bash", "-c", script], cwd=repository, env=env, check=True, capture_output=True, timeout=30
    )
    return work, root, env


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=80, deadline=None)
@given(case=repositories(), mode=st.sampled_from(["default", "bypassPermissions"]))
def test_deny_rule_holds_against_what_the_repository_makes_git_run(
    new_harness: Callable[[], Any], case: tuple[Mechanism, tuple[str, str]], mode: str
) -> None:
    """PERM-17: a deny rule's program never runs unasked through a repository's git configuration or hooks.

    The configuration (``core.fsmonitor``, ``diff.external``, a textconv driver, a clean filter, an
    alias ``!cmd`` or one renaming a subcommand, ``core.editor``) or a hook (a link to the program, a
    script, in ``.git/hooks`` or a ``core.hooksPath`` directory) names the denied program, in a
    repository the line reaches (``-C`` after other global options and their values, ``cd DIR``, a
    bare ``cd``, ``cd ~`` or ``git -C ~`` to a repository that is HOME, ``..`` after a link into it
    as the kernel climbs: ``git -C l/..``, ``env -C l/..``, ``cd -P l/..``, ``cd l && git -C ..``), or a
    global configuration does, which the line makes git read by setting HOME or GIT_CONFIG_GLOBAL any
    way bash can (an assignment, ``export``, ``declare``, a ``for`` loop, ``read``, ``printf -v``,
    ``mapfile``, an expansion ``${v=x}`` / ``${v:=x}`` in any word), exported under ``set -a``; the git
    command that triggers it is allowed by a rule for git itself. Whatever the harness runs without
    anyone asked is run by real git in that repository: the denied program must not have run.
    """
    mechanism, (where, spelling) = case
    _assert_denied_program_never_ran(new_harness(), mechanism, where, spelling, mode)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    mechanism=mechanisms(_GLOBAL_MECHANISMS),
    spelling=global_config_settings(),
    mode=st.sampled_from(["default", "bypassPermissions"]),
)
def test_deny_rule_holds_when_the_line_moves_gits_global_configuration(
    new_harness: Callable[[], Any], mechanism: Mechanism, spelling: str, mode: str
) -> None:
    """PERM-17: a line that points git's global configuration elsewhere never runs a denied program unasked.

    The configuration in ``../cfg/.gitconfig`` names the denied program; the line makes git read it
    by setting HOME or GIT_CONFIG_GLOBAL (an assignment, ``export``, ``declare``, a ``for`` loop,
    ``read``, ``printf -v``, ``mapfile``, an expansion ``${v=x}`` or ``${v:=x}`` in any word), with
    or without ``set -a``, which exports every later assignment. Real git judges what ran.
    """
    _assert_denied_program_never_ran(new_harness(), mechanism, _HOME, spelling, mode)


def _assert_denied_program_never_ran(
    harness: Any, mechanism: Mechanism, where: str, spelling: str, mode: str
) -> None:
    work, _root, env = _build(mechanism, where)
    line = spelling.replace("{w}", where).replace("{t}", mechanism.trigger)  # a spelling may hold ``${...}``
    rules = [
        RuleSpec(f"Bash({_DENIED}:*)", "deny"),
        RuleSpec("Bash(git:*)", "allow"),
        RuleSpec("Bash(cd:*)", "allow"),
        RuleSpec("Bash(env:*)", "allow"),
    ]
    assert not _ran_unasked(harness, line, rules, mode, work, env), (
        f"{line!r} ran unasked ({mode}) and git ran {_DENIED} through {mechanism.name} ({mechanism.setup})"
    )


# What an ordinary repository's configuration holds (a user, a remote, a branch, aliases renaming subcommands).
_ORDINARY = (
    "git config user.name x && git remote add origin https://example.com/r.git && "
    "git config branch.main.remote origin && git config alias.co checkout && git config alias.last 'log -1 HEAD'"
)


@st.composite
def ordinary_lines(draw: st.DrawFn) -> tuple[str, str]:
    """(where an ordinary repository is; a line that reaches it with git, perhaps after an allowed part with a run-time word)."""
    where, spelling = draw(placements().filter(lambda placed: placed[0] not in (_HOME, _IN_HOME)))
    trigger = draw(
        st.sampled_from(["status", "diff", "log --oneline -1", "add f", "commit -q --allow-empty -m x"])
    )
    before = draw(st.sampled_from(["", 'echo "$PWD" >/dev/null; ', "echo a && "]))
    return where, before + spelling.replace("{w}", where).replace("{t}", trigger)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-16", "MUST")
@settings(max_examples=30, deadline=None)
@given(drawn=ordinary_lines())
def test_an_ordinary_repository_keeps_git_allowed(
    new_harness: Callable[[], Any], drawn: tuple[str, str]
) -> None:
    """PERM-16: git in a repository with an ordinary configuration stays allowed by a rule for git.

    The configuration holds a user, a remote, a branch and aliases renaming subcommands; the line
    reaches the repository however it may (``-C``, ``cd``, git's global options), perhaps after an
    allowed part with a word only known at run time. Nothing there runs a program.
    """
    where, line = drawn
    work, _root, env = _build(Mechanism("ordinary", _ORDINARY, ""), where)
    rules = [
        RuleSpec(f"Bash({_DENIED}:*)", "deny"),
        RuleSpec("Bash(git:*)", "allow"),
        RuleSpec("Bash(cd:*)", "allow"),
        RuleSpec("Bash(echo:*)", "allow"),
        RuleSpec("Bash(env:*)", "allow"),
    ]
    with mock.patch.dict(os.environ, {"HOME": env["HOME"]}):
        run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, cwd=work)
    assert run.ran() == 1, f"{line!r} in an ordinary repository was not allowed: {run.describe()}"


@dataclass(frozen=True)
class SwitchedInclude:
    """An include whose target names the denied program, and how the line itself makes git read it.

    ``config`` is appended to ``.git/config`` (``{root}`` the example's root); ``setup`` runs in the
    repository after it; ``switch`` is the line's part before git that meets the include's condition
    or gives the target its content.
    """

    name: str
    config: str
    setup: str
    switch: str


# The setting that makes git run the program, as an included file holds it, and the git subcommand that reads it.
_INCLUDED_SETTINGS = {
    "fsmonitor": ("[core]\n\tfsmonitor = {v}\n", ("status", "diff")),
    "external": ("[diff]\n\texternal = {v}\n", ("diff --ext-diff",)),
    "alias": ("[alias]\n\tst = !{v}\n", ("st",)),
    "hooks-path": ("[core]\n\thooksPath = {root}/hooks\n", ("commit -q --allow-empty -m x",)),
}


@st.composite
def switched_includes(draw: st.DrawFn) -> tuple[SwitchedInclude, str, str]:
    """(an include and how the line switches it on, the included file's text, the git subcommand that reads it).

    The condition kind (``onbranch:``, ``hasconfig:remote.*.url:``, ``gitdir:``, ``gitdir/i:``, or
    none), how the line meets it (a checkout or switch of the branch, a remote added, nothing: the
    condition holds already; for a plain include, a write of the file it names, missing until then,
    or a checkout bringing a tracked file's other content), reached directly or through another
    include.
    """
    setting, triggers = _INCLUDED_SETTINGS[draw(st.sampled_from(sorted(_INCLUDED_SETTINGS)))]
    text = setting.replace("{v}", draw(st.sampled_from(_VALUES)))
    kind = draw(st.sampled_from(["onbranch", "hasconfig", "gitdir", "gitdir/i", "written", "tracked"]))
    target = "{root}/included.cfg"
    if kind == "onbranch":
        header, setup = '[includeIf "onbranch:o"]', "git branch o"
        switch = draw(st.sampled_from(["git checkout -q o && ", "git switch -q o; "]))
    elif kind == "hasconfig":
        header, setup = '[includeIf "hasconfig:remote.*.url:https://z.example/r"]', ""
        switch = "git remote add z https://z.example/r && "
    elif kind in ("gitdir", "gitdir/i"):
        # The condition holds now (gitdir/i: whatever the case): git's own listing shows it too.
        header, setup, switch = f'[includeIf "{kind}:{{work}}/"]', "", ""
    elif kind == "written":
        header, setup = "[include]", "mv {root}/included.cfg {root}/payload.cfg"
        switch = draw(
            st.sampled_from(
                [
                    "cp {root}/payload.cfg {root}/included.cfg && ",
                    "cat {root}/payload.cfg > {root}/included.cfg; ",
                ]
            )
        )
    else:
        # A tracked file in the work tree: benign on this branch, the setting on branch o.
        header, target = "[include]", "../included.cfg"
        setup = (
            "git checkout -q -b o && cp {root}/included.cfg included.cfg && git add included.cfg && "
            "git commit -q -m o && git checkout -q - && printf '[user]\\n\\tname = a\\n' > included.cfg && "
            "git add included.cfg && git commit -q -m benign"
        )
        switch = "git checkout -q o && "
    if draw(st.booleans()):
        # Through a plain include of another file that holds the conditional one (a relative path
        # is relative to the file that holds it: outer.cfg is not in .git/).
        nested, target = "{root}/outer.cfg", target.replace("../", "{work}/")
        setup = f"printf '%s\\n\\tpath = %s\\n' {_quoted(header)} {_quoted(target)} > {nested}" + (
            f" && {setup}" if setup else ""
        )
        header, target = "[include]", nested
    config = f"{header}\n\tpath = {target}\n"
    return SwitchedInclude(kind, config, setup, switch), text, draw(st.sampled_from(triggers))


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=40, deadline=None)
@given(drawn=switched_includes(), mode=st.sampled_from(["default", "bypassPermissions"]))
def test_deny_rule_holds_against_an_include_the_line_switches_on(
    new_harness: Callable[[], Any], drawn: tuple[SwitchedInclude, str, str], mode: str
) -> None:
    """PERM-17: a deny rule's program never runs unasked through an include the same line switches on.

    The repository's configuration includes a file (whatever the include's condition: ``onbranch:``,
    ``hasconfig:remote.*.url:``, ``gitdir:``, ``gitdir/i:``, none; directly or through another
    include) that sets what makes git run the denied program (``core.fsmonitor``, ``diff.external``,
    an alias ``!cmd``, ``core.hooksPath``). The line first meets the condition or gives the file its
    content (a checkout of the branch, a remote added, the file written, a checkout bringing a tracked
    file's other content), then runs the git subcommand that reads the setting, allowed by a rule for
    git. Whatever the harness runs unasked is run by real git: the denied program must not have run.
    """
    include, text, trigger = drawn
    root = fresh_dir()
    work, bin_dir, home = root / "work", _denied_program(root), root / "home"
    for folder in (work, home, root / "hooks"):
        folder.mkdir(parents=True)
    (root / "hooks" / "pre-commit").symlink_to(bin_dir / _DENIED)

    def filled(template: str) -> str:
        return (
            template.replace("{root}", str(root)).replace("{work}", str(work)).replace("{bin}", str(bin_dir))
        )

    (root / "included.cfg").write_text(filled(text).replace("{p}", _DENIED))
    env = _environment(bin_dir, home)
    subprocess.run(
        ["bash", "-c", "git init -q . && echo a > f && git add f && git commit -q -m i"],
        cwd=work,
        env=env,
        check=True,
        capture_output=True,
        timeout=30,
    )
    with (work / ".git" / "config").open("a") as config:
        config.write(filled(include.config))
    if include.setup:
        subprocess.run(
            ["bash", "-c", filled(include.setup)],
            cwd=work,
            env=env,
            check=True,
            capture_output=True,
            timeout=30,
        )
    (work / "f").write_text("a\nb\n")  # a change for diff to show
    line = filled(include.switch) + f"git {trigger}"
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec("Bash(*)", "allow")]
    assert not _ran_unasked(new_harness(), line, rules, mode, work, env), (
        f"{line!r} ran unasked ({mode}) and git ran {_DENIED} through an include ({include.name}: {include.config!r})"
    )
