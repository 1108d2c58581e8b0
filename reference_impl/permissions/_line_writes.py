"""What a command line writes, and whether another part of it runs or reads what was written (PERM-17).

The engine reads a command as running the project's code *as it was on disk before the line
ran*: ``make``, ``pytest``, ``npm test``, ``sh s.sh``, ``./tool``. That holds only when nothing on
the line made new content for them first. So every program of the line is asked what it writes:

* programs that make no new content (they read, print, remove, or change modes: ``cat``,
  ``grep``, ``rm``, ``chmod``, ``mkdir``, ``touch``), and the project's own build and test tools,
  whose output is derived from the project's code (``make``, ``cargo build``, ``npm ci``), write
  nothing that counts;
* programs modelled with their output operands (``tee F``, ``cp A B``, ``sort -o F``, ``uniq IN
  OUT``, ``dd of=F``), and redirections, write the paths they name;
* every other program may write anything (``tar x``, ``gunzip``, ``patch``, ``split``, ``sed``
  with a ``w`` command, ``git checkout``, any program the engine does not model): decided by what
  the engine does *not* know, not by a list of writers.

A part *runs* a file it names (``sh f``, ``. f``, ``./f``, ``python3 f``, ``make -f f``), or
*reads by convention* code or configuration found in the working directory (``make`` its
Makefile, ``pytest`` conftest.py, ``python3 -m`` any module there, ``npm test`` package.json,
``git`` its configuration and hooks), or looks its command name up in a ``PATH`` the line set.
When such a part meets a write that may reach what it runs or reads, the line is unread: every
deny rule may apply and no allow rule does.
"""

from __future__ import annotations

import posixpath
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass

from reference_impl.permissions._bash_reader import ShellCommand
from reference_impl.permissions._bash_words import is_globby
from reference_impl.permissions._derived_names import Derived, derived_names
from reference_impl.permissions._descriptors import descriptor_of, shell_state
from reference_impl.permissions._evaluated import variables_assigned
from reference_impl.permissions._interpreter_options import path_searched_script
from reference_impl.permissions._program_model import PLAIN_PROGRAMS, is_interpreter, is_modelled
from reference_impl.permissions._sed_options import sed_line
from reference_impl.permissions._shell_parts import ShellPart
from reference_impl.permissions._wrapped_commands import find_commands, is_wrapper, unwrap

__all__ = ["Run", "known_words", "program_targets", "program_writes", "unread_by_writes"]

Argv = tuple[str | None, ...]


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# The plain programs (they start nothing) that write files named by their operands or options.
_PLAIN_WRITERS = _names(
    "cp mv ln link tee dd csplit split uniq shuf sort gzip gunzip bzip2 bunzip2 xz unxz lzma zstd unzstd "
    "unzip curl xxd"
)
# They remove files or change modes and times: no new content, yet they change the files they name.
_CHANGES_FILES = _names("rm rmdir unlink chmod chown chgrp touch mkdir mktemp truncate shred sync")
_MAKES_NO_CONTENT = (PLAIN_PROGRAMS - _PLAIN_WRITERS) | _CHANGES_FILES
"""Programs (and builtins) that make no new file content whatever their operands (unless redirected)."""

_CHANGE_NO_NAMED_FILE = PLAIN_PROGRAMS - _PLAIN_WRITERS - _CHANGES_FILES - _names("tree zstdcat")
"""Programs (and builtins) whose documentation gives them no way to change a file named on their line:
they read, print or start nothing (``tree -o F`` and ``zstdcat -o F`` write F)."""

_PROJECT_TOOLS = _names(
    "make gmake pytest py.test tox nox mypy ruff black flake8 eslint prettier tsc jest vitest npm npx "
    "yarn pnpm cargo go pip pip3 uv poetry mvn gradle bundle rake cmake ctest"
)
"""Build, test and package tools: what they write is built from the project's own code and lock files."""

# Programs with output operands: which words name what they write.
_OUTPUT_OPERANDS = _names("tee cp ln link install ginstall mv rsync scp dd")

# git subcommands that only write git's object store, refs and index (never a file git or
# anything else runs), and those that restore tracked content into the working tree (never
# inside .git, so never git's own configuration or hooks).
_GIT_STORE_ONLY = _names(
    "status log diff show branch add commit fetch push tag remote rev-parse ls-files ls-tree ls-remote "
    "blame grep describe shortlog reflog fsck cat-file rev-list notes show-ref symbolic-ref merge-base "
    "name-rev count-objects version help whatchanged range-diff cherry for-each-ref update-index "
    "update-ref hash-object write-tree diff-tree diff-index diff-files check-ignore check-attr mktree var "
    "verify-commit verify-tag gc maintenance"
)
_GIT_TRACKED_CONTENT = _names(
    "checkout switch restore reset stash merge pull rebase cherry-pick revert apply am mv rm clean bisect "
    "read-tree sparse-checkout"
)

# Files a program may find by convention: code and configuration by suffix or name; a path with
# no suffix may be a directory of them, or a Makefile.
_CODE_SUFFIXES = frozenset(
    [
        ".py",
        ".pyc",
        ".pth",
        ".so",
        ".pyd",
        ".ini",
        ".cfg",
        ".toml",
        ".mk",
        ".make",
        ".inc",
        ".js",
        ".mjs",
        ".cjs",
        ".ts",
        ".mts",
        ".cts",
        ".jsx",
        ".tsx",
        ".json",
        ".yml",
        ".yaml",
        ".rb",
        ".gemspec",
        ".rs",
        ".go",
        ".mod",
        ".pl",
        ".pm",
        ".php",
        ".lua",
        ".sh",
        ".bash",
        ".zsh",
        ".java",
        ".kt",
        ".gradle",
        ".kts",
        ".xml",
        ".properties",
        ".cmake",
    ]
)
_CODE_NAMES = frozenset(
    [
        "Makefile",
        "makefile",
        "GNUmakefile",
        "Rakefile",
        "Gemfile",
        "Justfile",
        "justfile",
        ".npmrc",
        ".yarnrc",
        ".pnpmfile.cjs",
        "Cargo.toml",
        ".envrc",
        "CMakeLists.txt",
    ]
)
_GIT_OPTIONS_MOVING_CONFIG = ("--git-dir", "--work-tree", "-C", "--exec-path", "--config-env")

_LOOPS = re.compile(r"\b(?:for|while|until|select)\b")
_LOOPS_OR_CONCURRENCY = re.compile(r"(?<![|&])[|&](?![|&>])|\b(?:for|while|until|select)\b|\bcoproc\b")


_BUILTINS = _names(
    "echo printf cd pushd popd dirs export declare typeset local readonly unset read mapfile readarray "
    "getopts let set shopt shift exit return break continue wait jobs umask ulimit type help test [ [[ "
    "true false : source . eval exec command builtin trap alias hash enable"
)
"""Bash's builtins: found without a PATH lookup."""


@dataclass(frozen=True, slots=True)
class Run:
    """One program a part of the line starts: its words, program name, part index and assignments."""

    argv: Argv
    base: str
    index: int
    assignments: tuple[str, ...] = ()


def known_words(part: ShellPart) -> Argv:
    """The part's words, a glob (``tee -a .bashr?``) or brace as ``None``: what it names is known when it runs."""
    if len(part.raw) != len(part.argv):
        return part.argv
    return tuple(
        None if word is not None and is_globby(raw) else word
        for word, raw in zip(part.argv, part.raw, strict=True)
    )


def _is_code(path: str) -> bool:
    name = posixpath.basename(path.rstrip("/"))
    if name in _CODE_NAMES or name.startswith(("conftest", "sitecustomize", "usercustomize", "requirements")):
        return True
    suffix = posixpath.splitext(name)[1]
    return not suffix or suffix in _CODE_SUFFIXES


def _is_git_control(path: str) -> bool:
    """Whether ``path`` is git's configuration or hooks, or a tracked file git reads as settings."""
    name = posixpath.basename(path)
    return (
        any(d in f"/{path}/" for d in ("/.git/", "/.husky/", "/hooks/"))
        or name in (".gitconfig", ".gitattributes", ".gitmodules", "config")
        or name.endswith(".git")
    )


def _output_operands(base: str, args: Argv) -> tuple[list[str], bool]:
    """The paths ``base`` may write (its operands, ``--option=value`` values, ``dd``'s ``of=``).

    The flag: a word only known at run time may name another (``tee "${F:-.git/config}"``).
    """
    paths: list[str] = []
    for word in args:
        if word is None:
            return paths, True
        if not word:
            continue
        if base == "dd":
            if word.startswith("of="):
                paths.append(word[3:])
        elif word.startswith("--") and "=" in word:
            paths.append(word.partition("=")[2])
        elif not word.startswith("-"):
            paths.append(word)
    return [path for path in paths if path], False


def _git_subcommand(args: Argv) -> str | None:
    index = 0
    while index < len(args) and args[index] is not None and str(args[index]).startswith("-"):
        index += 2 if args[index] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else 1
    return args[index] if index < len(args) else None


def program_writes(base: str, args: Argv) -> tuple[list[str], str | None]:
    """The paths a program writes, and why it may write others (None when it writes only those).

    ``("git", tracked)``: git writes only tracked content (the second element starts ``git``).
    """
    if base in _MAKES_NO_CONTENT or base in _PROJECT_TOOLS or is_wrapper(base):
        return [], None  # a wrapper's command is a run of its own
    if base == "find":
        writing = next(
            (a for a in args if a is None or a.startswith(("-fprint", "-fls", "-exec", "-ok"))), ""
        )
        return [], None if writing == "" else f"find {writing or 'with a run-time word'} may write files"
    if base in _OUTPUT_OPERANDS:
        paths, unknown = _output_operands(base, args)
        return paths, f"{base} writes to a file only known when it runs" if unknown else None
    if base == "curl" and not any(
        a is None
        or a.startswith(("-o", "-O", "--output", "--remote-name"))
        or re.fullmatch(r"-[^-]*[oO].*", a)
        for a in args
    ):
        return [], None  # it prints what it fetches
    if base in ("sort", "shuf") and not any(a is None for a in args):
        out = [a for a in args if a is not None and a.startswith(("-o", "--output"))]
        if not out:
            return [], None
        word = out[0]
        value = word.partition("=")[2] if "=" in word else word[2:] if word.startswith("-o") else ""
        if not value:
            position = args.index(word) + 1
            value = args[position] or "" if position < len(args) else ""
        return ([value] if value else []), None if value else f"{base} -o writes a file"
    if base == "uniq" and not any(a is None for a in args):
        operands = [a for a in args if a is not None and not a.startswith("-")]
        return operands[1:2], None
    if base == "sed" and not any(a is None for a in args):
        # ``sed -i`` rewrites its operands; a ``w`` command or flag writes any file. The script as sed's
        # own option grammar finds it (``--expression=w f``, ``--e w f``), and every operand besides.
        line = sed_line(args)
        texts = [*line.scripts, *(a for a in args if a is not None and not a.startswith("-"))]
        if line.unknown is not None or any(re.search(r"[wW]", text) for text in texts):
            return [], "sed's script may write a file (a w command or flag)"
        if any(a is not None and (a.startswith("-i") or a.startswith("--in-place")) for a in args):
            return [a for a in args if a is not None and not a.startswith("-")][1:], None
        return [], None
    if base == "git":
        sub = _git_subcommand(args)
        if sub in _GIT_STORE_ONLY:
            return [], None
        if sub in _GIT_TRACKED_CONTENT:
            return [], "git writes tracked files into the working tree"
        what = " ".join(w for w in args[args.index(sub) :][:2] if w is not None) if sub in args else sub
        return [], f"git {what} may write git's configuration, hooks or files"
    return [], f"{base} may write files the engine does not know"


_FIND_OUTPUTS = frozenset({"-fprint", "-fprint0", "-fprintf", "-fls"})
_LONGEST_OPTION_CLUSTER = 64


def _named_paths(args: Argv) -> list[str | None]:
    """Every path a program's words may name: operands, option values, and None for a run-time word.

    ``--out=F`` and ``key=F`` (dd's ``of=F``) name F; a short option may carry its value after any
    bundle of flags (``-so~/.bashrc``, ``-O.git/config``), so each suffix after its leading letters
    is a name too (a bundle longer than any program's options is taken as unknown).
    """
    named: list[str | None] = []
    for word in args:
        if word is None:
            named.append(None)
            continue
        named.append(word)
        if "=" in word:
            named.append(word.partition("=")[2])
        if word.startswith("-") and not word.startswith("--"):
            letters = len(word) - len(word[1:].lstrip(string.ascii_letters + string.digits))
            if letters > _LONGEST_OPTION_CLUSTER:
                named.append(None)
            named.extend(word[i:] for i in range(2, min(letters, _LONGEST_OPTION_CLUSTER) + 1))
    return [name for name in named if name is None or name.strip("-")]


def _find_targets(args: Argv, depth: int) -> list[Derived]:
    """What ``find`` may change: its ``-fprint`` files and what its commands change.

    Under ``-delete``, or an ``-exec`` command that may change files, whatever it finds (its start paths).
    """
    starts: list[str | None] = []
    for word in args:
        if word is not None and word.startswith(("-", "(", "!")):
            break
        starts.append(word)
    targets: list[Derived] = []
    for i, word in enumerate(args):
        if word in _FIND_OUTPUTS:
            targets.append(args[i + 1] if i + 1 < len(args) else None)
    changing = "-delete" in args or any(program_targets(c, depth + 1) for c in find_commands(args))
    for command in find_commands(args):
        targets.extend(program_targets(command, depth + 1))
    return [*targets, *((starts or ["."]) if changing else [])]


# Subcommands that write git's configuration or hooks (the user's or the repository's) with no path on
# their line, by their documentation: (program, its subcommand words) -> what they write. ``git
# maintenance register`` adds the repository to ``maintenance.repo`` in ~/.gitconfig (``start`` registers
# too, ``unregister``/``stop`` remove it); ``git lfs install`` sets its filters in ~/.gitconfig (or
# .git/config with --local) and installs hooks; ``scalar register`` writes both configurations;
# ``git flow init`` sets ``gitflow.path.hooks``; ``pre-commit install`` writes .git/hooks/pre-commit;
# ``husky`` sets ``core.hooksPath``; ``gh auth setup-git`` (and ``login``) sets a credential helper,
# a command git runs, in ~/.gitconfig; ``git submodule add`` writes .gitmodules (``update`` is judged
# as a working-tree move: _git_tree_writes).
_GLOBAL_CONFIG = "~/.gitconfig"
_REPOSITORY_CONFIG = ".git/config"
_NPM_CONFIGS = (".npmrc", "~/.npmrc", "/etc/npmrc")
# Package managers whose options may come before their command and take the next word as a value
# (``npm --location project config set``): an option's next word is taken as its value unless it is
# one of the command words matched here.
_VALUE_BEFORE_COMMAND = frozenset({"npm", "pnpm", "yarn"})
_COMMAND_WORDS = frozenset({"config", "c", "set", "delete"})
_CONVENTIONAL_WRITES: dict[tuple[str, ...], tuple[str, ...]] = {
    **{("git", "maintenance", a): (_GLOBAL_CONFIG,) for a in ("register", "unregister", "start", "stop")},
    **{
        (git, "install" if git == "git-lfs" else "lfs", *(() if git == "git-lfs" else ("install",))): (
            _GLOBAL_CONFIG,
            _REPOSITORY_CONFIG,
            ".git/hooks/pre-push",
        )
        for git in ("git", "git-lfs")
    },
    **{
        ("git", "lfs", a): (_GLOBAL_CONFIG, _REPOSITORY_CONFIG, ".git/hooks/pre-push")
        for a in ("uninstall", "update")
    },
    **{
        ("git-lfs", a): (_GLOBAL_CONFIG, _REPOSITORY_CONFIG, ".git/hooks/pre-push")
        for a in ("uninstall", "update")
    },
    **{
        ("scalar", a): (_GLOBAL_CONFIG, _REPOSITORY_CONFIG)
        for a in ("register", "unregister", "reconfigure", "clone")
    },
    ("git", "flow", "init"): (_REPOSITORY_CONFIG,),
    # ``git submodule add`` records the submodule in .gitmodules; the others copy it into .git/config.
    ("git", "submodule", "add"): (".gitmodules", _REPOSITORY_CONFIG),
    **{
        ("git", "submodule", a): (_REPOSITORY_CONFIG,)
        for a in ("init", "deinit", "sync", "set-url", "set-branch", "absorbgitdirs")
    },
    ("git-flow", "init"): (_REPOSITORY_CONFIG,),
    **{("pre-commit", a): (".git/hooks/pre-commit",) for a in ("install", "uninstall", "install-hooks")},
    ("husky",): (_REPOSITORY_CONFIG, ".husky/_/h"),
    ("gh", "auth", "setup-git"): (_GLOBAL_CONFIG,),
    ("gh", "auth", "login"): (_GLOBAL_CONFIG,),
    # npm-config(1): ``set``/``delete``/``edit``/``fix`` write the user's .npmrc, ``--location=project``
    # the project's, ``global`` $PREFIX/etc/npmrc (npm's lib/commands/config.js names the actions;
    # ``npm set`` is ``npm config set``); pnpm writes the same files, yarn its .yarnrc(.yml).
    **{
        (npm, config, action): _NPM_CONFIGS
        for npm in ("npm", "pnpm")
        for config in ("config", "c")
        for action in ("set", "delete", "rm", "del", "edit", "fix")
    },
    **{(npm, action): _NPM_CONFIGS for npm in ("npm", "pnpm") for action in ("set", "delete")},
    **{
        ("yarn", "config", a): (".yarnrc", ".yarnrc.yml", "~/.yarnrc", "~/.yarnrc.yml")
        for a in ("set", "unset", "delete")
    },
}


# Programs that run a package's program named by their first operand (after their subcommand words):
# ``npx husky``, ``pnpm exec pre-commit install``, ``uvx pre-commit install``.
_LAUNCHERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "npx": ((),),
    "pnpx": ((),),
    "bunx": ((),),
    "uvx": ((),),
    "npm": (("exec",), ("x",)),
    "pnpm": (("exec",), ("dlx",)),
    "yarn": (("exec",), ("dlx",)),
    "bun": (("x",),),
    "pipx": (("run",),),
    "uv": (("tool", "run"),),
}


def _launched(base: str, args: Argv) -> tuple[str | None, Argv] | None:
    """(the program a launcher runs, its words) when ``base args`` launches one; None otherwise."""
    for lead in _LAUNCHERS.get(base, ()):
        rest = list(args)
        for word in lead:
            while rest and rest[0] is not None and str(rest[0]).startswith("-"):
                rest = rest[1:]
            if not rest or rest[0] != word:
                break
            rest = rest[1:]
        else:
            # The launcher's own options (``npx -y``, ``npx --package=p``) before the program.
            while rest and rest[0] is not None and str(rest[0]).startswith("-"):
                rest = rest[2:] if rest[0] in ("-p", "--package", "--spec", "--from") else rest[1:]
            if rest:
                return rest[0], tuple(rest[1:])
    return None


def _takes_next(word: str | None) -> bool:
    """Whether ``word`` is an option that may take the next word as its value (``--location project``)."""
    return word is not None and word.startswith("-") and "=" not in word


def conventional_writes(base: str, args: Argv) -> list[str | None]:
    """Protected files a program writes by convention, with no path on its line (:data:`_CONVENTIONAL_WRITES`).

    Matched on the program and its first operands (options skipped); a run-time word where a
    subcommand may be is any of them. ``git -C d`` moves the repository's files under ``d``;
    ``--config-file F`` (git maintenance) names the configuration it writes instead.
    """
    launched = _launched(base, args)
    if launched is not None:
        program, rest = launched
        return [None] if program is None else conventional_writes(posixpath.basename(program), rest)
    directory = ""
    words = list(args)
    if base == "git":
        index = 0
        while index < len(words) and words[index] is not None and str(words[index]).startswith("-"):
            if words[index] == "-C" and index + 1 < len(words):
                named = words[index + 1]
                if named is None:
                    return [None]
                directory = named.rstrip("/") + "/"
            index += 2 if words[index] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else 1
        words = words[index:]
    operands: list[str | None] = [w for w in words if w is None or not w.startswith("-")]
    if base in _VALUE_BEFORE_COMMAND:
        operands = [
            w
            for i, w in enumerate(words)
            if w is None
            or (not w.startswith("-") and (i == 0 or w in _COMMAND_WORDS or not _takes_next(words[i - 1])))
        ]
    for key, written in _CONVENTIONAL_WRITES.items():
        if key[0] != base:
            continue
        wanted = key[1:]
        have = operands[: len(wanted)]
        if len(have) < len(wanted):
            continue
        unknown = next((i for i, word in enumerate(have) if word is None), None)
        if unknown is not None and tuple(have[:unknown]) == wanted[:unknown]:
            return [None]  # ``git maintenance $X``: the subcommand is only known when it runs
        if tuple(have) != wanted:
            continue
        files = [w for w in words if w is not None]
        for i, word in enumerate(files):
            if word == "--config-file" and i + 1 < len(files):
                return [files[i + 1]]
            if word.startswith("--config-file="):
                return [word.partition("=")[2]]
        return [f if f.startswith("~") else directory + f for f in written]
    return []


def _git_targets(args: Argv) -> list[str | None]:
    """What git may change as named on its line.

    Its configuration (``git config``), ``--output`` files, and for a subcommand that writes the
    working tree or a new repository (``checkout``, ``clone``, ``init``), any path named.
    """
    sub = _git_subcommand(args)
    targets = [*_git_config_targets(args), *conventional_writes("git", args)]
    if sub in _GIT_STORE_ONLY:
        outputs = [
            a.partition("=")[2] if "=" in a else args[i + 1] if i + 1 < len(args) else None
            for i, a in enumerate(args)
            if a is not None and a.startswith("--output")
        ]
        return [*targets, *outputs]
    if sub == "config" or sub is None:
        return targets
    return [*targets, *_named_paths(args[args.index(sub) + 1 :])]


# ``rename 's/a/b/' f``: perl's rename (Debian's ``rename``, ``prename``, ``file-rename``), whose
# first word is perl code; which program ``rename`` is depends on the machine, so it is one of these.
_PERL_RENAMES = frozenset({"rename", "prename", "file-rename", "perl-rename"})


def _util_linux_renamed(args: Argv) -> list[str | None]:
    """The names util-linux's ``rename EXPRESSION REPLACEMENT FILE...`` gives its files (rename(1)).

    The first occurrence of the expression in each name as given is replaced (``--last`` the last,
    ``--all`` every one); ``--no-act`` renames nothing; ``--symlink`` changes a link's target,
    which can't be told here.
    """
    words: list[str] = []
    last = every = False
    for index, word in enumerate(args):
        if word is None:
            return [None]
        if word == "--":
            words += [w for w in args[index + 1 :] if w is not None]
            if None in args[index + 1 :]:
                return [None]
            break
        if words or not word.startswith("-") or word == "-":
            words.append(word)
            continue
        letters = word[2:] if word.startswith("--") else word[1:]
        long = word.startswith("--")
        if (long and "no-act".startswith(letters)) or (not long and "n" in letters):
            return []
        if (long and "symlink".startswith(letters)) or (not long and "s" in letters):
            return [None]
        last = last or (long and "last".startswith(letters)) or (not long and "l" in letters)
        every = every or (long and "all".startswith(letters)) or (not long and "a" in letters)
    if len(words) < 3 or not words[0]:
        return []
    expression, replacement = words[0], words[1]
    renamed: list[str | None] = []
    for name in words[2:]:
        if expression not in name:
            continue
        if every:
            renamed.append(name.replace(expression, replacement))
        elif last:
            head, _, tail = name.rpartition(expression)
            renamed.append(head + replacement + tail)
        else:
            renamed.append(name.replace(expression, replacement, 1))
    return renamed


def program_targets(
    argv: Argv,
    depth: int = 0,
    line_source: str = "",
    assignments: Sequence[str] = (),
    stdin: str | None = None,
) -> list[Derived]:
    """Every path a program may change, as named on its line (PERM-15); None for one known only at run time.

    A program the engine cannot prove changes no file its line names may change any of them
    (:func:`_named_paths`: ``tee F``, ``cp a F``, ``curl -oF``, ``wget -O F``, ``tar -C F``,
    ``chmod +x F``, ``patch F``, any program the engine does not know, or one only known at run
    time). Proven: programs that only read or print; git, as modelled; a wrapper, by the command it
    runs (``xargs`` gives it words known only when it runs); ``find``, by its outputs and commands.
    Beside them, the files it writes under names it derives (:func:`derived_names`: ``cp -b -S rc f
    .bash`` writes ``.bashrc``); ``line_source`` is the whole line, which may set the variables naming
    them, ``assignments`` the part's own (``SIMPLE_BACKUP_SUFFIX=rc cp -b``) and ``stdin`` its
    here-document (a diff ``patch`` reads).
    """
    if not argv or depth > 8:
        return [None] if argv else []
    if argv[0] is None:
        return [*_named_paths(argv[1:])]
    base, args = posixpath.basename(argv[0]), argv[1:]
    if base in _CHANGE_NO_NAMED_FILE:
        return []
    derived = derived_names(base, args, assignments, line_source, stdin=stdin)
    if base == "git":
        return [*_git_targets(args), *derived]
    if base == "find":
        return [*_find_targets(args, depth), *derived]
    if is_wrapper(base):
        inner = unwrap(base, args)
        if not inner:
            return [*_named_paths(args), *derived]
        own = _named_paths(args[: len(args) - len(inner)])  # ``flock .git/x cmd`` makes its lock file
        from_input = [None] if base == "xargs" else []
        inner_targets = program_targets(inner, depth + 1, line_source, stdin=stdin)
        return [*own, *derived, *inner_targets, *(from_input if inner_targets or inner[0] is None else [])]
    if base in _PERL_RENAMES:
        return [*_named_paths(args), None]  # the new names are what a perl expression makes of the old
    if base == "rename.ul":
        return [*_named_paths(args), *derived, *_util_linux_renamed(args)]
    targets: list[Derived] = [*_named_paths(args), *derived, *conventional_writes(base, args)]
    if base in ("tee", "dd", "sort", "shuf", "uniq", "sed") and program_writes(base, args)[1] is not None:
        targets.append(None)  # it may write where its line does not say (sed's w command)
    return targets


# ``git config`` options that only read: with one of them (and no writing one) nothing is written.
_GIT_CONFIG_READS = frozenset(
    {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "-l", "--list"}
    | {"--show-origin", "--show-scope", "get", "list"}
)


def _git_config_targets(args: Argv) -> list[str | None]:
    """The configuration file ``git config`` writes (PERM-15: git's configuration is protected), if it writes.

    ``git config core.hooksPath x`` writes ``.git/config`` (``--global``: ``~/.gitconfig``; ``--file F``:
    F), in the repository ``-C DIR`` names; a word only known at run time may be any of them.
    """
    directory = ""
    index = 0
    while index < len(args) and args[index] is not None and str(args[index]).startswith("-"):
        if args[index] == "-C" and index + 1 < len(args):
            named = args[index + 1]
            if named is None:
                return [None]
            # git(1): each -C is taken relative to the one before it.
            directory = _in_directory(directory, named).rstrip("/") + "/"
        index += 2 if args[index] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else 1
    if index >= len(args) or args[index] != "config":
        return []
    words = args[index + 1 :]
    if any(word is None for word in words):
        return [None]
    options = [w for w in words if w is not None and w.startswith("-")]
    operands = [w for w in words if w is not None and not w.startswith("-")]
    reads = any(w in _GIT_CONFIG_READS for w in (*options, *operands[:1]))
    edits = operands[:1] == ["edit"]  # git 2.46's ``git config edit`` (``--edit``) writes with no key
    scopes = {"--local", "--global", "--system", "--worktree"}
    if reads or (len(operands) < 2 and not edits and not set(options) - scopes):
        return []  # ``git config user.name``: it prints the value
    if "--global" in options:
        return ["~/.gitconfig"]
    for i, word in enumerate(words):
        if word in ("-f", "--file") and i + 1 < len(words):
            return [_in_directory(directory, str(words[i + 1]))]
        if word is not None and word.startswith("--file="):
            return [_in_directory(directory, word.partition("=")[2])]
    return [f"{directory}.git/config"]


def _in_directory(directory: str, path: str) -> str:
    """``path`` as a program that moved to ``directory`` (relative to the line's, ``""``: none) opens it.

    A relative path, and the program's own ``/proc/self/cwd/...``, are under ``directory``.
    """
    if not directory:
        return path
    state = shell_state(path)
    if state is not None and state[0] == "cwd" and state[1]:
        return posixpath.join(directory, state[2])
    return path if path.startswith(("/", "~")) else posixpath.join(directory, path)


def _runs_files(run: Run) -> list[str | None]:
    """The files a program runs as code: a path-qualified name, a shell's or interpreter's script, ``-f FILE``."""
    argv, base = run.argv, run.base
    first = argv[0]
    files: list[str | None] = [first] if first is not None and "/" in first else []
    args = argv[1:]
    inline = any(a is not None and re.fullmatch(r"-[a-zA-Z]*[ce][a-zA-Z]*", a) for a in args)
    if (base in ("source", ".", "sh", "bash", "dash", "zsh", "ksh") or is_interpreter(base)) and not inline:
        files.append(next((a for a in args if a is None or not a.startswith("-")), None))
    elif base in ("make", "gmake", "awk", "gawk", "mawk", "nawk", "sed"):
        for i, word in enumerate(args):
            if word is not None and word.startswith(("-f", "--file", "--makefile")):
                value = word.partition("=")[2] if "=" in word else word[2:] if word.startswith("-f") else ""
                files.append(value or (args[i + 1] if i + 1 < len(args) else None))
    elif not is_modelled(base) and not is_wrapper(base):
        # A program the engine does not model may run any operand (``sqlite3 -init f``).
        files.extend(a.partition("=")[2] if a is not None and a.startswith("-") else a for a in args)
    return [f for f in files if f is None or descriptor_of(f) is None]


def _reads_by_convention(run: Run) -> str | None:
    """What ``run`` finds by convention in the working directory, if anything (``make`` its Makefile)."""
    base = run.base
    if base in _PROJECT_TOOLS:
        return f"{base} runs code and configuration it finds in the working directory"
    if is_interpreter(base):
        return f"{base} imports code it finds beside its script or in the working directory"
    if base == "git":
        return "git runs commands named in its configuration and hooks"
    if any(a.startswith("PATH=") for a in run.assignments):
        return f"{base} is looked up in a PATH the line sets"
    return None


def _git_config_places(run: Run) -> list[str]:
    """Where git is pointed for its configuration (``--git-dir=b``, ``-C d``, ``GIT_CONFIG_GLOBAL=./g``)."""
    words = [w for w in run.argv[1:] if w is not None]
    places: list[str] = []
    for i, word in enumerate(words):
        if word.startswith(_GIT_OPTIONS_MOVING_CONFIG):
            value = word.partition("=")[2] if "=" in word else words[i + 1] if i + 1 < len(words) else ""
            places.append(value or word[2:])
    places.extend(
        a.partition("=")[2] or "."
        for a in run.assignments
        if a.startswith(("GIT_", "HOME=", "XDG_CONFIG_HOME="))
    )
    return [posixpath.normpath(place) for place in places if place]


def _within(path: str, written: str) -> bool:
    return path == written or path.startswith(written.rstrip("/") + "/") or written in (".", "./")


# Devices a line writes to that hold no file afterwards: nothing the line runs can be read from them.
_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/full"})


def unread_by_writes(command: ShellCommand, runs: Sequence[Run]) -> str | None:
    """Why the line may run or read what it writes itself (see the module's docstring), or None."""
    known: set[str] = {
        posixpath.normpath(w) for w in command.writes if w and descriptor_of(w) is None and w not in _DEVICES
    }
    open_ended: list[tuple[int, str]] = []  # (part index, why) of writers of anything
    if any(w is None for w in command.writes):
        open_ended.append((-1, "a redirection writes a file only known when it runs"))
    path_set_at: int | None = None
    reopens = any(w is not None and descriptor_of(w) is not None for w in command.writes)
    for run in runs:
        paths, why = program_writes(run.base, run.argv[1:])
        known.update(posixpath.normpath(p) for p in paths if p not in _DEVICES)
        reopens = reopens or any(descriptor_of(p) is not None for p in paths)
        if why is not None:
            open_ended.append((run.index, why))
        if path_set_at is None and any(n is None or n == "PATH" for n in variables_assigned(run.argv)):
            path_set_at = run.index  # ``export PATH=p``, ``read PATH``, ``printf -v PATH p``...
    if reopens:
        # ``exec 3< s.sh; echo rm x > /dev/fd/3``: a descriptor's name opens its file afresh, for writing too.
        known.update(posixpath.normpath(h) for h in command.holds if h)
        if None in command.holds:
            open_ended.append((-1, "a descriptor's name may reopen a file only known when it runs"))
    if path_set_at is not None:
        # In a loop a part before the assignment runs again after it.
        looped = _LOOPS.search(command.source) is not None
        later = next(
            (
                r
                for r in runs
                if (r.index > path_set_at or (looped and r.index != path_set_at))
                and (
                    (r.base not in _BUILTINS and "/" not in str(r.argv[0]))
                    or path_searched_script(str(r.argv[0]), r.argv[1:]) is not None  # ``source name``
                )
            ),
            None,
        )
        if later is not None:
            return f"{later.base} is looked up in a PATH the line changed: which program that is is not known"
    if not known and not open_ended:
        return None
    any_order = _LOOPS_OR_CONCURRENCY.search(command.source) is not None
    for run in runs:
        # A part's own writes come after it reads its program; in a pipeline, loop or background
        # job every other part may run before it.
        before = [why for index, why in open_ended if index != run.index and (any_order or index < run.index)]
        tracked_only = all(why.startswith("git writes tracked") for why in before)
        for path in _runs_files(run):
            if path is None:
                continue
            normal = posixpath.normpath(path)
            if any(_within(normal, w) for w in known):
                return f"it runs {path}, a file the same command line writes"
            if before:
                return f"it runs {path} after a part that may have written it ({before[0]})"
        name = str(run.argv[0])
        if "/" not in name and run.base not in _BUILTINS:
            # ``cp x bin/ls && ls``: a bare name is looked up on PATH, where the line may have put it.
            shadow = next((w for w in known if posixpath.basename(w) == run.base), None)
            if shadow is not None:
                return f"{run.base} is looked up on PATH, and the line writes {shadow}"
        searched = path_searched_script(name, run.argv[1:])  # ``cp x bin/s.sh; source s.sh``
        shadow = next((w for w in known if searched and posixpath.basename(w) == searched), None)
        if shadow is not None:
            return f"{run.base} looks {searched} up on PATH, and the line writes {shadow}"
        reading = _reads_by_convention(run)
        if reading is None:
            continue
        if run.base == "git":
            places = _git_config_places(run)
            # Written into the repository's control files, into where git is pointed, or over a
            # directory holding them (``cp -r tpl/. .`` may bring a ``.git``).
            controls = [posixpath.join(p, ".git", "config") for p in (*places, ".")]
            hit = next(
                (
                    w
                    for w in known
                    if _is_git_control(w)
                    or any(_within(w, p) for p in places)
                    or any(_within(c, w) for c in controls)
                ),
                None,
            )
            if hit is not None:
                return f"it writes {hit}, and {reading}"
            if before and not tracked_only:
                return f"{reading}, after a part that may have written them ({before[0]})"
            continue
        # ``MAKEFILES=e.txt make``, ``PYTHONPATH=. python3``: a variable naming a written path.
        named = [posixpath.normpath(a.partition("=")[2]) for a in run.assignments if a.partition("=")[2]]
        hit = next(
            (
                w
                for w in known
                if _is_code(w) or reading.endswith("PATH the line sets") or any(_within(w, n) for n in named)
            ),
            None,
        )
        if hit is not None:
            return f"it writes {hit}, and {reading}"
        if before:
            return f"{reading}, after a part that may have written it ({before[0]})"
    return None
