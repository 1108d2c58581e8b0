"""Protected paths: files and directories never written without asking, whatever the mode (PERM-15).

Files that make code run later or configure the harness, git or a shell (``.git``, ``.claude``,
``.bashrc``, ``.mcp.json``, ...), however the path is spelled; a shell command's output
redirections and every path a program may change as named on its line count as writes: any
program the engine can't prove changes no named file (``tee F``, ``cp a F``, ``curl -oF``,
``chmod +x F``, one it does not know), through wrappers, ``find -exec``, ``sh -c`` and ``eval``,
in every directory the line may have moved to. An allow rule naming the program grants running
it, never writing a protected file (a blanket grant is no grant of a protected path).
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import stat
import tarfile
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from reference_impl.permissions._bash_reader import ShellCommand, split_command
from reference_impl.permissions._code_targets import (
    CodeTargets,
    code_language,
    code_targets,
    file_language,
    line_code,
)
from reference_impl.permissions._derived_names import (
    CopiedTree,
    Derived,
    GitTreeMove,
    NameFamily,
    PatchedFiles,
)
from reference_impl.permissions._descriptors import STDIN, descriptor_of, process_directory, shell_state
from reference_impl.permissions._evaluated import data_run_as_code
from reference_impl.permissions._git_tree_writes import git_tree_writes, may_change_repository
from reference_impl.permissions._line_writes import known_words, program_targets
from reference_impl.permissions._linked_protection import is_git_directory, linked_reason
from reference_impl.permissions._paths import depends_on_directory, lexical_path, opaque_state, resolved_path
from reference_impl.permissions._program_model import is_interpreter, unread_program
from reference_impl.permissions._project_files import NOT_READ, SHELL_TEXT
from reference_impl.permissions._protected_names import (
    PROTECTED_DIRECTORIES,
    PROTECTED_FILES,
    PROTECTED_TREES,
    TREE_SEGMENTS,
)
from reference_impl.permissions._python_resolution import SITE_DIRECTORIES, STARTUP_MODULES
from reference_impl.permissions._rules import Call, project_code, project_texts
from reference_impl.permissions._shell_forms import deny_forms, script_operand, shell_input
from reference_impl.permissions._shell_parts import SYNTAX_ERROR, ShellPart
from reference_impl.permissions._startup_sources import startup_reason
from reference_impl.permissions._tree_operands import find_names, tree_operands
from reference_impl.permissions._wrapped_commands import (
    SCRIPT_BUILTINS,
    SHELLS,
    builtin_script,
    find_commands,
    is_wrapper,
    unwrap,
)

__all__ = [
    "PROTECTED_DIRECTORIES",
    "PROTECTED_FILES",
    "PROTECTED_TREES",
    "protected_reason",
    "protected_write",
]


def _holds_run(segments: list[str], run: tuple[str, ...]) -> bool:
    """Whether ``run`` occurs in ``segments`` as consecutive segments (the directory itself or a path under it)."""
    width = len(run)
    return any(tuple(segments[i : i + width]) == run for i in range(len(segments) - width + 1))


def _form_reason(path: str, form: str) -> str | None:
    """Why writing the absolute path ``form`` (a spelling of ``path``) must be asked about, by its names alone."""
    segments = form.split("/")
    hit = PROTECTED_DIRECTORIES.intersection(segments[:-1]) or PROTECTED_DIRECTORIES.intersection(
        segments[-1:]
    )
    if hit:
        return f"{path} is inside the protected directory {sorted(hit)[0]}"
    if any("/".join(segments[-depth:]) in PROTECTED_FILES for depth in (1, 2, 3)):
        return f"{path} is a protected file ({segments[-1]})"
    tree = next((t for t in TREE_SEGMENTS if _holds_run(segments, t)), None)
    if tree is not None:
        return f"{path} is in {'/'.join(tree)}, whose files make code run later"
    # Python's startup code: a site directory's .pth files and modules (Python runs the one at every
    # start and imports the others before the next directory's), sitecustomize and usercustomize.
    site = SITE_DIRECTORIES.intersection(segments)
    if site:
        return f"{path} is in a Python site directory ({sorted(site)[0]}), whose code Python loads"
    if segments[-1] in STARTUP_MODULES:
        return f"{path} is a module Python imports at startup ({segments[-1]})"
    return startup_reason(form)


def protected_reason(path: str, cwd: Path) -> str | None:
    """Why writing ``path`` (any spelling; both its lexical and resolved forms) must be asked about.

    ``/proc/self/cwd/x`` is ``x`` in ``cwd``, the writing process's own directory; a path through one
    of its descriptors (``/dev/fd/3/x``, open on a directory) or another process's state can't be told.
    """
    opaque = opaque_state(path, cwd)
    if opaque is not None:
        return f"{path} leads through {opaque}, which may be a protected directory"
    try:
        spelled = posixpath.join(str(cwd), os.path.expanduser(path) if path.startswith("~") else path)
        if process_directory(spelled) or process_directory(resolved_path(path, cwd)):
            # ``ln -s /proc/self/fd f``: a later ``f/3/config`` is written where the writer's state says.
            return f"{path} is a directory of a process's own state, whose files are where that process says"
    except (OSError, ValueError):
        return f"the path {path!r} can't be resolved"
    try:
        forms = {lexical_path(path, cwd), resolved_path(path, cwd)}
    except (OSError, ValueError):
        return f"the path {path!r} can't be resolved"
    for form in forms:
        reason = _form_reason(path, form)
        if reason is not None:
            return reason
    reason = linked_reason(resolved_path(path, cwd), cwd)
    if reason is not None:
        return reason
    try:
        status = os.stat(resolved_path(path, cwd))
    except (OSError, ValueError):
        return None  # a new file has no other name but a link's
    if stat.S_ISREG(status.st_mode) and status.st_nlink > 1:
        # A hard link has a name of its own: the file may be ``.git/config`` under another name.
        return f"{path} has {status.st_nlink} names (hard links), and another may be a protected file"
    return None


def _reason_in(path: str, places: list[str] | None, cwd: Path) -> str | None:
    """Why writing ``path`` from any of ``places`` (the line's directories; None: not known) must be asked about.

    An absolute path is judged once, unless it names the writing process's own directory
    (``/proc/self/cwd/x``): that is wherever the line has moved to, like a relative path.
    """
    if path.startswith(("/", "~")) and not depends_on_directory(path, cwd):
        return protected_reason(path, cwd)
    if places is None:
        # ``cd .git && echo x > config``: a relative path written after the line changes
        # directory to where the walk can't tell.
        return f"the command changes directory before writing {path}, so where it lands is not known"
    return next((r for d in places if (r := protected_reason(path, Path(d))) is not None), None)


def _reopened_reason(
    written: str, held: tuple[str | None, ...], places: list[str] | None, cwd: Path
) -> str | None:
    """Why writing ``written`` may write a file the line opened only for reading (None: it can't).

    A descriptor's name (``/dev/fd/3``, ``/proc/self/fd/0``, a link to one) opens the file the
    descriptor holds afresh, for writing too: ``exec 3< .git/config; echo x > /dev/fd/3`` writes
    ``.git/config``, and ``cp f /dev/fd/3`` copies into a directory opened as ``3< .git/hooks``.
    """
    if not held or not _names_descriptor(written, places, cwd):
        return None
    for path in held:
        if path is None:
            return f"{written} may name a descriptor the line opened on a file only known when it runs"
        reason = _reason_in(path, places, cwd)
        if reason is not None:
            return f"{written} may reopen for writing what the line opened on {path}: {reason}"
    return None


def _names_descriptor(path: str, places: list[str] | None, cwd: Path) -> bool:
    """Whether ``path`` (from any of ``places``) may name a descriptor: spelled as one, or through a link."""
    if descriptor_of(path) is not None:
        return True
    for place in places or [str(cwd)]:
        try:
            if descriptor_of(resolved_path(path, Path(place))) is not None:
                return True
        except (OSError, ValueError):
            return True
    return False


# What changes the shell's own directory: its builtins, and what runs shell code in the shell itself.
_DIRECTORY_CHANGERS = frozenset({"cd", "pushd", "popd", "eval", "source", "."})
# Words that run the builtin named after them (with their options): ``builtin cd``, ``command -- cd``.
_BUILTIN_RUNNERS = frozenset({"builtin", "command"})


def _may_change_directory(part: ShellPart) -> bool:
    """Whether this command may change the directory the rest of the line runs in.

    It may unless its program is known and is none of :data:`_DIRECTORY_CHANGERS`, however it is
    reached through ``builtin`` and ``command``: a program only known at run time (``$c``, ``$(echo
    cd)``, a glob) may be ``cd``.
    """
    if part.opaque:
        return True
    words = list(part.argv)
    while words and words[0] in _BUILTIN_RUNNERS:
        words.pop(0)
        while words and words[0] is not None and words[0].startswith("-"):
            if words.pop(0) == "--":
                break
    return bool(words) and (words[0] is None or words[0] in _DIRECTORY_CHANGERS)


def _move_target(part: ShellPart) -> str | None:
    """Where a change of directory leads, as written (``~`` for ``cd`` alone); None when not known."""
    words = list(known_words(part))
    while words and words[0] in _BUILTIN_RUNNERS:
        words.pop(0)
        while words and words[0] is not None and words[0].startswith("-"):
            if words.pop(0) == "--":
                break
    if not words or words[0] not in ("cd", "pushd"):
        return None  # popd, eval, source, a program only known at run time
    operands = words[1:]
    while operands and operands[0] in ("-L", "-P", "-e", "-@", "-n", "--"):
        if operands.pop(0) == "--":
            break
    if not operands:
        return "~" if words[0] == "cd" else None
    target = operands[0]
    if target is None or target.startswith(("-", "+")):
        return None  # ``cd -``, ``pushd +1``: a directory of the stack
    if target.startswith("~") and not (target == "~" or target.startswith("~/")):
        return None  # ``~-``, ``~+``, ``~user``: $OLDPWD, $PWD (a loop may set them), another home
    return target


_MOST_DIRECTORIES = 32


def _directories(command: ShellCommand, directories: list[str] | None) -> list[str] | None:
    """Every directory a part of the line may run in (absolute), or None when one is not known."""
    if directories is None:
        return None
    found = list(directories)
    for part in command.parts:
        if not _may_change_directory(part):
            continue
        if "CDPATH" in command.source:
            return None  # ``cd sub`` searches $CDPATH first, which the line sets
        target = _move_target(part)
        if target is None:
            return None
        moved = []
        for directory in found:
            joined = posixpath.join(
                directory, os.path.expanduser(target) if target.startswith("~") else target
            )
            state = shell_state(joined)
            if state is not None and (state[0] == "descriptor" or not state[1]):
                return None  # ``cd /dev/fd/3``: a descriptor's directory, not known
            if state is not None:
                moved.append(lexical_path(joined, Path(directory)))  # ``cd /proc/self/cwd/x``: from here
            elif target.startswith(("/", "~")):
                moved.append(lexical_path(target, Path("/")))
            else:
                moved.append(joined)
        found = list(dict.fromkeys((*found, *moved)))
        if len(found) > _MOST_DIRECTORIES:
            return None
    return found


def _scripts(argv: tuple[str | None, ...], stdin: str | None = None) -> list[str | None]:
    """The shell code a command runs (``sh -c S``, ``eval S``, a shell's literal input), through wrappers.

    Also through ``find -exec``; None for code only known when it runs.
    """
    scripts: list[str | None] = []
    for _ in range(8):
        if not argv or argv[0] is None:
            break
        base, args = posixpath.basename(argv[0]), argv[1:]
        if base in SHELLS:
            code, unknown = shell_input(base, args, stdin)
            # A script file (neither code nor a reason) is a program of the project's, as ``./f.sh`` is:
            # trusted as read, its name matched by the rules (PERM-17), not looked into here.
            if code is not None or unknown is not None:
                scripts.append(code)
        elif base in SCRIPT_BUILTINS:
            script = builtin_script(base, args)
            scripts.append(None if script is None and None in args else script)
        elif base in (".", "source"):
            # A file of the project's is its program, trusted as ``bash f.sh`` is; its input
            # (``. /dev/stdin <<< CODE``) is the line's code; another descriptor or a run-time word
            # (``source <(...)``, ``. $f``) is code only known when it runs.
            sourced = args[1:2] if tuple(args[:1]) == ("--",) else args[:1]
            descriptor = descriptor_of(sourced[0]) if sourced and sourced[0] is not None else None
            if not sourced or sourced[0] is None or (descriptor is not None and descriptor != STDIN):
                scripts.append(None)
            elif descriptor == STDIN:
                scripts.append(stdin)
        elif base != "find":
            # What the rule check reads as code the command holds as data (PERM-17): ``mapfile -C``,
            # ``jobs -x``, git's ``-c diff.external=...``, ``tar --to-command``, awk's ``system``...
            held, why = data_run_as_code(base, args, stdin)
            if why is not None or held is not None:
                scripts.append(held)
        if base == "find":
            for command in find_commands(args):
                scripts.extend(_scripts(command, stdin))
        inner = unwrap(base, args) if is_wrapper(base) else None
        if not inner:
            break
        argv = inner
    return [s for s in scripts if s != ""]


_MOST_SCRIPT = 262144  # bytes of a script file read for the paths it writes


def _script_code(part: ShellPart, places: Sequence[str]) -> CodeTargets | None:
    """What the script file an interpreter of a language the engine reads is given writes (``python3 w.py``).

    Its literal targets only: a target it builds when it runs is not taken for any write (every
    script that names its output files by a variable would ask); the sandbox holds those.
    """
    found = script_operand(known_words(part))
    argv = known_words(part)
    if found is None or not argv or argv[0] is None or code_language(posixpath.basename(argv[0])) is None:
        return None
    for place in places:
        text = _regular_text(posixpath.join(place, found[0]), _MOST_SCRIPT)
        if text is None:
            continue
        language = file_language(found[0], text) or code_language(posixpath.basename(argv[0]))
        code = code_targets(language, text)
        return CodeTargets(code.runs, code.writes, None, None, code.moves, code.handed)
    return None


def _interpreter_code(part: ShellPart) -> CodeTargets | None:
    """What an interpreter's inline code (or here-document) in this command writes and runs, through wrappers."""
    argv = part.argv
    for _ in range(8):
        if not argv or argv[0] is None:
            return None
        base, args = posixpath.basename(argv[0]), argv[1:]
        if is_interpreter(base) or code_language(base) is not None:
            return line_code(base, args, part.stdin)
        inner = unwrap(base, args) if is_wrapper(base) else None
        if not inner:
            return None
        argv = inner
    return None


# The last segment of every protected name: what a family of numbered names may land on.
_PROTECTED_NAMES = frozenset(name.rsplit("/", 1)[-1] for name in PROTECTED_FILES) | PROTECTED_DIRECTORIES
_MOST_LISTED = 20000  # a tree or archive with more entries is not listed: its names are not known


def _tree_entries(root: str) -> Iterator[str | None]:
    """The relative paths under the directory ``root`` as on disk; None past the limit or at a link to a directory.

    A link to a directory may be followed (``cp -rL``): what is under it is not listed.
    """
    count = 0
    for top, directories, files in os.walk(root, followlinks=False):
        for name in (*directories, *files):
            count += 1
            full = os.path.join(top, name)
            if count > _MOST_LISTED or (os.path.islink(full) and os.path.isdir(full)):
                yield None
                return
            yield os.path.relpath(full, root)


def _archive_entries(path: str) -> list[str | None]:
    """An archive's member names (tar, compressed or not, or zip); None for one not read or holding links.

    A link member may lead later members anywhere (``d -> .git``, then ``d/hooks/x``).
    """
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                infos = archive.infolist()
                if len(infos) > _MOST_LISTED or any(stat.S_ISLNK(i.external_attr >> 16) for i in infos):
                    return [None]
                return [i.filename for i in infos]
        with tarfile.open(path) as archive:
            members = archive.getmembers()
    except (OSError, tarfile.TarError, zipfile.BadZipFile, EOFError, ValueError):
        return [None]
    if len(members) > _MOST_LISTED or any(m.issym() or m.islnk() for m in members):
        return [None]
    return [m.name.lstrip("/") for m in members]


_DIFF_NAME = re.compile(
    r"^(?:(?:---|\+\+\+|\*\*\*) (\S+)|Index: (\S+)|diff --git (\S+) (\S+)|(?:rename|copy) to (.+))", re.M
)
_MOST_DIFF_BYTES = 4 << 20


def _diff_names(text: str) -> list[str]:
    """Every name a diff's headers give (unquoted; a quoted name is kept whole, so it is judged as written)."""
    return [name.strip('"') for match in _DIFF_NAME.finditer(text) for name in match.groups() if name]


def _patched_reason(written: PatchedFiles, place: Path, written_elsewhere: Sequence[str]) -> str | None:
    """Why a file a diff names, patched from ``place``, may be protected: each name under every strip level it may have."""
    text = written.text
    if written.diff is not None:
        full = posixpath.join(str(place), written.diff)
        if any(
            posixpath.normpath(posixpath.join(str(place), w)) == posixpath.normpath(full)
            for w in written_elsewhere
        ):
            return (
                f"the line changes {written.diff} before it is applied, so the files it names are not known"
            )
        try:
            with open(full, "rb") as handle:
                text = handle.read(_MOST_DIFF_BYTES + 1).decode("utf-8", "replace")
        except OSError:
            return None  # no diff to apply
        if len(text) > _MOST_DIFF_BYTES:
            return f"the diff {written.diff} is too long to read the files it names"
    for name in _diff_names(text or ""):
        parts = [p for p in name.split("/") if p]
        levels = range(len(parts)) if written.strip is None else [min(written.strip, max(len(parts) - 1, 0))]
        for level in levels:
            candidate = posixpath.join(written.directory, *parts[level:]) if parts else written.directory
            reason = protected_reason(candidate, place)
            if reason is not None:
                return f"the diff names {name}, patched as {candidate}: {reason}"
    return None


def _through(names: Sequence[str], written_elsewhere: Sequence[str], place: Path) -> str | None:
    """A path another part of the line writes through one of ``names`` (absolute), which may be a link.

    ``git restore -s b lk && cp f lk/pre-commit``: what git, an archive or a copy writes may be a
    link (a tracked one, a link member, a copied one), so a path through it lands where it points.
    """
    roots = {posixpath.normpath(n) for n in names}
    for path in written_elsewhere:
        full = posixpath.normpath(posixpath.join(str(place), path))
        parent = posixpath.dirname(full)
        while parent not in ("", "/"):
            if parent in roots:
                return f"{path} is written through {parent}, which the line also writes and may make a link"
            parent = posixpath.dirname(parent)
    return None


def _git_tree_reason(
    written: GitTreeMove, place: Path, repository_changed: bool, written_elsewhere: Sequence[str] = ()
) -> str | None:
    """Why a git command that moves the working tree, run in ``place``, may write a protected path."""
    found = git_tree_writes(
        written.args,
        place,
        changed_first=repository_changed,
        environment_moved=written.environment_moved,
        tree=written.tree,
    )
    if isinstance(found, str):
        return found
    for path in found:
        reason = protected_reason(path, place)
        if reason is not None:
            return f"git writes or removes {path}: {reason}"
    return _through(found, written_elsewhere, place)


def _derived_reason(
    written: Derived, place: Path, written_elsewhere: Sequence[str], repository_changed: bool = False
) -> str | None:
    """Why a file written under a derived name, from ``place``, may be a protected path (None: none is).

    A family is judged by one member and by every protected name it holds; a tree or archive by
    each entry on disk, unless the line itself may change it first (``written_elsewhere``).
    """
    if written is None:
        return "the command writes files under names derived when it runs (a backup, an archive's, a copy's)"
    if isinstance(written, str):
        reason = protected_reason(written, place)
        return None if reason is None else f"it writes {written} (a name it derives): {reason}"
    if isinstance(written, NameFamily):
        directory = posixpath.dirname(written.head)
        for name in (written.example(), *(posixpath.join(directory, n) for n in sorted(_PROTECTED_NAMES))):
            if written.holds(name) and (reason := protected_reason(name, place)) is not None:
                return f"it writes files named {written.head}... such as {name}: {reason}"
        return None
    if isinstance(written, PatchedFiles):
        return _patched_reason(written, place, written_elsewhere)
    if isinstance(written, GitTreeMove):
        return _git_tree_reason(written, place, repository_changed, written_elsewhere)
    source = written.source if isinstance(written, CopiedTree) else written.archive
    full = posixpath.join(str(place), source)
    if any(
        posixpath.normpath(posixpath.join(str(place), w)).startswith(posixpath.normpath(full))
        for w in written_elsewhere
    ):
        return (
            f"the line changes {source} before it is copied or extracted, so the names written are not known"
        )
    if isinstance(written, CopiedTree):
        if not os.path.isdir(full):
            return None  # a file is copied by the name the line shows; a missing source copies nothing
        entries: list[str | None] = ["", *_tree_entries(full)]
        under = posixpath.basename(posixpath.normpath(source))
        bases = [written.destination, posixpath.join(written.destination, under)]
    else:
        if not os.path.isfile(full):
            return None  # no archive to extract
        entries, bases = _archive_entries(full), [written.destination]
    names: list[str] = []
    for entry in entries:
        if entry is None:
            return f"the names written from {source} can't be listed"
        for base in bases:
            name = posixpath.normpath(posixpath.join(base, entry))
            reason = protected_reason(name, place)
            if reason is not None:
                return f"it writes {name} from {source}: {reason}"
            names.append(posixpath.join(str(place), name))
    return _through(names, written_elsewhere, place)


def _derived_line_reason(
    targets: Sequence[Derived], elsewhere: Sequence[str], places: list[str] | None, repository_changed: bool
) -> str | None:
    """Why a file one part writes under a name it derives (a family, tree or archive) may be protected.

    Judged in each directory the line may run in; ``elsewhere`` is what the line's other parts write.
    """
    derived = [t for t in targets if not (t is None or isinstance(t, str))]
    if not derived:
        return None
    if places is None:
        return "the command changes directory before writing files under names it derives"
    for written in derived:
        for place in places:
            reason = _derived_reason(written, Path(place), elsewhere, repository_changed)
            if reason is not None:
                return reason
    return None


def _line_reason(
    command: ShellCommand,
    directories: list[str] | None,
    cwd: Path,
    depth: int,
    project: bool = False,
    held: tuple[str | None, ...] = (),
) -> str | None:
    """Why this line (run in any of ``directories``, None: not known) may write a protected path.

    A line of the call also for what its project tools run from project files (:func:`_project_reason`);
    a ``project`` file's line (a recipe, a script) for its literal writes only: what it names only
    when it runs, or a text that is not shell at all (an SQL script), is left to the sandbox, as a
    script's built names are. ``held``: what the lines around it opened on descriptors it inherits.
    """
    if SYNTAX_ERROR in command.problems:
        if project:
            return None
        # The grammar could not read all of it (``{ [x]y; echo x > .git/config; }``): a write in the
        # part it could not read is not in ``writes``, so what the line writes is not known.
        return "the command is not read with certainty (the grammar finds a syntax error), so what it writes is not known"
    places = _directories(command, directories)
    if places is None and project:
        places = directories
    by_part = [
        program_targets(known_words(part), 0, command.source, part.assignments, part.stdin)
        for part in command.parts
    ]
    targets = [t for part_targets in by_part for t in part_targets]
    named = [t for t in (*command.writes, *targets) if t is None or isinstance(t, str)]
    held = (*held, *command.holds)
    for written in named:
        if written is None:
            if project:
                continue
            return "the command writes to a file only known when it runs"
        reason = _reason_in(written, places, cwd) or _reopened_reason(written, held, places, cwd)
        if reason is not None:
            return reason
    for part in command.parts:
        # A directory given to a program that may change what it holds (``rm -rf .``, ``find . -delete``).
        names = find_names(known_words(part))
        for word in tree_operands(known_words(part)):
            reason = _reopened_reason(word, held, places, cwd)
            if reason is not None:
                return reason
            for place in places or [str(cwd)]:
                reason = _tree_reason(word, Path(place), names)
                if reason is not None:
                    return reason
    reason = _run_commands_reason(command, places, cwd, project)
    if reason is not None:
        return reason
    changing_git: list[bool] | None = None  # per part, read once a part derives names
    for index, part_targets in enumerate(by_part):
        if all(t is None or isinstance(t, str) for t in part_targets):
            continue  # no name derived here; asking only per such part keeps a long line linear
        # What the other parts write may change a tree or archive before this part reads it.
        elsewhere = [
            t for i, other in enumerate(by_part) if i != index for t in other if isinstance(t, str)
        ] + [w for w in command.writes if w is not None]
        # Another git command of the line (``git fetch o b && git checkout FETCH_HEAD``) may change the
        # refs and objects this one's are read from.
        if changing_git is None:
            changing_git = [_runs_changing_git(part, places) for part in command.parts]
        moved = any(changing for i, changing in enumerate(changing_git) if i != index)
        derived = [t for t in part_targets if t is not None] if project else part_targets
        reason = _derived_line_reason(derived, elsewhere, places, moved)
        if reason is not None:
            return reason
    reason = _unread_words_reason(command, places, cwd)
    if reason is not None:
        return reason
    for part in command.parts:
        code = _interpreter_code(part) or _script_code(part, places or [str(cwd)])
        if code is not None:
            reason = _code_reason(code, places, cwd, depth, project, held)
            if reason is not None:
                return reason
        for script in _scripts(part.argv, part.stdin):
            if script is None or depth >= 8:
                if project:
                    continue
                if script is None:
                    return "the command runs shell code only known when it runs"
                return "the command nests shell code too deeply to tell what it writes"
            reason = _line_reason(split_command(script), places, cwd, depth + 1, project, held)
            if reason is not None:
                return reason
    return None if project else _project_reason(command, places or [str(cwd)], cwd)


def _code_reason(
    code: CodeTargets,
    places: list[str] | None,
    cwd: Path,
    depth: int,
    project: bool = False,
    held: tuple[str | None, ...] = (),
) -> str | None:
    """Why code an interpreter runs (inline, a script, a project file) may write a protected path.

    A literal path is judged like a redirection's, a path built when it runs may be any (where the
    reading keeps it); what the code runs is a line of its own, in the directories it moved to.
    ``held``: what the line opened on descriptors the code inherits.
    """
    if code.writes_built is not None:
        return f"the command's code may write a protected file: {code.writes_built}"
    code_places = _code_directories(places, code.moves)
    if code.moves and code_places is None:
        if project:
            return None
        return (
            "the command's code changes its working directory to one the engine can't follow, "
            "so where what it writes or runs lands is not known"
        )
    for path in (*code.writes, *code.handed):
        relative = code_places is None and not path.startswith(("/", "~"))
        reason = protected_reason(path, cwd) if relative else _reason_in(path, code_places, cwd)
        reason = reason or _holding_reason(path, code_places or [str(cwd)])
        reason = reason or _reopened_reason(path, held, code_places, cwd)
        if reason is not None:
            return reason
    for run in code.runs:
        reason = (
            _line_reason(split_command(run), code_places, cwd, depth + 1, project, held)
            if depth < 8
            else (None if project else "nested")
        )
        if reason is not None:
            return reason
    return None


def _run_commands_reason(
    command: ShellCommand, places: list[str] | None, cwd: Path, project: bool = False
) -> str | None:
    """Why a command the line's programs run from their own script languages may write a protected path.

    ``awk 'BEGIN{system("touch .git/hooks/x")}'``, ``find -exec``: the commands the rule check finds
    run (PERM-17) write what they name; one it can't read (``sed 'e'``'s command, a name made when it
    runs) may write anything.
    """
    forms = deny_forms(command.source)
    if forms.opaque is not None and not project:
        return f"{forms.opaque}: what it runs, and so what it writes, is not known"
    own = {known_words(part) for part in command.parts}
    for argv in sorted(forms.commands - own, key=repr):
        for written in program_targets(argv):
            if written is None and not project:
                return f"{argv[0]}, which the line runs, writes a file only known when it runs"
            if isinstance(written, str) and (reason := _reason_in(written, places, cwd)) is not None:
                return reason
    return None


_PROJECT_DEPTH = 6  # project files followed from a line (a script running a script, a recipe's make)


def _project_reason(command: ShellCommand, places: list[str], cwd: Path) -> str | None:
    """Why what the line's project tools run from project files may write a protected path (PERM-15).

    ``make`` (a recipe ``touch .git/hooks/pre-commit``), ``npm test``, ``python3 main.py`` (a module it
    imports), ``bash run.sh`` (a script it sources): the files the rule check reads for what they run
    (PERM-17) are read for what they write, each layer in turn. Their literal writes only: code the
    engine does not read, and names built when it runs, are left to the sandbox, as a script's are.
    """
    pending: list[tuple[str, list[str], int]] = [(command.source, places, 0)]
    seen: set[tuple[str, str, str]] = set()
    while pending:
        line, directories, depth = pending.pop(0)
        for here, where, text in project_texts(line, directories):
            if (here, where, text) in seen or text == NOT_READ:
                continue
            seen.add((here, where, text))
            if depth >= _PROJECT_DEPTH:
                return f"{where} runs project files nested deeper than the engine reads for what they write"
            code = None if where.startswith(SHELL_TEXT) else project_code(where, text)
            if code is not None:
                code = CodeTargets(code.runs, code.writes, None, None, code.moves, code.handed)
                reason = _code_reason(code, [here], cwd, 0, project=True)
                pending += [(run, [here], depth + 1) for run in code.runs]
            else:
                # A recipe, a package script, a shell script: a line of its own (as the rule check reads it).
                reason = _line_reason(split_command(text), [here], cwd, 0, project=True)
                pending.append((text, [here], depth + 1))
            if reason is not None:
                return f"it runs {where}, which may write a protected file: {reason}"
    return None


_MOST_WALKED = 100_000  # entries under a directory a command may change that are judged one by one


def _tree_reason(word: str, place: Path, names: tuple[str, ...] | None = None) -> str | None:
    """Why a command that may change what the directory ``word`` holds (run in ``place``) may change a protected path.

    ``rm -rf .``, ``chmod -R a+w ~``: every entry under it is judged by its names (``.git/config``,
    ``site-packages/x``), a directory git takes for its own whatever its name, a link by where it
    leads, and a file with other names (hard links) as maybe one of them; with ``names`` (find's
    ``-name`` patterns), only the entries they match, each as any written path is. None when
    ``word`` names no directory.
    """
    spelled = posixpath.join(str(place), os.path.expanduser(word))
    if not os.path.isdir(spelled):
        return None
    try:
        root = resolved_path(word, place)
    except (OSError, ValueError):
        return f"the command may change what {word} holds, a directory that can't be resolved"
    count = 0
    stack = [root]
    while stack:
        directory = stack.pop()
        shown = posixpath.normpath(posixpath.join(word, posixpath.relpath(directory, root)))
        if names is None and is_git_directory(directory):
            return (
                f"the command may change what {word} holds: {shown} is a git directory, whose hooks git runs"
            )
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return f"the command may change what {word} holds, and {shown} can't be listed"
        for entry in entries:
            count += 1
            if count > _MOST_WALKED:
                return f"the command may change what {word} holds: too many files to tell none is protected"
            name = posixpath.join(shown, entry.name)
            if names is not None and not any(
                fnmatch.fnmatchcase(entry.name, n) or fnmatch.fnmatchcase(entry.name.lower(), n)
                for n in names
            ):
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                continue
            reason = _form_reason(name, entry.path)
            if names is not None:
                reason = reason or protected_reason(entry.path, place)
            if entry.is_symlink():
                reason = reason or protected_reason(entry.path, place)  # where the link leads
            elif entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            elif entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_nlink > 1:
                reason = reason or f"{name} has other names (hard links), and one may be a protected file"
            if reason is not None:
                return f"the command may change what {word} holds: {reason}"
    return None


# A word's pieces that may name a path: between blanks, quotes and the separators of option and
# address syntaxes and escapes (``+w .git/x``, ``OPEN:.git/x,creat``, ``into '.git/x'``, ``.git/x\\nq``).
_PIECES = re.compile(r"[^\s'\"`:,;=()\[\]{}<>|&\\]+")
_MOST_READ = 65536  # bytes of a file an unread program is given that are read for the paths it names


def _pieces(texts: Sequence[str], places: Sequence[str] = ()) -> Iterator[str]:
    """The pieces of ``texts`` shaped like a path (``a/b``, ``.name``, ``~/x``, ``$PWD/x`` as ``x``).

    A bare name too where it is a link or a file with other names in one of ``places`` (``cfg``, a
    hard link of ``~/.bashrc``: ``ed f <<< 'w cfg'`` writes it).
    """
    for text in texts:
        for piece in _PIECES.findall(text.replace("$PWD/", "").replace("${PWD}/", "")):
            if (
                "/" in piece
                or piece.startswith((".", "~"))
                or any(_linked_name(place, piece) for place in places)
            ):
                yield piece


def _linked_name(place: str, name: str) -> bool:
    """Whether ``name`` in ``place`` is a symbolic link or a file with more than one name."""
    try:
        status = os.lstat(posixpath.join(place, name))
    except (OSError, ValueError):
        return False
    return stat.S_ISLNK(status.st_mode) or (stat.S_ISREG(status.st_mode) and status.st_nlink > 1)


def _regular_text(path: str, limit: int) -> str | None:
    """The text of ``path`` when it is a regular file (never a device or a pipe: those may block), to ``limit`` bytes."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as file:
            data = file.read(limit)
        return data.decode("utf-8") if b"\0" not in data else None
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _file_text(word: str, cwd: Path, places: list[str] | None) -> str:
    """The text of the small file ``word`` names, if it names one (a program's script or input list)."""
    for place in places or [str(cwd)]:
        text = _regular_text(posixpath.join(place, os.path.expanduser(word)), _MOST_READ)
        if text is not None:
            return text
    return ""


def _unread_words_reason(command: ShellCommand, places: list[str] | None, cwd: Path) -> str | None:
    """Why a path the line's words name may be written by a program whose use of them the engine does not read.

    ``vim -es '+w .git/hooks/x'``, ``sqlite3 db '.output .mcp.json'``, ``echo 'open .git/x w' | tclsh``,
    ``socat - OPEN:.git/x``, ``cmake -P w.cmake`` (the script names it): a program the engine does not
    read may do anything with any word of the line, any file it is given, or its input. The values of
    the line's assignments name where programs write (``GIT_TRACE=$PWD/.git/x git status``,
    ``TMPDIR=.git/hooks mktemp``); ``xargs`` gives its command the words of its input (the line's, a file's).
    """
    texts = [value.partition("=")[2] for part in command.parts for value in part.assignments]
    texts += [
        w.partition("=")[2]
        for part in command.parts
        for w in known_words(part)[1:2]
        if w
        and "=" in w
        and posixpath.basename(known_words(part)[0] or "") in ("export", "declare", "typeset", "env", "local")
    ]
    unread = None
    for part in command.parts:
        argv = known_words(part)
        if not argv or argv[0] is None:
            continue
        base = posixpath.basename(argv[0])
        # xargs too: it gives its command the words of its input, which are the line's (or a file's).
        if unread_program(base, argv[1:], part.stdin) is not None and code_language(base) is None:
            unread = unread or f"the engine does not read what {base} does with its words"
    if unread is not None:
        words = [w for part in command.parts for w in known_words(part) if w is not None]
        texts += words + [part.stdin for part in command.parts if part.stdin]
        texts += [_file_text(w, cwd, places) for w in words if not w.startswith("-")]
    for piece in _pieces(texts, places or [str(cwd)]):
        relative = places is None and not piece.startswith(("/", "~"))
        reason = protected_reason(piece, cwd) if relative else _reason_in(piece, places, cwd)
        if reason is not None:
            return f"{reason} ({unread or 'a value the line assigns names it'})"
    return None


# The first segment of every protected name: what a directory written into may come to hold.
_PROTECTED_TOPS = frozenset(
    n.split("/")[0] for n in PROTECTED_DIRECTORIES | PROTECTED_FILES | PROTECTED_TREES
)


def _holding_reason(path: str, places: Sequence[str]) -> str | None:
    """Why code writing into the directory ``path`` (a copy of a tree, an archive extracted) may write a protected file.

    ``cpSync("tmpl", ".", {recursive: true})``, ``extractall(".")``: what lands in a directory holding
    a protected name (the project's ``.git``, ``.vscode``) may be that name's files.
    """
    for place in places:
        directory = posixpath.join(place, os.path.expanduser(path))
        if not os.path.isdir(directory):
            continue
        try:
            held = sorted(_PROTECTED_TOPS.intersection(os.listdir(directory)))
        except OSError:
            return f"the code writes into {path}, a directory the engine can't list"
        if held:
            return (
                f"the code writes into {path}, which holds {held[0]}: what it copies there may be its files"
            )
    return None


_MOST_MOVES = 6  # directory changes in one piece of code followed (each may come before any other)


def _code_directories(places: list[str] | None, moves: Sequence[str | None]) -> list[str] | None:
    """The directories an interpreter's code may write or run in: the line's, and those it changes to.

    ``os.chdir(".git"); open("config", "a")`` writes ``.git/config``. Code is not followed in order, so
    each change may apply after any other. None when one is not known (built, a descriptor's, under a
    line whose own directory is not known, or too many).
    """
    if not moves:
        return places
    if places is None or None in moves or len(moves) > _MOST_MOVES:
        return None
    found = list(places)
    for move in moves:
        assert move is not None
        target = os.path.expanduser(move) if move.startswith("~") else move
        for directory in list(found):
            joined = posixpath.join(directory, target)
            if shell_state(joined) is not None:
                return None  # ``os.chdir("/proc/self/cwd/..")``, ``/dev/fd/3``: the process's own state
            found.append(lexical_path(joined, Path(directory)))
    return list(dict.fromkeys(found))


def _runs_changing_git(part: ShellPart, places: list[str] | None) -> bool:
    """Whether this part runs git with a subcommand that may change a repository (in one of ``places``)."""
    argv = known_words(part)
    if not argv or argv[0] is None or posixpath.basename(argv[0]) != "git":
        return False
    return places is None or any(may_change_repository(argv, Path(place)) for place in places)


def protected_write(call: Call, cwd: Path) -> str | None:
    """Why this call may write a protected path (a file tool's edit, or anything a shell line writes), if it may."""
    target = call.target
    if target is None:
        return None
    if target.kind == "edit":
        if _names_descriptor(target.value, None, cwd):
            # ``/dev/fd/5``, ``/proc/self/fd/5``: a file tool writes the descriptor the harness's own
            # process holds there (its configuration, its protocol's stream), which no name shows.
            return f"{target.value} names a descriptor of the harness's own process, whose file can't be told"
        return protected_reason(target.value, cwd)
    shell = call.shell
    if shell is None:
        return None
    return _line_reason(shell, [lexical_path(".", cwd)], cwd, 0)
