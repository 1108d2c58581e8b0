"""Path rules and protected paths against paths composed from segments the filesystem resolves (PERM-11, PERM-15).

A maze (``ths.build_path_maze``) holds one protected file, reachable through a symbolic link, a hard
link, a link to the directory itself, a link back up from a subdirectory, ``/proc/self/root`` and
``..`` out and back; ``ths.path_spellings`` composes paths from those segments. A Read the harness
runs under ``Read(<the file>)`` deny must not open the protected file, as the filesystem
(``os.path.samefile``) says; a spelling that reaches another file may run or not.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import edit_tool, host_answering, read_tool, run_calls, shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

# A protected file in a directory, which a rule may name by the directory's whole tree.
_NESTED = "vault/key.env"
_DENY_FORMS = {
    ths.MAZE_TARGET: (f"./{ths.MAZE_TARGET}", f"**/{ths.MAZE_TARGET}", f"/{ths.MAZE_TARGET}"),
    _NESTED: ("./vault/**", "vault/**", "/vault/**", "**/key.env", f"./{_NESTED}"),
}


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=80, deadline=None)
@given(
    data=st.data(),
    name=st.sampled_from([ths.MAZE_TARGET, _NESTED]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
def test_path_deny_holds_for_every_spelling_that_reaches_the_file(
    new_harness: Callable[[], Any], data: st.DataObject, name: str, mode: str
) -> None:
    """PERM-11: a ``Read`` deny rule stops every path that opens the protected file, however composed.

    Relative and absolute, through symbolic and hard links (also to the file's directory),
    ``/proc/self/root``, ``..`` through a link (physical, not lexical), doubled slashes and ``.``; the
    rule names the file, or (for a file in a directory) the directory's whole tree (``vault/**``) or a
    pattern (``**/key.env``), then without a hard link; the filesystem says which spellings reach the
    file, and none of those may be read.
    """
    rule_form = data.draw(st.sampled_from(_DENY_FORMS[name]), label="rule")
    # A hard link is the file under a second name with no trace of the first: a rule naming the file
    # meets it (the same file); a pattern would have to search every file it covers for it.
    maze = ths.build_path_maze(fresh_dir(), name, hard_link="*" not in rule_form)
    path = data.draw(ths.path_spellings(str(maze.root), name), label="path")
    rules = [RuleSpec(f"Read({rule_form})", "deny"), RuleSpec("Read", "allow")]
    run = run_calls(
        new_harness(), [read_tool()], [("Read", {"file_path": path})], rules=rules, mode=mode, cwd=maze.root
    )
    if run.ran() == 0:
        return
    assert not ths.same_file(maze, path), (
        f"Read({rule_form}) deny ({mode}) let {path!r} be read, and it is {maze.target}"
    )


# Protected files (PERM-15) the maze is built around: a file in a protected directory, a shell start-up
# file, the harness's MCP configuration.
_PROTECTED = (".git/config", ".git/hooks/pre-commit", ".bashrc", ".mcp.json", ".claude/settings.json")
# Programs that write the file their operand or option names ({p}: the path, shell-quoted).
_WRITERS = (
    "cp /etc/hostname {p}",
    "echo pwned | tee -a {p}",
    "sort -o {p} /etc/hostname",
    "dd if=/etc/hostname of={p} status=none",
    "install -m 644 /etc/hostname {p}",
    "uniq /etc/hostname {p}",
)


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=80, deadline=None)
@given(
    data=st.data(),
    name=st.sampled_from(_PROTECTED),
    mode=st.sampled_from(["acceptEdits", "bypassPermissions"]),
    via=st.sampled_from(["edit", "redirection", "cd then redirection", "expanded redirection", "program"]),
)
def test_protected_file_reached_by_any_spelling_is_never_written_unasked(
    new_harness: Callable[[], Any], data: st.DataObject, name: str, mode: str, via: str
) -> None:
    """PERM-15: a write that lands on a protected file asks, whatever path reaches it.

    The path is composed by ``ths.path_spellings`` around the protected file: through symbolic and
    hard links (the file with a second name or without), links to directories (to the protected
    directory itself: ``into1/config`` for ``.git/config``), ``/proc/self/root``, ``..`` out and back; written by a file
    tool, by a shell redirection (also to a word bash expands to the path: quotes split inside a name,
    a backslash, ``"$PWD"``, a ``${UNSET:-...}`` default, ``$(printf ...)``, a ``?`` glob), or by a
    redirection after ``cd`` into a part of the path on the same line, or by a program given the path as
    its output (``cp``, ``tee``, ``sort -o``, ``dd of=``, ``install``, ``uniq``). Bash and the filesystem say
    which spellings land on the file; none of those may run unasked.
    """
    if via != "edit" and mode == "acceptEdits":
        return  # acceptEdits never auto-allows shell commands anyway
    maze = ths.build_path_maze(fresh_dir(), name, hard_link=data.draw(st.booleans(), label="hard link"))
    path = data.draw(ths.path_spellings(str(maze.root), name), label="path")
    if via == "edit":
        tool, call = edit_tool(), ("Edit", {"file_path": path})
    elif via == "program":
        writer = data.draw(st.sampled_from(_WRITERS), label="writer")
        tool, call = shell_tool(), ("Bash", {"command": writer.format(p=shlex.quote(path))})
    elif via == "expanded redirection":
        word = data.draw(ths.expanded_spellings(path), label="word")
        values = ths.bash_word_values(word, maze.root)
        # Bash is the judge of where the word lands: one field naming the protected file.
        path = values[0] if len(values) == 1 else f"{maze.root}/nowhere"
        tool, call = shell_tool(), ("Bash", {"command": f"echo pwned >> {word}"})
    else:
        directory, _, written = path.rpartition("/") if via == "cd then redirection" else ("", "", path)
        move = ""
        if directory:
            move = f"cd {'-P ' if '..' in directory else ''}{shlex.quote(directory)} && "  # -P: as the kernel
        tool, call = shell_tool(), ("Bash", {"command": f"{move}echo pwned >> {shlex.quote(written)}"})
    run = run_calls(new_harness(), [tool], [call], mode=mode, host=host_answering("deny"), cwd=maze.root)
    if run.ran() == 0:
        return
    assert not ths.same_file(maze, path), f"{via} of {path!r} ran unasked in {mode}, and it is {maze.target}"


# What an allow rule on src/** may be asked to read: src's own files, and links in src that lead out of
# the project (reads inside the working directory need no rule).
_THROUGH_SRC = ("src/readme.md", "src/inner", "src/alias", "src/out/x", "src/out/../src/readme.md")


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    path=st.sampled_from(_THROUGH_SRC),
    spelled=st.sampled_from(["", "./", "root", "/proc/self/root"]),
    rule=st.sampled_from(["Read(./src/**)", "Read(src/**)", "Read(/src/**)"]),
    mode=st.sampled_from(["default", "acceptEdits"]),
)
def test_path_allow_covers_no_file_a_link_inside_it_leads_out_to(
    new_harness: Callable[[], Any], path: str, spelled: str, rule: str, mode: str
) -> None:
    """PERM-11: an allow rule on a directory's tree never allows a file a link in it leads out to.

    "A symlink is judged by its target too": ``src/alias`` -> a secret outside the project,
    ``src/out`` -> a directory outside it; the host refuses every question, so a read that runs ran
    on the rule (or on the working directory, which holds ``src``), and the filesystem says where it
    landed: never outside the project.
    """
    root = fresh_dir().resolve()
    outside = fresh_dir().resolve()
    (root / "src").mkdir()
    (root / "src" / "readme.md").write_text("inside\n", encoding="utf-8")
    (outside / "secret.env").write_text("TOKEN=not-for-the-model\n", encoding="utf-8")
    (outside / "x").write_text("outside\n", encoding="utf-8")
    (root / "src" / "inner").symlink_to("readme.md")
    (root / "src" / "alias").symlink_to(outside / "secret.env")
    (root / "src" / "out").symlink_to(outside)
    start = {"": "", "./": "./", "root": f"{root}/", "/proc/self/root": f"/proc/self/root{root}/"}[spelled]
    full = start + path
    run = run_calls(
        new_harness(),
        [read_tool()],
        [("Read", {"file_path": full})],
        rules=[RuleSpec(rule, "allow")],
        mode=mode,
        host=host_answering("deny"),
        cwd=root,
    )
    if run.ran() == 0:
        return
    landed = Path(full).resolve() if full.startswith("/") else (root / full).resolve()
    assert landed.is_relative_to(root), (
        f"{rule} allowed reading {full!r} ({mode}) without asking, and it is {landed}, outside the project"
    )


# Shell forms that write the file a word names ({w}: the word as drawn, not requoted).
_WORD_WRITES = (
    "echo pwned >> {w}",
    "echo pwned > {w}",
    "echo pwned >| {w}",
    "echo pwned 2>> {w} 1>&2",
    "echo pwned &>> {w}",
    "echo pwned | tee -a {w}",
    "cp /etc/hostname {w}",
)


# How a word may start: relative, ``./``, or absolute through the process's working directory,
# spelled the ways the kernel walks to it (/proc/thread-self is two levels: ``<pid>/task/<tid>``).
_WORD_STARTS = (
    "", "./", "/proc/self/cwd/", "/proc/thread-self/cwd/", "/proc/thread-self/../../cwd/",
    "/proc/self/task/../cwd/", "/dev/fd/../cwd/", "/proc/self/../self/cwd/",
)  # fmt: skip


def _protected_words(name: str, start: str) -> st.SearchStrategy[tuple[str, str]]:
    return ths.expanded_spellings(start + name).map(lambda word: (name, word))


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    spelled=st.tuples(st.sampled_from(_PROTECTED), st.sampled_from(_WORD_STARTS)).flatmap(
        lambda t: _protected_words(*t)
    ),
    write=st.sampled_from(_WORD_WRITES),
)
# Found by this property: pieces the grammar splits, a program's operand bash expands or globs.
@example(spelled=(".git/config", "''\\.git/config"), write="echo pwned >> {w}")
@example(spelled=(".git/config", '"${TOOLHARNESS_UNSET:-.git/config}"'), write="echo pwned | tee -a {w}")
@example(spelled=(".bashrc", ".bashr?"), write="echo pwned | tee -a {w}")
@example(spelled=(".git/config", "''\".git\"$'\\x2f\\x63'\"\"\\o\\n\\fig"), write="cp /etc/hostname {w}")
def test_protected_file_named_by_any_bash_word_is_never_written_unasked(
    new_harness: Callable[[], Any], spelled: tuple[str, str], write: str
) -> None:
    r"""PERM-15: a shell write to a word that bash expands to a protected file asks in bypassPermissions.

    The word (relative, ``./``, or through the writer's own directory: ``/proc/self/cwd``,
    ``/proc/thread-self/../../cwd``, ``/dev/fd/../cwd``) is composed by ``ths.expanded_spellings``: the path cut into pieces, each quoted its own way
    (plain, single, double, ANSI-C ``$'\xNN'``, a backslash before each character) with empty quotes
    between or before them (``''\.git/config``: pieces a grammar may read as two words where bash reads
    one), or behind ``"$PWD"``, a default value, a command substitution, a glob. Bash expands the word
    (the judge); a write that lands on the protected file must not run unasked.
    """
    name, word = spelled
    root = fresh_dir().resolve()
    protected = root / name
    protected.parent.mkdir(parents=True, exist_ok=True)
    protected.write_text("original\n", encoding="utf-8")
    values = ths.bash_word_values(word, root)
    command = write.format(w=word)
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": command})],
        mode="bypassPermissions",
        host=host_answering("deny"),
        cwd=root,
    )
    if run.ran() == 0 or len(values) != 1:
        return
    # /proc/self/cwd is the writer's directory (the run's), not this process's: the kernel says
    # where the word lands for a process started there (realpath's own).
    where = subprocess.run(
        ["realpath", "-m", values[0]], cwd=root, capture_output=True, text=True, check=True
    )
    landed = Path(where.stdout.rstrip("\n"))
    assert not (landed.exists() and landed.samefile(protected)), (
        f"{command!r} ran unasked in bypassPermissions, and bash writes {name} through it"
    )
