"""Protected files written under names a program derives, not names its line shows (PERM-15).

``cp -b -S rc f .bash`` backs ``.bash`` up as ``.bashrc``; ``gzip -S rc .bash`` compresses it to
``.bashrc``; ``csplit -f .bash -b 'rc%.0d'`` numbers its first piece ``.bashrc``; ``cp -r src/. .``
and ``tar xf t.tar`` write whatever names the tree or archive holds. None of those names is a word
of the line, so a harness that judges only the words lets them run unasked. The programs and
their name-deriving options are mined from the installed manual pages
(``ths.derived_name_options``), and the filesystem judges what each line writes (bubblewrap).
"""

from __future__ import annotations

import posixpath
import shutil
import tarfile
import zipfile
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

# Protected files split into a start the program is given (no protected name itself) and the end
# it derives: ``.bash`` + ``rc``, ``.ssh/conf`` + ``ig``, ``.config/fish/config`` + ``.fish``.
_SPLIT_TARGETS = (
    (".bash", "rc"),
    (".zsh", "rc"),
    (".npm", "rc"),
    (".env", "rc"),
    (".wget", "rc"),
    (".mcp", ".json"),
    (".gitconfi", "g"),
    (".profil", "e"),
    (".bash_prof", "ile"),
    (".ssh/conf", "ig"),
    (".config/fish/config", ".fish"),
)
# What sets the backup suffix or method instead of the option: the environment, however given.
_BACKUP_ENVIRONMENTS = (
    "SIMPLE_BACKUP_SUFFIX={tail} {line}",
    "export SIMPLE_BACKUP_SUFFIX={tail}; {line}",
    "env SIMPLE_BACKUP_SUFFIX={tail} {line}",
    "VERSION_CONTROL=simple SIMPLE_BACKUP_SUFFIX={tail} {line}",
    "VERSION_CONTROL=existing SIMPLE_BACKUP_SUFFIX={tail} {line}",
)


@st.composite
def derived_protected_writes(draw: st.DrawFn) -> tuple[str, str, str]:
    """(a line, the file it starts from, the protected file it may write under a derived name): composed.

    The program and its option come from the catalogue mined from the manual pages; the option is
    spelled every way getopt reads it (``-S rc``, ``-Src``, ``--suffix rc``, ``--suffix=rc``, a
    long option's unambiguous prefix ``--suf=rc``, bundled after ``-b``: ``-bSrc``), or, for a
    backup, replaced by ``SIMPLE_BACKUP_SUFFIX`` (an assignment, ``export``, ``env``) with or
    without ``VERSION_CONTROL``, and copying into the backed-up file's directory (``cp -b conf
    .ssh``); the protected file any of :data:`_SPLIT_TARGETS`.
    """
    entry = draw(ths.derived_name_options(), label="writer")
    head, tail = draw(st.sampled_from(_SPLIT_TARGETS), label="target")
    option, joiner = draw(st.sampled_from(entry.spellings()), label="spelling")
    if option.startswith("--") and draw(st.booleans()):
        option = option[: draw(st.integers(min_value=min(5, len(option)), max_value=len(option)))]
    line = entry.command_line(head, tail, option=option, joiner=joiner)
    backup = entry.form.startswith("{program} -b {option} in.txt")
    if backup and not option.startswith("--") and draw(st.booleans()):
        line = line.replace(f"-b {option}", f"-b{option[1:]}", 1)  # ``-bS rc``, ``-bSrc``
    if backup and entry.program != "patch" and draw(st.booleans()):
        plain = (
            f"{entry.program} {draw(st.sampled_from(['-b', '--backup', '--backup=simple']))} in.txt {head}"
        )
        line = draw(st.sampled_from(_BACKUP_ENVIRONMENTS)).format(tail=tail, line=plain)
    if backup and "/" in head and draw(st.booleans(), label="into its directory"):
        # ``cp -b conf .ssh``: the destination is a directory, the file backed up the one in it
        directory, name = head.rsplit("/", 1)
        line = line.replace(f" in.txt {head}", f" {name} {directory}")
    return line, head, head + tail


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=60, deadline=None)
@given(write=derived_protected_writes())
@example(write=("mv -b -S rc in.txt .bash", ".bash", ".bashrc"))
@example(write=("cp -bSrc in.txt .bash", ".bash", ".bashrc"))
@example(write=("SIMPLE_BACKUP_SUFFIX=rc cp -b in.txt .bash", ".bash", ".bashrc"))
@example(write=("cp -b -S ig conf .ssh", ".ssh/conf", ".ssh/config"))
@example(write=("gzip -S rc .bash", ".bash", ".bashrc"))
@example(write=("csplit -f .bash -b 'rc%.0d' in.txt 2", ".bash", ".bashrc"))
def test_a_protected_file_written_under_a_derived_name_is_never_written_unasked(
    new_harness: Callable[[], Any], write: tuple[str, str, str]
) -> None:
    """PERM-15: a program writing a protected file under a name it derives (a backup suffix, a compressor's suffix, a prefix and number) asks in bypassPermissions.

    Composed by :func:`derived_protected_writes` and judged by the filesystem: the line runs for real
    in a sandbox whose working directory (also ``HOME``) holds the file it starts from; a line that
    does not write the protected file is no attempt (discarded). One that does never runs unasked.
    """
    if shutil.which("bwrap") is None:
        pytest.skip("the filesystem judge needs bubblewrap (apt-get install bubblewrap)")
    line, head, target = write
    work, judged = fresh_dir(), fresh_dir()
    for directory in (work, judged):
        ths.prepare_derived_work(directory, head)
        (directory / posixpath.basename(head)).touch(exist_ok=True)  # what ``cp -b conf .ssh`` copies
    run = run_line_in_bypass(new_harness(), line, work)
    assume(target in ths.written_paths(line, judged))
    assert_asked_not_run(run, f"{line!r} writes {target} (the filesystem says so)")


# Protected files a tree or an archive may hold, beside ordinary ones.
_MEMBERS = (
    ".bashrc",
    ".git/hooks/pre-commit",
    ".claude/settings.json",
    ".envrc",
    ".ssh/config",
    "lib/.npmrc",
)
_COPIERS = (
    "cp -r {source} {destination}",
    "cp -a {source} {destination}",
    "cp -R {source} {destination}",
    "cp -rT {source} {destination}",
    "mv {source} {destination}",
    "rsync -a {source} {destination}",
    "tar xf t.tar -C {destination}",
    "tar -xzf t.tgz --directory={destination}",
    "tar xvf t.tar",
    "unzip -q t.zip -d {destination}",
    "unzip -o t.zip",
    "pip install -q --no-deps --no-index --target {destination} x-1.0-py3-none-any.whl",
    "python3 -m pip install -q --no-deps --no-index -t{destination} x-1.0-py3-none-any.whl",
)


def _fill(work: Path, member: str) -> None:
    """``tpl`` holding ordinary files and ``member``; ``t.tar``, ``t.tgz``, ``t.zip`` of the same; an empty ``sub``."""
    for name in ("README.md", "src/app.py", member):
        (work / "tpl" / name).parent.mkdir(parents=True, exist_ok=True)
        (work / "tpl" / name).write_text("x\n", encoding="utf-8")
    (work / "sub").mkdir()
    names = ("README.md", "src/app.py", member)
    for archive, compressed in (("t.tar", False), ("t.tgz", True)):
        with tarfile.open(work / archive, "w:gz" if compressed else "w") as tar:
            for name in names:
                tar.add(work / "tpl" / name, arcname=name)
    with zipfile.ZipFile(work / "t.zip", "w") as zipped:
        for name in names:
            zipped.write(work / "tpl" / name, arcname=name)
    # The same as a wheel (pip installs its members under ``--target``: no build code, but the files).
    metadata = {
        "x-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: x\nVersion: 1.0\n",
        "x-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        "x-1.0.dist-info/RECORD": "",
    }
    with zipfile.ZipFile(work / "x-1.0-py3-none-any.whl", "w") as wheel:
        for name in names:
            wheel.write(work / "tpl" / name, arcname=name)
        for name, text in metadata.items():
            wheel.writestr(name, text)


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    copier=st.sampled_from(_COPIERS),
    member=st.sampled_from(_MEMBERS),
    source=st.sampled_from(["tpl", "tpl/", "tpl/.", "./tpl/."]),
    destination=st.sampled_from([".", "./", "sub", "sub/"]),
)
@example(copier="cp -r {source} {destination}", member=".bashrc", source="tpl/.", destination=".")
@example(
    copier="cp -a {source} {destination}", member=".git/hooks/pre-commit", source="tpl/.", destination="."
)
def test_a_protected_file_in_a_copied_tree_or_archive_is_never_written_unasked(
    new_harness: Callable[[], Any], copier: str, member: str, source: str, destination: str
) -> None:
    """PERM-15: copying a tree (``cp -r``, ``cp -a``, ``mv``, ``rsync -a``) or extracting an archive (``tar x``, ``unzip``, a wheel ``pip install --target``) that holds a protected file asks in bypassPermissions.

    The names written are the tree's or archive's, none of them a word of the line; the filesystem
    judges (a line that writes no protected file is discarded).
    """
    if shutil.which("bwrap") is None:
        pytest.skip("the filesystem judge needs bubblewrap (apt-get install bubblewrap)")
    line = copier.format(source=source, destination=destination)
    work, judged = fresh_dir(), fresh_dir()
    for directory in (work, judged):
        _fill(directory, member)
    run = run_line_in_bypass(new_harness(), line, work)
    written = ths.written_paths(line, judged)
    landed = [
        path for path in written if not path.startswith("tpl") and path.endswith(member.rsplit("/", 1)[-1])
    ]
    assume(landed)
    assert_asked_not_run(run, f"{line!r} writes {landed[0]} (the filesystem says so)")


# Protected files two segments deep or more, none of whose segments is protected alone: a diff
# naming only their last part writes them when it is applied from the directories above.
_DEEP_TARGETS = (
    ".ssh/config",
    ".ssh/rc",
    ".config/git/config",
    ".config/fish/config.fish",
    ".config/tmux/tmux.conf",
    ".aws/config",
    ".kube/config",
    ".docker/config.json",
    ".cargo/config.toml",
)
_GIT_GLOBALS = ("--no-pager", "-c core.quotepath=off", "--literal-pathspecs")


@st.composite
def diffs_applied_elsewhere(draw: st.DrawFn) -> tuple[str, dict[str, str], str]:
    """(a line, the files it needs by path, the protected file its diff patches): composed.

    The target's directories are split between those the line moves to (``git -C`` once or per
    directory, ``patch -d``/``--directory=``), those ``git apply --directory=`` puts the diff's names
    under, and the diff's own names, which lead with ``-pN``'s components to strip; the diff lies in
    the directory moved to (named plainly) or above it (reached by ``..``).
    """
    target = draw(st.sampled_from(_DEEP_TARGETS), label="target")
    parts = target.split("/")
    cut = draw(st.integers(min_value=1, max_value=len(parts) - 1), label="named from")
    directories, named = parts[:cut], parts[cut:]
    program = draw(st.sampled_from(["git", "patch"]), label="program")
    moved_to = draw(st.integers(min_value=0, max_value=len(directories)), label="moved through")
    moved, rooted = directories[:moved_to], directories[moved_to:]
    if program == "patch":  # patch has no root option: the other directories are the diff's names
        named, rooted = [*rooted, *named], []
    strip = draw(st.integers(min_value=1, max_value=3), label="strip")
    name = "/".join([*(f"p{i}" for i in range(strip)), *named])
    header = draw(st.sampled_from(["--- {n}\n+++ {n}\n", "diff --git {n} {n}\n--- {n}\n+++ {n}\n"]))
    diff_text = header.format(n=name) + "@@ -0,0 +1 @@\n+x\n"
    beside = not moved or draw(st.booleans(), label="diff beside the target")
    diff = "x.diff" if beside else "../" * len(moved) + "x.diff"
    files = {posixpath.join(*moved, diff) if beside else "x.diff": diff_text, target: ""}
    if program == "git":
        per_directory = draw(st.booleans(), label="one -C per directory")
        movers = [f"-C {d}" for d in moved] if per_directory else [f"-C {'/'.join(moved)}"] * bool(moved)
        words = ["git", *movers]
        options = draw(st.lists(st.sampled_from(_GIT_GLOBALS), max_size=2, unique=True), label="globals")
        for option in options:  # anywhere among the -C's, which keep their order
            words.insert(draw(st.integers(min_value=1, max_value=len(words))), option)
        words.append("apply")
        if rooted:
            words.append(f"--directory={'/'.join(rooted)}")
        if strip != 1 or draw(st.booleans()):
            words.append(f"-p{strip}")
        words.append(diff)
    else:
        into = "/".join(moved)
        spelled = draw(st.sampled_from(["-d {d}", "-d{d}", "--directory={d}"]), label="-d spelled")
        words = ["patch", *([spelled.format(d=into)] if moved else [])]
        words.append(draw(st.sampled_from(["-p{n}", "-p {n}", "--strip={n}"])).format(n=strip))
        words.append(draw(st.sampled_from(["-i {f}", "--input={f}"])).format(f=diff))
    return " ".join(words), files, target


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=40, deadline=None)
@given(applied=diffs_applied_elsewhere())
@example(
    applied=(
        "patch -d .ssh -p1 -i x.diff",
        {".ssh/x.diff": "--- a/config\n+++ b/config\n@@ -0,0 +1 @@\n+x\n", ".ssh/config": ""},
        ".ssh/config",
    )
)
@example(
    applied=(
        "git -C .config apply --directory=fish ../x.diff",
        {
            "x.diff": "--- a/config.fish\n+++ b/config.fish\n@@ -0,0 +1 @@\n+x\n",
            ".config/fish/config.fish": "",
        },
        ".config/fish/config.fish",
    )
)
def test_a_protected_file_a_diff_patches_from_another_directory_is_never_written_unasked(
    new_harness: Callable[[], Any], applied: tuple[str, dict[str, str], str]
) -> None:
    """PERM-15: a diff applied from another directory (``patch -d``, ``git -C``, ``git apply --directory=``) that patches a protected file asks in bypassPermissions.

    No word of the line is protected: the diff names the file's last part, the line the directories
    above it. Composed by :func:`diffs_applied_elsewhere` and judged by the filesystem (a line that
    does not change the protected file is discarded).
    """
    if shutil.which("bwrap") is None:
        pytest.skip("the filesystem judge needs bubblewrap (apt-get install bubblewrap)")
    line, files, target = applied
    work, judged = fresh_dir(), fresh_dir()
    for directory in (work, judged):
        for path, text in files.items():
            (directory / path).parent.mkdir(parents=True, exist_ok=True)
            (directory / path).write_text(text, encoding="utf-8")
    run = run_line_in_bypass(new_harness(), line, work)
    assume(target in ths.written_paths(line, judged))
    assert_asked_not_run(run, f"{line!r} patches {target} (the filesystem says so)")


# Perl's switches that leave the names it writes alone, values attached or apart (``-I lib``).
_PERL_SWITCHES = ("-w", "-l", "-0777", "-CSD", "-Ilib", "-I lib", "-Mstrict", "-M strict")


@st.composite
def perl_in_place_edits(draw: st.DrawFn) -> tuple[str, str, str]:
    """(a ``perl -i`` line, the file it edits in place, the protected backup it may write): composed.

    The backup is the file + ``-i``'s suffix (any of :data:`_SPLIT_TARGETS`); the file may be in a
    directory whose name starts with a dash (``-d/.bash``, a file only after the program or ``--``).
    Other switches (:data:`_PERL_SWITCHES`) come before or after ``-i``, bundled with ``-p`` or not;
    the program is ``-e`` code (attached or apart) or a script file; ``--`` may end the switches; the
    file may follow another.
    """
    head, tail = draw(st.sampled_from(_SPLIT_TARGETS), label="target")
    file = draw(st.sampled_from(["", "-d/", "--x/", "sub/"]), label="directory") + head
    switches = draw(st.lists(st.sampled_from(_PERL_SWITCHES), max_size=3, unique=True), label="switches")
    in_place = draw(st.sampled_from([[f"-pi{tail}"], ["-p", f"-i{tail}"], [f"-i{tail}", "-p"]]))
    code = draw(st.sampled_from(["-e 's/a/b/'", "-e's/a/b/'", "-E 's/a/b/'", "fix.pl"]), label="program")
    words = [*switches]
    for word in in_place:
        words.insert(draw(st.integers(min_value=0, max_value=len(words))), word)
    if code.startswith("-"):
        words.insert(draw(st.integers(min_value=0, max_value=len(words))), code)
    if draw(st.booleans(), label="--"):
        words.append("--")
    if not code.startswith("-"):
        words.append(code)
    files = draw(st.permutations([file, "in.txt"])) if draw(st.booleans(), label="two files") else [file]
    return " ".join(["perl", *words, *files]), file, file + tail


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=40, deadline=None)
@given(edit=perl_in_place_edits())
@example(edit=("perl -pirc -e 's/a/b/' -- -d/.bash", "-d/.bash", "-d/.bashrc"))
@example(edit=("perl -pirc -e 's/a/b/' in.txt -d/.bash", "-d/.bash", "-d/.bashrc"))
@example(edit=("perl -Ilib -pirc -e 's/a/b/' .bash", ".bash", ".bashrc"))
@example(edit=("perl -I lib -pirc -e 's/a/b/' .bash", ".bash", ".bashrc"))
def test_a_protected_backup_of_a_perl_in_place_edit_is_never_written_unasked(
    new_harness: Callable[[], Any], edit: tuple[str, str, str]
) -> None:
    """PERM-15: ``perl -i SUFFIX`` editing a file whose backup (file + suffix) is a protected file asks in bypassPermissions.

    Composed by :func:`perl_in_place_edits`: the files are perl's arguments after its switches and
    program, however the switches are spelled. Judged by the filesystem (a line that does not
    write the protected backup is discarded).
    """
    if shutil.which("bwrap") is None or shutil.which("perl") is None:
        pytest.skip("the filesystem judge needs bubblewrap and perl")
    line, file, target = edit
    work, judged = fresh_dir(), fresh_dir()
    for directory in (work, judged):
        ths.prepare_derived_work(directory, file)
        (directory / "fix.pl").write_text("s/a/b/;\n", encoding="utf-8")
    run = run_line_in_bypass(new_harness(), line, work)
    assume(target in ths.written_paths(line, judged))
    assert_asked_not_run(run, f"{line!r} writes {target} (the filesystem says so)")


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    copier=st.sampled_from([c for c in _COPIERS if "{destination}" in c]),
    target=st.sampled_from(_DEEP_TARGETS),
    cut=st.integers(min_value=1, max_value=2),
    source=st.sampled_from(["tpl", "tpl/", "tpl/.", "./tpl/."]),
)
@example(copier="unzip -q t.zip -d {destination}", target=".ssh/config", cut=1, source="tpl")
@example(copier="tar xf t.tar -C {destination}", target=".ssh/config", cut=1, source="tpl")
def test_a_member_copied_or_extracted_into_the_directory_that_protects_it_is_never_written_unasked(
    new_harness: Callable[[], Any], copier: str, target: str, cut: int, source: str
) -> None:
    """PERM-15: a tree or archive whose member is protected only under the destination (``config`` extracted with ``-d .ssh``) asks in bypassPermissions.

    The target (any of :data:`_DEEP_TARGETS`) is split into the destination the line names and the
    member the tree or archive holds, so neither a word of the line nor a member is protected alone;
    the filesystem judges (a line that does not write the target is discarded).
    """
    if shutil.which("bwrap") is None:
        pytest.skip("the filesystem judge needs bubblewrap (apt-get install bubblewrap)")
    parts = target.split("/")
    cut = min(cut, len(parts) - 1)
    destination, member = "/".join(parts[:cut]), "/".join(parts[cut:])
    line = copier.format(source=source, destination=destination)
    work, judged = fresh_dir(), fresh_dir()
    for directory in (work, judged):
        _fill(directory, member)
        (directory / destination).mkdir(parents=True)
    run = run_line_in_bypass(new_harness(), line, work)
    assume(target in ths.written_paths(line, judged))
    assert_asked_not_run(run, f"{line!r} writes {target} (the filesystem says so)")
