"""What a program starts by its defaults or a configuration the line names is judged too (PERM-17).

git starts its editor (``git var GIT_EDITOR``: ``editor`` on Debian) for ``git commit`` with no
message, ``tag -a``, ``rebase -i``, ``add -e``...; it starts gpg, gpgsm or ssh-keygen to verify a
signature (``log --show-signature``, ``%G?``, ``verify-commit``, ``log.showSignature`` set). docker
``--config DIR`` runs DIR's CLI plug-ins; ``kubectl --kubeconfig k`` its exec credential plugins.
A deny rule on the started program asks; everyday lines stay allowed (red team, session 33).
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission, parse_rule
from reference_impl.permissions import _git_started
from tests.test_rules import BASH


def _decide(line: str, deny: str, allow: str, cwd: Path) -> str:
    rules = (parse_rule(deny, "deny", "userSettings"), parse_rule(allow, "allow", "userSettings"))
    context = PermissionContext(rules=rules, cwd=cwd, project_root=cwd)
    return decide_permission(BASH, {"command": line}, context).behavior


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


_EDITOR = _git_started.git_editors()[0]


@pytest.mark.parametrize(
    "line",
    [
        "git commit --allow-empty",
        "git commit -e -m x",
        "git commit --amend",
        "git tag -a v1",
        "git tag -a -e -m m v2",
        "git config -f x.cfg --edit",
        "git notes add",
        "git rebase -i HEAD~1",
        "git merge --edit b",
        "git add -e",
        "git add -p",
        "git cherry-pick -e b",
        "git -C . commit",
        "git -c core.quotepath=off revert HEAD",
        "git stash -p",
        "git commit --fixup=amend:HEAD",
        "git commit --fixup reword:HEAD",
        # Read as git reads its options: tag's --no-edit only undoes -e, -Sm is a key id, --edi is --edit.
        "git tag -a --no-edit v1",
        "git tag --ann v1",
        "git commit -Sm",
        "git commit --edi -m x",
        "git commit -m x --reedit HEAD",
    ],
)
def test_a_git_command_that_opens_the_editor_asks_under_a_deny_on_it(line: str, repository: Path) -> None:
    """PERM-17: git's default editor (no option names it) is a program a deny rule applies to."""
    assert _decide(line, f"Bash({_EDITOR}:*)", "Bash(git:*)", repository) == "ask"


@pytest.mark.parametrize(
    "line",
    [
        "git log --show-signature",
        "git show --show-signature",
        "git log --format=%G?",
        "git log --pretty=format:%GS",
        "git verify-commit HEAD",
        "git verify-tag v1",
        "git tag -v v1",
        "git -c log.showSignature=true log",
        "git merge --verify-signatures b",
    ],
)
@pytest.mark.parametrize("program", _git_started.GIT_SIGNATURE_PROGRAMS)
def test_a_git_command_that_verifies_a_signature_asks_under_a_deny_on_its_program(
    line: str, program: str, repository: Path
) -> None:
    """PERM-17: the signature's kind (in the object) picks gpg, gpgsm or ssh-keygen: each may start."""
    assert _decide(line, f"Bash({program}:*)", "Bash(git:*)", repository) == "ask"


def test_log_show_signature_in_the_repository_configuration_makes_plain_log_ask(repository: Path) -> None:
    """PERM-17: ``log.showSignature`` in .git/config: a plain ``git log`` verifies every signature."""
    subprocess.run(["git", "-C", str(repository), "config", "log.showSignature", "true"], check=True)
    assert _decide("git log -1", "Bash(gpg:*)", "Bash(git:*)", repository) == "ask"


@pytest.mark.parametrize(
    ("line", "deny"),
    [
        ("git commit -m x", f"Bash({_EDITOR}:*)"),
        ("git commit -am x", f"Bash({_EDITOR}:*)"),
        ("git commit --amend --no-edit", f"Bash({_EDITOR}:*)"),
        ("git commit --fixup=HEAD", f"Bash({_EDITOR}:*)"),
        ("git log --oneline", f"Bash({_EDITOR}:*)"),
        ("git tag v1", f"Bash({_EDITOR}:*)"),
        ("git tag -am m v1", f"Bash({_EDITOR}:*)"),
        ("git tag -a --mess=m v1", f"Bash({_EDITOR}:*)"),
        ("git merge --no-edit b", f"Bash({_EDITOR}:*)"),
        ("git commit -qam x", f"Bash({_EDITOR}:*)"),
        ("git notes list", f"Bash({_EDITOR}:*)"),
        ("git config --get user.name", f"Bash({_EDITOR}:*)"),
        ("git log --oneline", "Bash(gpg:*)"),
        ("git branch -v", "Bash(gpg:*)"),
        ("git show HEAD", "Bash(gpg:*)"),
        ("git log --show-signature --no-show-signature", "Bash(gpg:*)"),
        ("git status", "Bash(nuke:*)"),
        ("docker ps", "Bash(nuke:*)"),
        ("docker info", "Bash(nuke:*)"),
        ("kubectl get configmaps", "Bash(nuke:*)"),
    ],
)
def test_everyday_lines_stay_allowed(line: str, deny: str, repository: Path) -> None:
    """PERM-17: a line with a message, a display without signatures: nothing the deny rule names starts."""
    program = line.split()[0]
    assert _decide(line, deny, f"Bash({program}:*)", repository) == "allow"


@pytest.mark.parametrize(
    ("line", "allow"),
    [
        ("docker --config=d info", "Bash(docker:*)"),
        ("docker --config d buildx ls", "Bash(docker:*)"),
        ("docker --config=d --help", "Bash(docker:*)"),
        ("docker --config=d version", "Bash(docker:*)"),
        ("kubectl --kubeconfig=k get pods", "Bash(kubectl:*)"),
        ("kubectl --kubeconfig k get pods", "Bash(kubectl:*)"),
        ("helm --repository-config r.yaml list", "Bash(helm:*)"),
        ("gh --config-dir d pr list", "Bash(gh:*)"),
    ],
)
def test_an_option_moving_a_program_s_configuration_asks(line: str, allow: str, repository: Path) -> None:
    """PERM-17: the plug-ins and helpers of a configuration the line names are code the engine does not read."""
    assert _decide(line, "Bash(nuke:*)", allow, repository) == "ask"


def test_an_allow_rule_naming_the_moved_configuration_vouches(repository: Path) -> None:
    """PERM-17: the user's explicit trust of that configuration (the rule names the option)."""
    line = "kubectl --kubeconfig=k get pods"
    assert _decide(line, "Bash(nuke:*)", "Bash(kubectl --kubeconfig=k:*)", repository) == "allow"


@pytest.mark.parametrize(
    ("line", "opens"),
    [
        ("pull --no-edit -ri . main", True),
        ("pull --no-edit --rebase=interactive . main", True),
        ("pull --no-edit --reb=i . main", True),
        ("pull --no-edit --rebase . main", False),
        ("pull --no-edit --rebase=merges . main", False),
        ("config edit", True),
        ("config --get user.name", False),
        ("commit --fixup", True),
        ("commit --fix=reword:HEAD", True),
        ("commit --fixup HEAD", False),
    ],
)
def test_what_a_value_or_an_operand_says_about_the_editor(line: str, opens: bool) -> None:
    """PERM-17: ``pull --rebase=i`` edits a todo list, ``config edit`` (git 2.46) the file, ``--fixup=reword:`` a message.

    Read from the words alone (the engine asks on any ``git pull`` for what it fetches, so only
    :func:`git_started` shows it); a bare ``--rebase`` is ``true``, no editor.
    """
    sub, *rest = line.split()
    assert (_EDITOR in _git_started.git_started(sub, rest, [])) is opens


def test_the_editor_is_the_one_git_names_here() -> None:
    """PERM-17: ``git var GIT_EDITOR`` (git's compiled default with no setting) is among the editors."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = {"PATH": "/usr/bin:/bin", "TERM": "xterm", "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", "var", "GIT_EDITOR"], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.split()[0].rsplit("/", 1)[-1] in _git_started.git_editors()


# Pages that mention the editor but whose command never starts it (why, after the name).
_NOT_EDITING = {
    "git-var": "prints the editor's name",
    "git-sh-setup": "a library for scripts (git_editor)",
    "git-rev-parse": "--parseopt's help text",
    "git-format-patch": "writes a cover letter to edit later",
    "git-maintenance": "its scheduler's crontab, not git's editor",
    "git-push": "the remote's hooks",
}
_EDITOR_WORDS = re.compile(r"GIT_EDITOR|core\\?\.editor|sequence\\?\.editor|\b(the|an|your) editor\b", re.I)


def _page_directory() -> Path | None:
    if shutil.which("man") is None:
        return None
    found = subprocess.run(["man", "-w", "git-commit"], capture_output=True, text=True, check=False)
    return Path(found.stdout.strip()).parent if found.returncode == 0 and found.stdout.strip() else None


def test_every_git_page_that_mentions_the_editor_is_modelled() -> None:
    """PERM-17: git's own manual pages say which subcommands open the editor; each is in the table."""
    pages = _page_directory()
    if pages is None:
        pytest.skip("git's manual pages are not installed here")
    mentioned = set()
    for page in pages.glob("git-*.1.gz"):
        with gzip.open(page, "rt", errors="replace") as handle:
            if _EDITOR_WORDS.search(handle.read()):
                mentioned.add(page.name.removesuffix(".1.gz"))
    modelled = {f"git-{sub}" for sub in _git_started._OPENING}
    missing = sorted(mentioned - modelled - set(_NOT_EDITING))
    assert not missing, f"git pages mentioning the editor, not modelled: {missing}"
