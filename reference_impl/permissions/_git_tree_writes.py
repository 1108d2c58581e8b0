"""The files a git command writes into a working tree from repository content (PERM-15).

``git checkout b``, ``git reset --hard b``, ``git merge b``, ``git stash pop``, ``git cherry-pick c``...
name no file, yet write every file that differs between what is checked out and what they bring:
``.claude/settings.json`` or ``.husky/pre-commit`` when the other commit holds them. The engine asks
git itself, before the line runs, which files those are (plumbing only: ``rev-parse``, ``diff-tree``,
``diff-index``, ``ls-tree``, ``log``, with the file-system monitor off, so no configured program
runs), over-approximating where the command's options would narrow it (``git reset b`` is judged as
``--hard``). Where git can't tell (``git pull`` brings what it fetches, an operation in progress, a
repository another part of the line changes first, ``--git-dir``): the reason why, which the engine
asks about. Where there is no repository, git writes nothing.
"""

from __future__ import annotations

import os
import posixpath
import subprocess
from collections.abc import Sequence
from pathlib import Path

from reference_impl.permissions._git_own_files import configuration_change, git_subcommand
from reference_impl.permissions._paths import chdir_directory
from reference_impl.permissions._program_grammar import value_positions

__all__ = ["GIT_TREE_MOVERS", "git_tree_writes", "may_change_repository"]

Argv = Sequence[str | None]


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


GIT_TREE_MOVERS = _names(
    "checkout switch restore reset merge pull rebase cherry-pick revert stash read-tree worktree "
    "sparse-checkout bisect clean rm mv submodule checkout-index"
)
"""Subcommands that may write working-tree files the repository's content names."""

# Subcommands that change neither refs nor the working tree: another part of the line running one
# leaves the repository as the engine reads it.
_READS_ONLY = _names(
    "status log diff show blame grep describe shortlog rev-parse ls-files ls-tree cat-file rev-list "
    "show-ref merge-base name-rev count-objects version help whatchanged range-diff cherry "
    "for-each-ref diff-tree diff-index diff-files check-ignore check-attr var verify-commit verify-tag "
    "config remote"
)
_MOST_NAMES = 200_000
_TIMEOUT = 20


class _Unknown(Exception):
    """Git can't tell what the command writes: the message says why."""


def _split(args: Argv) -> tuple[str, str, list[str]]:
    """(the ``-C`` directory, the subcommand, its words); :class:`_Unknown` for a moved git directory."""
    directory, index = ".", 0
    while index < len(args):
        word = args[index]
        if word is None:
            raise _Unknown("git's options hold a word only known when it runs")
        if not word.startswith("-"):
            break
        if word in ("-c", "--git-dir", "--work-tree", "--namespace") or word.startswith(
            ("--git-dir=", "--work-tree=", "--namespace=", "--config-env", "--exec-path", "--super-prefix")
        ):
            raise _Unknown(f"git {word} moves the repository or its configuration")
        if word == "-C":
            moved = args[index + 1] if index + 1 < len(args) else None
            if moved is None:
                raise _Unknown("git -C names a directory only known when it runs")
            directory = posixpath.join(directory, moved)
            index += 2
            continue
        index += 1
    if index >= len(args):
        return directory, "", []
    words = list(args[index:])
    if any(word is None for word in words):
        raise _Unknown("the command holds a word only known when it runs")
    return directory, str(words[0]), [str(w) for w in words[1:]]


def _operands(sub: str, words: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(options, operands, pathspecs after ``--``) of ``git sub words``, option values left out."""
    values = value_positions(["git", sub, *words])
    options: list[str] = []
    operands: list[str] = []
    for position, word in enumerate(words, start=2):
        if word == "--":
            return options, operands, words[position - 1 :]
        if position in values:
            options[-1:] = [f"{options[-1]}={word}"] if options else []
        elif word.startswith("-") and word != "-":
            options.append(word)
        else:
            operands.append(word)
    return options, operands, []


class _Git:
    """Plumbing queries in one repository (``cwd``), none running a configured program."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        top = self.run("rev-parse", "--show-toplevel", check=False)
        self.top = top[0] if top else None

    def run(self, *argv: str, check: bool = True) -> list[str]:
        command = ["git", "--no-pager", "--no-optional-locks", "-c", "core.fsmonitor=false"]
        command += ["-c", "core.untrackedCache=false", *argv]
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
        try:
            done = subprocess.run(
                command,
                cwd=self.cwd,
                capture_output=True,
                text=True,
                errors="surrogateescape",
                timeout=_TIMEOUT,
                stdin=subprocess.DEVNULL,
                env=env,
            )
        except subprocess.TimeoutExpired as error:
            raise _Unknown(f"git {argv[0]} took too long to tell") from error
        except OSError:
            return []  # no git: the command can't run either
        if done.returncode != 0:
            if check:
                raise _Unknown(f"git {argv[0]} could not tell ({done.stderr.strip()[:120]})")
            return []
        lines = [line for line in done.stdout.split("\n") if line]
        if len(lines) > _MOST_NAMES:
            raise _Unknown("the command may write too many files to list")
        return lines

    def commit(self, name: str) -> str | None:
        """The commit ``name`` resolves to, or None."""
        found = self.run(
            "rev-parse", "--verify", "--quiet", "--end-of-options", f"{name}^{{commit}}", check=False
        )
        return found[0] if found else None

    def changed(self, old: str | None, new: str) -> list[str]:
        """The files that differ between two commits (all of ``new``'s when there is no ``old``)."""
        if old is None:
            return self.run("ls-tree", "-r", "--name-only", "--full-tree", new)
        return self.run("diff-tree", "-r", "--name-only", "--no-renames", old, new)

    def local(self, *pathspecs: str) -> list[str]:
        """Files whose working-tree or index content differs from HEAD (or the index, without HEAD)."""
        base = (
            ["diff-index", "--name-only", "--no-renames", "HEAD"]
            if self.commit("HEAD")
            else ["diff-files", "--name-only"]
        )
        return self.run(*base, "--", *pathspecs)


def _revisions(git: _Git, operands: list[str]) -> tuple[list[str], list[str]]:
    """(commits the operands name, the operands that name none)."""
    commits: list[str] = []
    others: list[str] = []
    for operand in operands:
        found = git.commit("@{-1}" if operand == "-" else operand)
        (commits if found else others).append(found or operand)
    return commits, others


def _moved_to(git: _Git, commits: list[str], *, discard: bool) -> list[str]:
    """Files a move from HEAD to each commit writes (and local changes a discarding move reverts)."""
    head = git.commit("HEAD")
    names = [name for commit in commits for name in git.changed(head, commit)]
    return names + (git.local() if discard else [])


def _remote_branches(git: _Git, name: str) -> list[str]:
    """The commits of remote branches called ``name``, which ``git switch name`` checks out (DWIM)."""
    refs = git.run("for-each-ref", "--format=%(refname)", f"refs/remotes/*/{name}")
    return [commit for ref in refs if (commit := git.commit(ref)) is not None]


def _is_option(option: str, *names: str) -> bool:
    """Whether ``option`` is one of ``names`` or a long option's abbreviation git accepts."""
    name = option.partition("=")[0]
    return any(name == n or (len(name) > 3 and name.startswith("--") and n.startswith(name)) for n in names)


def _checkout(git: _Git, sub: str, options: list[str], operands: list[str], paths: list[str]) -> list[str]:
    if any(_is_option(o, "--recurse-submodules", "--pathspec-from-file") for o in options):
        raise _Unknown(f"git {sub} with {options[0]} writes files the engine does not list")
    commits, others = _revisions(git, operands)
    for name in others:
        remote = _remote_branches(git, name)
        commits += remote
        if not remote and sub == "checkout":
            paths = [*paths, name]  # ``git checkout f``: a file restored from the index
    if paths:
        source = commits[0] if commits else None
        if source is not None:
            return git.run("diff-index", "--name-only", "--no-renames", source, "--", *paths)
        return git.run("diff-files", "--name-only", "--", *paths)
    discard = any(_is_option(o, "-f", "--force", "--discard-changes") for o in options)
    if any(_is_option(o, "--orphan") for o in options) and sub == "switch":
        head = git.commit("HEAD")
        return git.changed(None, head) if head else []  # it empties the working tree
    return _moved_to(git, commits, discard=discard)


def _merged(git: _Git, commits: list[str]) -> list[str]:
    """Files a merge of each commit into HEAD writes: what changed on its side since the merge base."""
    names: list[str] = []
    for commit in commits:
        base = git.run("merge-base", "HEAD", commit, check=False) if git.commit("HEAD") else []
        names += git.changed(base[0] if base else None, commit)
    return names


def _restore(git: _Git, options: list[str], operands: list[str], paths: list[str]) -> list[str]:
    if any(_is_option(o, "--pathspec-from-file") for o in options):
        raise _Unknown("git restore --pathspec-from-file restores files the engine does not list")
    sources: list[str] = []
    for option in options:
        if option.startswith("-s=") or (option.startswith("--") and _is_option(option, "--source")):
            sources.append(option.partition("=")[2])
        elif not option.startswith("--") and "s" in option:
            raise _Unknown(f"git restore {option} restores from a source the engine does not read")
    pathspecs = [*operands, *paths]
    names = git.local(*pathspecs)
    for source in sources:
        commit = git.commit(source)
        if commit is None:
            return names  # git refuses a source it can't resolve
        names += git.run("diff-index", "--name-only", "--no-renames", commit, "--", *pathspecs)
    return names


def _stash(git: _Git, operands: list[str], options: list[str]) -> list[str]:
    action = operands[0] if operands else "push"
    if action in ("list", "show", "drop", "clear", "create", "store"):
        return []
    if action in ("pop", "apply", "branch"):
        rest = operands[1:] if action != "branch" else operands[2:]
        name = rest[0] if rest else "stash@{0}"
        stash = git.commit(f"stash@{{{name}}}" if name.isdigit() else name)
        if stash is None:
            return []  # no stash: git refuses
        names = [
            n
            for parent in ("^1", "^2")
            if git.commit(stash + parent)
            for n in git.changed(stash + parent, stash)
        ]
        if git.commit(stash + "^3"):
            names += git.changed(None, stash + "^3")  # its untracked files
        if action == "branch":
            names += _moved_to(git, [stash + "^1"], discard=False)
        return names
    # ``git stash`` (push, save): local changes are reverted, untracked files removed with -u / -a.
    names = git.local()
    if any(
        o in ("-u", "-a", "--include-untracked", "--all") or o.startswith(("--inc", "--al")) for o in options
    ):
        names += git.run(
            "ls-files",
            "--others",
            "--full-name",
            *(["--exclude-standard"] if not any(o in ("-a", "--all") for o in options) else []),
        )
    return names


def _checkout_index(git: _Git, options: list[str], named: list[str]) -> list[str]:
    """The files ``git checkout-index`` writes: the index's entries it is given, each after ``--prefix`` as text.

    ``--prefix=.`` and the entry ``git/hooks/pre-commit`` make ``.git/hooks/pre-commit``.
    """
    if any(_is_option(o, "--temp") or o.startswith("--stage=all") for o in options):
        return []  # temporary files of git's own naming
    if any(_is_option(o, "--stdin") for o in options):
        raise _Unknown("git checkout-index --stdin reads the files it writes when it runs")
    every = any(_is_option(o, "--all") or (o[:2] != "--" and "a" in o) for o in options)
    prefixes = [o.partition("=")[2] for o in options if _is_option(o, "--prefix")]
    names = git.run("ls-files", "--full-name", *([] if every else ["--", *named])) if every or named else []
    return [(prefixes[-1] if prefixes else "") + name for name in names]


def _in_progress(git: _Git, *names: str) -> bool:
    """Whether one of git's state files (``MERGE_HEAD``, ``rebase-merge``...) exists: an operation in progress."""
    found = git.run("rev-parse", *(word for name in names for word in ("--git-path", name)))
    return any(os.path.exists(posixpath.join(git.cwd, path)) for path in found)


def _tree_writes(git: _Git, sub: str, words: list[str]) -> list[str]:
    """Repository-relative files ``git sub words`` may write into the working tree (over-approximated)."""
    options, operands, paths = _operands(sub, words)
    if sub in ("checkout", "switch"):
        return _checkout(git, sub, options, operands, paths)
    if sub == "restore":
        return _restore(git, options, operands, paths)
    if sub == "reset":
        if paths or any(o in ("-p", "--patch") for o in options):
            return []  # paths: only the index changes
        commits, others = _revisions(git, operands)
        if others or not any(_is_option(o, "--hard", "--merge", "--keep") for o in options):
            return []  # ``git reset f``, ``--soft``, ``--mixed``: the index and HEAD only
        return _moved_to(git, commits, discard=True)
    if sub == "stash":
        return _stash(git, operands, options)
    if sub == "pull":
        raise _Unknown("git pull writes what it fetches, which is not known before it runs")
    if sub in ("merge", "rebase", "cherry-pick", "revert"):
        if any(o in ("--continue", "--skip", "--abort", "--quit", "--edit-todo") for o in options):
            if _in_progress(
                git,
                "MERGE_HEAD",
                "rebase-merge",
                "rebase-apply",
                "sequencer",
                "CHERRY_PICK_HEAD",
                "REVERT_HEAD",
            ):
                raise _Unknown(f"git {sub} goes on with an operation in progress, whose files are not listed")
            return []
        onto = [o.partition("=")[2] for o in options if o.startswith("--onto=")]
        if sub in ("cherry-pick", "revert"):
            walk = [] if any(".." in o or o.startswith("^") for o in operands) else ["--no-walk"]
            return (
                git.run(
                    "log",
                    "--name-only",
                    "--format=",
                    "-m",
                    "--no-renames",
                    *walk,
                    "--end-of-options",
                    *operands,
                )
                if operands
                else []
            )
        commits, _ = _revisions(git, operands + onto or ["@{upstream}"])
        if sub == "merge":
            return _merged(git, commits)
        # A rebase checks out its upstream, then replays HEAD's commits (``--root``: all of them).
        head = git.commit("HEAD")
        names = _moved_to(git, commits, discard=False)
        for commit in commits:
            if head is not None:
                names += git.run("log", "--name-only", "--format=", "--no-renames", f"{head}...{commit}")
        if head is not None and any(_is_option(o, "--root") for o in options):
            names += git.run("log", "--name-only", "--format=", "--no-renames", head)
        return names
    if sub == "read-tree":
        if not any(o == "-u" or (o.startswith("-") and not o.startswith("--") and "u" in o) for o in options):
            return []
        prefixes = [o.partition("=")[2] for o in options if _is_option(o, "--prefix")]
        if prefixes:
            # Every file of the tree, under the prefix (joined as text, as git does).
            trees = [
                t for o in operands for t in git.run("rev-parse", "--verify", "--quiet", f"{o}^{{tree}}")
            ]
            return [prefixes[-1] + n for tree in trees for n in git.run("ls-tree", "-r", "--name-only", tree)]
        return _moved_to(git, _revisions(git, operands)[0], discard=True)
    if sub == "checkout-index":
        return _checkout_index(git, options, [*operands, *paths])
    if sub == "worktree":
        if not operands or operands[0] != "add" or any(o in ("--no-checkout",) for o in options):
            return []
        where = operands[1] if len(operands) > 1 else None
        commits, _ = _revisions(git, operands[2:] or ["HEAD"])
        names = [n for commit in commits for n in git.changed(None, commit)]
        # Written under the new worktree: named from this repository's top, through the relative path.
        top = git.top or git.cwd
        base = os.path.relpath(posixpath.join(git.cwd, where), top) if where else "."
        return [posixpath.join(base, n) for n in names]
    if sub == "sparse-checkout":
        if operands and operands[0] == "list":
            return []
        head = git.commit("HEAD")
        return git.changed(None, head) if head else []
    if sub == "bisect":
        if operands and operands[0] in ("log", "view", "visualize", "terms", "help"):
            return []
        raise _Unknown("git bisect checks out commits it chooses as it goes")
    if sub == "clean":
        if any(_is_option(o, "--dry-run") or (not o.startswith("--") and "n" in o) for o in options):
            return []
        ignored = any(
            o.startswith("-") and not o.startswith("--") and ("x" in o or "X" in o) for o in options
        )
        standard = [] if ignored else ["--exclude-standard"]
        return git.run("ls-files", "--others", "--full-name", *standard, "--", *operands, *paths)
    if sub in ("rm", "mv"):
        if any(_is_option(o, "--cached", "--dry-run") or o == "-n" for o in options):
            return []  # the index only
        named = operands[:-1] if sub == "mv" else operands
        return git.run("ls-files", "--full-name", "--", *named, *paths) if named or paths else []
    if sub == "submodule":
        action = operands[0] if operands else "status"
        if action in ("status", "summary", "foreach") or not os.path.exists(
            posixpath.join(git.top or git.cwd, ".gitmodules")
        ):
            return []
        raise _Unknown(f"git submodule {action} checks out the submodules' content, not known before it runs")
    return []


def git_tree_writes(
    args: Argv,
    place: Path,
    *,
    changed_first: bool = False,
    environment_moved: bool = False,
    tree: bool = True,
) -> list[str] | str:
    """The files (absolute) ``git args`` run in ``place`` may write from repository content; a str: why unknown.

    ``changed_first``: another git command of the line may change (or make: ``git init``, ``git
    clone``) the repository before this one runs; ``environment_moved``: the line sets a variable that
    moves git's repository, working tree or index (``GIT_DIR``...); ``tree``: False to judge only what
    it writes into its configuration (:func:`._git_own_files.configuration_change`).
    """
    try:
        if environment_moved:
            raise _Unknown("the line moves git's repository by a GIT_ variable")
        change = configuration_change(args)
        if (not tree or git_subcommand(args)[1] not in GIT_TREE_MOVERS) and change is None:
            return []
        directory, sub, words = _split(args)
        git = _Git(chdir_directory(str(place), directory))
        if changed_first:
            return "another git command of the line may change the repository first, so what git writes is not known"
        if not os.path.isdir(git.cwd):
            return []  # no such directory: git refuses, writing nothing
        found: list[str] = []
        if change is not None and (change == "writes" or _tracks(git, sub, words)):
            # Inside the git directory too (``cd .git && git remote add``), where there is no work tree.
            found += [
                posixpath.join(git.cwd, p) for p in git.run("rev-parse", "--git-path", "config", check=False)
            ]
        if tree and sub in GIT_TREE_MOVERS and git.top is not None:
            found += [posixpath.join(git.top, name) for name in _tree_writes(git, sub, words)]
        return found
    except _Unknown as error:
        return str(error)


def _tracks(git: _Git, sub: str, words: list[str]) -> bool:
    """Whether the branch ``git sub words`` makes tracks another, which git records in the configuration.

    git-branch(1): a branch started off a remote-tracking branch (``git checkout -b x o/x``, ``git
    switch x`` when only ``o/x`` exists), or any with ``branch.autoSetupMerge`` ``always``/``inherit``.
    """
    if git.run("rev-parse", "--git-dir", check=False) == []:
        return False  # no repository
    options, operands, _paths = _operands(sub, words)
    if any(_is_option(o, "--no-track") for o in options):
        return False
    made = [o.partition("=")[2] for o in options if o.partition("=")[0] in ("-b", "-B", "-c", "-C")]
    if sub == "worktree":
        # ``add [-b <new>] <path> [<commit-ish>]``: its options are not in the mined grammar.
        rest, operands = list(words), []
        while rest:
            word = rest.pop(0)
            if word in ("-b", "-B") and rest:
                made.append(rest.pop(0))
            elif not word.startswith("-"):
                operands.append(word)
        if operands[:1] != ["add"]:
            return False
        operands = operands[2:]
    elif sub == "branch":
        made, operands = operands[:1], operands[1:]
    setting = git.run("config", "--get", "branch.autoSetupMerge", check=False)
    if made and setting and setting[0].lower() in ("always", "inherit"):
        return True
    if made:
        start = operands[0] if operands else "HEAD"
        if start.startswith("-"):
            return True  # not a name rev-parse reads as one (it has no --end-of-options before git 2.43)
        full = git.run("rev-parse", "--symbolic-full-name", start, check=False)
        return any(name.startswith("refs/remotes/") for name in full)
    if not operands or any(_is_option(o, "--detach", "--no-guess") for o in options):
        return False
    # ``git checkout x`` with no local branch x makes one from the remote's x (git-checkout(1) --guess).
    name = operands[0]
    return git.commit(f"refs/heads/{name}") is None and bool(_remote_branches(git, name))


def may_change_repository(argv: Argv, place: Path) -> bool:
    """Whether this git command, run in ``place``, may change the refs or objects another of the line reads.

    Where there is no repository, only one that makes it (``init``, ``clone``) may.
    """
    try:
        directory, sub, _words = _split(argv[1:])
    except _Unknown:
        return True
    if sub in ("init", "clone"):
        return True
    if sub in _READS_ONLY or sub == "":
        return False
    cwd = chdir_directory(str(place), directory)
    return _Git(cwd).top is not None if os.path.isdir(cwd) else False
