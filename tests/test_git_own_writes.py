"""PERM-15: what git writes from data (the index, a template) and into its own configuration: real git judges."""

from __future__ import annotations

import gzip
import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission
from reference_impl.permissions._git_own_files import LEAVES_CONFIGURATION, configuration_change
from tests.test_rules import BASH

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(cwd: Path, *argv: str) -> None:
    subprocess.run(["git", *argv], cwd=cwd, check=True, capture_output=True)


def _verdict(command: str, cwd: Path) -> str:
    context = PermissionContext(mode="bypassPermissions", rules=(), cwd=cwd, project_root=cwd)
    return decide_permission(BASH, {"command": command}, context).behavior


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A repository whose index holds ``git/hooks/pre-commit`` and ``claude/settings.json``; a template ``tpl``."""
    work = tmp_path / "repo"
    work.mkdir()
    _git(work, "init", "-q", "-b", "main")
    for name in ("git/hooks/pre-commit", "claude/settings.json", "src/f"):
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text("nuke\n")
    _git(work, "add", ".")
    (work / "tpl" / "hooks").mkdir(parents=True)
    (work / "tpl" / "hooks" / "pre-commit").write_text("#!/bin/sh\nnuke\n")
    return work


@pytest.mark.parametrize(
    "command",
    [
        "git checkout-index -f --prefix=. -- git/hooks/pre-commit",
        "git checkout-index -a --prefix=.",
        "git checkout-index -fa --prefix .",
        "git -C src checkout-index -f --prefix=../. -- ../git/hooks/pre-commit",
        "git checkout-index -a --prefix=out/ --stdin < list",
        "git read-tree -u --prefix=.claude/ HEAD",
    ],
)
def test_git_writing_the_index_under_a_prefix_asks_when_a_name_lands_on_a_protected_path(
    command: str, repository: Path
) -> None:
    """``--prefix`` joins textually: ``.`` + ``git/hooks/pre-commit`` is ``.git/hooks/pre-commit``."""
    if "read-tree" in command:
        _git(repository, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "x")
    assert _verdict(command, repository) == "ask", command


@pytest.mark.parametrize(
    "command",
    ["git checkout-index -a --prefix=out/", "git checkout-index -f -- src/f", "git checkout-index --temp -a"],
)
def test_git_writing_the_index_elsewhere_stays_allowed(command: str, repository: Path) -> None:
    assert _verdict(command, repository) == "allow", command


@pytest.mark.parametrize(
    "command",
    [
        "git init -q --template=tpl",
        "git init -q --templ=tpl",
        "git init -q --template tpl new",
        "git -c init.templateDir=tpl init -q",
        "git -c init.templatedir=tpl init -q",
        "GIT_TEMPLATE_DIR=tpl git init -q",
        "export GIT_TEMPLATE_DIR=tpl; git init -q",
        "git clone -q --template=tpl . copy",
        "mkdir -p t2/hooks && echo nuke > t2/hooks/post-checkout && git init -q --template=t2",
        "git init -q --template=$T",
        "git clone -q -c core.fsmonitor=nuke . copy",
        "git clone -q --config=core.hooksPath=x . copy",
    ],
)
def test_git_copying_a_template_into_a_git_directory_asks(command: str, repository: Path) -> None:
    """``git init --template`` (re-run or not) copies the template's hooks into ``.git/hooks``."""
    assert _verdict(command, repository) == "ask", command


@pytest.mark.parametrize(
    "command", ["git init -q", "git init -q new", "git init -q --template=missing", "git clone -q . copy"]
)
def test_git_init_and_clone_with_git_s_own_template_stay_allowed(command: str, repository: Path) -> None:
    assert _verdict(command, repository) == "allow", command


CONFIG_WRITERS = [
    "git remote add o https://example.invalid/x",
    "git remote set-url origin https://example.invalid/x",
    "git remote rename origin o",
    "git branch --set-upstream-to=origin/main",
    "git branch -u origin/main main",
    "git branch -m main trunk",
    "git push -u origin main",
    "git push --set-upstream origin main",
    "git fetch --set-upstream origin",
    "git checkout -b new --track main",
    "git sparse-checkout set src",
    "git submodule add ../x sub",
    "git init --shared=group",
    "git st",
    "git some-extension do",
]
EVERYDAY = [
    "git status",
    "git diff",
    "git diff --cached",
    "git log --oneline -5",
    "git add src/f",
    "git commit -qm x",
    "git show",
    "git branch",
    "git branch -a",
    "git branch -vv",
    "git checkout -b topic",
    "git switch -c topic",
    "git push origin main",
    "git fetch origin",
    "git tag v1",
    "git stash list",
    "git remote -v",
    "git remote",
    "git remote show origin",
    "git remote get-url origin",
    "git -c core.quotepath=off status",
    "git blame src/f",
    "git rev-parse HEAD",
]


@pytest.mark.parametrize("command", CONFIG_WRITERS)
def test_a_git_command_that_may_write_the_repository_configuration_asks(
    command: str, repository: Path
) -> None:
    """Fail closed: any git subcommand not known to leave ``.git/config`` alone asks in a repository."""
    _git(repository, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "x")
    _git(repository, "remote", "add", "origin", str(repository))
    _git(repository, "fetch", "-q", "origin")
    assert _verdict(command, repository) == "ask", command


@pytest.mark.parametrize("command", EVERYDAY)
def test_everyday_git_lines_stay_allowed(command: str, repository: Path) -> None:
    _git(repository, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "x")
    _git(repository, "remote", "add", "origin", str(repository))
    _git(repository, "fetch", "-q", "origin")
    assert _verdict(command, repository) == "allow", command


def test_outside_a_repository_git_writes_no_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The temporary directory may lie inside a checkout (the mutation runner's does): git looks no higher.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    for command in ("git remote add o https://example.invalid/x", "git st", "git push -u origin main"):
        assert _verdict(command, tmp_path) == "allow", command


@pytest.mark.parametrize(
    "command",
    [
        "npm config set script-shell=nuke --location=project",
        "npm config set script-shell nuke",
        "npm --location project config set script-shell nuke",
        "npm c set script-shell=nuke",
        "npm set script-shell=nuke",
        "npm config delete script-shell",
        "npm config edit",
        "pnpm config set script-shell nuke",
        "yarn config set script-shell nuke",
    ],
)
def test_a_package_manager_writing_its_rc_file_asks(command: str, tmp_path: Path) -> None:
    """``npm config set`` writes ``~/.npmrc`` (``--location=project``: ``./.npmrc``), which runs ``script-shell``."""
    assert _verdict(command, tmp_path) == "ask", command


@pytest.mark.parametrize("command", ["npm config get registry", "npm config list", "npm ls", "npm run build"])
def test_a_package_manager_reading_its_configuration_stays_allowed(command: str, tmp_path: Path) -> None:
    assert _verdict(command, tmp_path) == "allow", command


# How git's pages say a command writes the configuration (git 2.39's wording): "set up "upstream"
# configuration" (branch, checkout, switch), "along with its config" (branch -m/-c), "upstream
# (tracking) reference" (push/fetch/pull --set-upstream), "configuration settings for the remote are
# updated" (remote rename/remove), "by setting submodule.$name.url in .git/config" (submodule init),
# "Set a configuration variable in the newly-created repository" (clone -c).
_DOCUMENTED_WRITE = re.compile(
    r"(?i)set(?:s|ting)? up \"?upstream\"? config|along with its config|upstream \(tracking\) reference"
    r"|config\w* settings for the \w+ are (?:updated|removed)|set a config\w* variable in the newly"
    r"|by setting \S+ in \.git/config|(?:section|entry) from \.git/config|config\w* variables are created"
    r"|necessary [\w-]+ config settings|set up branch\.<name>\.remote"
)


def _page_directory() -> Path | None:
    """Where git's manual pages are (``man -w git-remote``'s directory), if installed."""
    if shutil.which("man") is None:
        return None
    found = subprocess.run(["man", "-w", "git-remote"], capture_output=True, text=True, check=False)
    return Path(found.stdout.split()[0]).parent if found.returncode == 0 and found.stdout.strip() else None


def _text(page: Path) -> str:
    """A page's text, its roff font changes and escapes removed, its blanks made one."""
    if page.suffix != ".gz":
        return " ".join(page.read_text(errors="replace").split())
    with gzip.open(page, "rt", errors="replace") as handle:
        raw = handle.read()
    return " ".join(re.sub(r"\\f[BIRP]|\\\(..|\\-|\\&|^\.\w+", " ", raw, flags=re.M).split())


def test_every_git_page_that_documents_a_configuration_write_is_modelled() -> None:
    """The model's list agrees with git's own pages on this machine: a subcommand whose page documents a
    write of the configuration is not taken as leaving it alone (its options or actions are modelled)."""
    directory = _page_directory()
    if directory is None:
        pytest.skip("git's manual pages are not installed")
    documented = {
        page.name.split(".")[0].removeprefix("git-")
        for page in directory.glob("git-*.1*")
        if _DOCUMENTED_WRITE.search(_text(page)) is not None
    }
    assert {"remote", "push", "branch", "submodule", "clone"} <= documented, documented  # the reading works
    for sub in sorted(documented):
        words = ["--set-upstream"] if sub in ("push", "fetch", "pull") else ["-t"]
        modelled = (
            sub not in LEAVES_CONFIGURATION
            or sub == "clone"  # its -c: new_repository_writes
            or configuration_change([sub, "add", "x"]) is not None
            or configuration_change([sub, *words, "x"]) is not None
        )
        assert modelled, f"git-{sub}(1) documents a configuration write the model does not know"


@pytest.mark.parametrize(
    ("args", "written"),
    [
        (("clone", "-c", "a.b=c", "https://h/x.git", "dest"), [("", "./dest/.git/config")]),
        (("clone", "-c", "a.b=c", "https://h/x.git"), [("", "./x/.git/config")]),
        (("-C", "sub", "init", "--template=t", "r"), [("t", "./sub/r/.git")]),
    ],
)
def test_a_new_repository_is_where_git_makes_it(
    args: tuple[str, ...], written: list[tuple[str, str]]
) -> None:
    """``git clone URL [DIR]`` makes DIR (or the URL's last name), ``git -C D init R`` makes D/R (git-clone(1), git(1))."""
    from reference_impl.permissions._git_own_files import new_repository_writes

    assert new_repository_writes(args) == written


def _branch_option_words() -> list[list[str]]:
    """Each option of ``git branch`` as the mined grammar names it, with a value where it takes one."""
    from reference_impl.permissions._program_grammar import GRAMMAR_FILE

    grammar = json.loads(GRAMMAR_FILE.read_text())["programs"]["git"]["sub_options"]["branch"]
    values = {
        "--sort": "refname",
        "--format": "%(refname)",
        "-u": "origin/main",
        "--set-upstream-to": "origin/main",
    }
    found: list[list[str]] = []
    for name in sorted(grammar["names"]):
        if name in grammar["values"] or grammar["names"][name] in grammar["values"]:
            found.append([name, values.get(name, "HEAD")])
        else:
            found.append([name])
    return found


@pytest.mark.parametrize("after", [False, True], ids=["options-first", "options-last"])
@pytest.mark.parametrize("option", _branch_option_words(), ids=" ".join)
def test_git_branch_writing_tracking_configuration_asks_whatever_option_stands_beside(
    option: list[str], after: bool, repository: Path
) -> None:
    """PERM-15, git as the judge: ``git branch OPTION new origin/main`` asks wherever git writes ``.git/config``.

    Any option of git-branch(1), before or after the operands: a branch started off a remote-tracking
    one tracks it, ``git branch -f x o/x`` and ``git branch -v x o/x`` too.
    """
    _git(repository, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "x")
    _git(repository, "remote", "add", "origin", str(repository))
    _git(repository, "fetch", "-q", "origin")
    argv = ["git", "branch", *(["new", "origin/main", *option] if after else [*option, "new", "origin/main"])]
    verdict = _verdict(shlex.join(argv), repository)
    before = (repository / ".git" / "config").read_bytes()
    subprocess.run(argv, cwd=repository, capture_output=True, check=False)
    if (repository / ".git" / "config").read_bytes() != before:
        assert verdict == "ask", f"{shlex.join(argv)} wrote .git/config, yet was {verdict}"
