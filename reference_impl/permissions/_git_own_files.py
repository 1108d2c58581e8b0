"""What git writes into its own directory beside objects and refs: its configuration and templates (PERM-15).

``git remote add o U`` writes ``.git/config``; ``git push -u``, ``git branch --set-upstream-to``,
``git checkout o-branch`` (a branch made from a remote one, which it tracks) do too; ``git init
--template=T`` (re-run in a repository or not), ``git -c init.templateDir=T init`` and
``GIT_TEMPLATE_DIR=T git clone`` copy ``T/hooks/*`` into ``.git/hooks``; ``git clone -c k=v``
writes the new repository's configuration. None names the file it writes.

Fail closed: a subcommand counts as possibly writing the repository's configuration unless it is
one whose page (``git-<sub>(1)``) documents no such write, with the options and actions that page
says set configuration (``tests/test_git_own_writes.py`` reads the pages on the machine to check
the list). An alias or an extension (``git st``, ``git lfs``) may be any command: it counts too.
Whether git writes it is asked of git where the line can't tell (a branch made from a
remote-tracking one), by :mod:`._git_tree_writes`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from reference_impl.permissions._program_grammar import options_given, value_positions

__all__ = [
    "LEAVES_CONFIGURATION",
    "configuration_change",
    "git_subcommand",
    "new_repository_writes",
]

Argv = Sequence[str | None]

# git's global options whose value is the next word (git.c).
_GLOBAL_VALUES = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix"})
_GLOBAL_VALUES |= frozenset({"--config-env", "--attr-source", "--exec-path"})


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


LEAVES_CONFIGURATION = _names(
    # Reads.
    "status log diff show blame annotate grep describe shortlog rev-parse ls-files ls-tree cat-file "
    "rev-list show-ref show-branch merge-base name-rev count-objects version help whatchanged "
    "range-diff cherry for-each-ref diff-tree diff-index diff-files check-ignore check-attr "
    "check-ref-format check-mailmap var verify-commit verify-tag verify-pack ls-remote "
    "get-tar-commit-id format-patch archive bundle request-pull "
    # Objects, refs, the index, the working tree and git's state files only.
    "add stage commit tag notes stash merge rebase reset restore rm mv clean cherry-pick revert am "
    "apply bisect reflog fsck gc prune repack pack-refs update-index update-ref symbolic-ref "
    "hash-object write-tree mktree mktag commit-tree read-tree checkout-index merge-file merge-tree "
    "rerere replace fetch pull push checkout switch branch worktree init clone "
    # Judged by their own rules: ``git config`` by its words, ``git maintenance register`` and
    # ``git submodule add``/``init``... as conventional writes.
    "config maintenance"
)
"""Subcommands whose page documents no write of the repository's configuration, but for :data:`_CONFIGURING`.

``remote``, ``sparse-checkout`` and ``submodule`` are judged by their action (:data:`_READING_ACTIONS`).
"""

# Options (canonical, as the mined grammar names them) that the pages say set configuration.
_CONFIGURING: dict[str, frozenset[str]] = {
    "push": _names("-u --set-upstream"),
    "fetch": _names("--set-upstream"),
    "pull": _names("--set-upstream"),
    "branch": _names("-u --set-upstream-to --unset-upstream --edit-description -m -M -c -C -t --track"),
    "checkout": _names("-t --track"),
    "switch": _names("-t --track"),
    "worktree": _names("-t --track"),
    "init": _names("--shared --separate-git-dir"),
}
# Subcommand actions that leave the configuration alone (their others write it).
_READING_ACTIONS: dict[str, frozenset[str] | None] = {
    "remote": _names("show get-url prune update set-head"),
    "sparse-checkout": _names("list check-rules"),
    "submodule": _names("status summary foreach absorbgitdirs update"),
}
# ``git branch``'s options that make it list, show or delete (builtin/branch.c): with them its operands
# are patterns or branches deleted, not branches made. ``-v``, ``--format``, ``--sort`` and ``--column``
# only shape a listing: ``git branch -v x o/x`` makes x, tracking o/x.
_BRANCH_LISTING = _names("-l --list -a --all -r --remotes --contains --no-contains --merged --no-merged")
_BRANCH_LISTING |= _names("--points-at --show-current -d -D --delete")


def git_subcommand(args: Argv) -> tuple[int, str | None]:
    """(where the subcommand is in ``git args``, the subcommand): past the global options and their values."""
    index = 0
    while index < len(args):
        word = args[index]
        if word is None or not word.startswith("-"):
            break
        index += 2 if word in _GLOBAL_VALUES else 1
    return index, args[index] if index < len(args) else None


def configuration_change(args: Argv) -> str | None:
    """Whether ``git args`` may write the repository's configuration (from its words alone).

    None: it does not; ``"writes"``: it may; ``"tracks"``: a branch it makes may track another,
    which git tells (:func:`._git_tree_writes.git_tree_writes`).
    """
    index, sub = git_subcommand(args)
    if index >= len(args):
        return None  # ``git`` alone, ``git --version``
    if sub is None:
        return "writes"  # a subcommand only known when it runs
    words = list(args[index + 1 :])
    if sub in _READING_ACTIONS:
        if any(word is None for word in words):
            return "writes"
        operands = [w for w in words if w is not None and not w.startswith("-")]
        reading = _READING_ACTIONS[sub] or frozenset()
        if sub == "submodule" and "--init" in words:
            return "writes"
        return None if not operands or operands[0] in reading else "writes"
    if sub not in LEAVES_CONFIGURATION:
        return "writes"
    if sub not in _CONFIGURING and sub != "worktree":
        return None
    given = options_given(["git", sub, *words])
    if given is None:
        # ``git worktree add``: its options are not catalogued; read them from its words.
        given = {w.partition("=")[0]: [] for w in words if w is not None and w.startswith("-")}
    if set(given) & _CONFIGURING[sub]:
        return "writes"
    if sub == "init" and any(w is not None and w.startswith("--shared") for w in words):
        return "writes"
    if sub == "branch":
        values = value_positions(["git", sub, *words])
        operands = [w for i, w in enumerate(words, 2) if i not in values and w is not None and w[:1] != "-"]
        return "tracks" if operands and not set(given) & _BRANCH_LISTING else None
    if sub in ("checkout", "switch", "worktree"):
        return "tracks"
    return None


# ``init.templateDir`` however spelled: git's keys are case-insensitive but for a subsection.
_TEMPLATE_KEY = re.compile(r"(?i)init\.templatedir=(.*)", re.S)


def _templates(args: Argv, index: int, assignments: Sequence[str], line_source: str) -> list[str | None]:
    """The template directories ``git init``/``git clone`` copies from, as the line gives them (None: unknown)."""
    found: list[str | None] = []
    for position, word in enumerate(args[:index]):
        if word is None:
            continue
        if word.startswith("--config-env"):
            found.append(None)  # a configuration value from a variable
        if position > 0 and args[position - 1] == "-c" and (match := _TEMPLATE_KEY.fullmatch(word)):
            found.append(match.group(1))
    given = options_given(["git", *(w for w in args[index:])]) or {}
    found.extend(given.get("--template", []))
    for key in ("-c", "--config"):
        for value in given.get(key, []):
            if value is None:
                found.append(None)
            elif match := _TEMPLATE_KEY.fullmatch(value):
                found.append(match.group(1))
    for assignment in assignments:
        name, _, value = assignment.partition("=")
        if name == "GIT_TEMPLATE_DIR":
            found.append(value)
    if "GIT_TEMPLATE_DIR" in line_source and not any(a.startswith("GIT_TEMPLATE_DIR=") for a in assignments):
        found.append(None)  # ``export GIT_TEMPLATE_DIR=...``, a value only known when it runs
    if re.search(r"\bGIT_CONFIG_(?:PARAMETERS|COUNT|KEY_)", line_source):
        found.append(None)  # configuration given through the environment, maybe init.templateDir
    return [t for t in found if t != ""]  # ``--template=``: no template at all


def new_repository_writes(
    args: Argv, assignments: Sequence[str] = (), line_source: str = ""
) -> list[tuple[str | None, str]]:
    """What ``git init``/``git clone`` writes into the git directory from the line's data.

    Each (a template directory copied into the git directory, None when only known at run time;
    the git directory, relative); and (``""``, the git directory's configuration file) for
    ``git clone -c k=v``, which writes it.
    """
    index, sub = git_subcommand(args)
    if sub not in ("init", "clone"):
        return []
    directory = "."
    for position, word in enumerate(args[:index]):
        if word == "-C" and position + 1 < index and args[position + 1] is not None:
            directory = posixpath.join(directory, str(args[position + 1]))
    words = list(args[index + 1 :])
    values = value_positions(["git", sub, *words])
    operands = [w for i, w in enumerate(words, 2) if i not in values and (w is None or w[:1] != "-")]
    given = options_given(["git", sub, *words]) or {}
    if sub == "init":
        place = operands[0] if operands else "."
    elif len(operands) > 1:
        place = operands[1]
    else:
        source = (operands[0] or "") if operands else ""
        place = posixpath.basename(source.rstrip("/")).removesuffix(".git") or "repository"
    if place is None:
        return [(None, ".git")]
    bare = any(name in given for name in ("--bare", "--mirror"))
    git_directory = posixpath.join(directory, place, "" if bare else ".git").rstrip("/")
    separate = given.get("--separate-git-dir", [])
    if separate:
        git_directory = separate[-1] or ".git"
    found: list[tuple[str | None, str]] = [
        (t, git_directory) for t in _templates(args, index, assignments, line_source)
    ]
    if sub == "clone" and (given.get("-c") or given.get("--config")):
        found.append(("", posixpath.join(git_directory, "config")))
    return found
