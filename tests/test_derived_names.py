"""PERM-15: files written under names a program derives ask in bypassPermissions; everyday ones don't.

Each line is decided by the engine, and (where bubblewrap runs) run for real in a sandbox so that
the filesystem says the protected name is what the program writes: the engine's computed name is
the program's.
"""

from __future__ import annotations

import gzip
import shutil
import tarfile
from pathlib import Path

import pytest

from pytest_toolharness._strategies.derived_names import prepare_derived_work
from pytest_toolharness._strategies.file_writers import written_paths
from reference_impl import PermissionContext, decide_permission
from reference_impl.permissions._derived_names import CopiedTree, NameFamily, derived_names
from tests.test_rules import BASH


def _behavior(command: str, cwd: Path) -> str:
    context = PermissionContext(mode="bypassPermissions", rules=(), cwd=cwd)
    return decide_permission(BASH, {"command": command}, context).behavior


def _project(work: Path) -> Path:
    """``.bash`` (a file a program starts from), ``lines``, ``src`` and ``tpl`` holding protected files, archives."""
    work.mkdir()
    prepare_derived_work(work, ".bash")
    (work / "lines").write_text("1\n2\n3\n", encoding="utf-8")
    for name in ("src/.bashrc", "tpl/.git/hooks/pre-commit", "plain/a.txt", "plain/docs/b.md"):
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text("x\n", encoding="utf-8")
    (work / "dst").mkdir()
    for archive, member in (("bad.tar", "src/.bashrc"), ("ok.tar", "plain/a.txt")):
        with tarfile.open(work / archive, "w") as tar:
            tar.add(work / member, arcname=member.split("/", 1)[1])
    (work / ".envrc.gz").write_bytes(gzip.compress(b"export X=1\n"))
    (work / "evil.diff").write_text("--- a/.envrc\n+++ b/.envrc\n@@ -0,0 +1 @@\n+x\n", encoding="utf-8")
    (work / "ok.diff").write_text("--- a/src/x.py\n+++ b/src/x.py\n@@ -0,0 +1 @@\n+x\n", encoding="utf-8")
    return work


# (line, a protected file it writes as the filesystem sees it, or "" when the write is not run here)
ASKED = [
    # the red team's: a backup suffix, a compressor's suffix and its removal, numbered pieces,
    # recursive copies, a typescript, a wgetrc that runs a command
    ("mv -b -S rc in.txt .bash", ".bashrc"),
    ("cp -b -S rc in.txt .bash", ".bashrc"),
    ("gzip -S rc .bash", ".bashrc"),
    ("csplit -f .bash -b 'rc%.0d' lines 2", ".bashrc"),
    ("cp -r src/. .", ".bashrc"),
    ("cp -a tpl/. .", ".git/hooks/pre-commit"),
    ("script -q -c true .bashrc", ".bashrc"),
    ("echo 'use_askpass = rm x' > .wgetrc", ".wgetrc"),
    # spellings of the option and the environment
    ("cp -bSrc in.txt .bash", ".bashrc"),
    ("cp --suf=rc -b in.txt .bash", ".bashrc"),
    ("cp --backup=simple --suffix rc in.txt .bash", ".bashrc"),
    ("SIMPLE_BACKUP_SUFFIX=rc cp -b in.txt .bash", ".bashrc"),
    ("export SIMPLE_BACKUP_SUFFIX=rc; cp -b in.txt .bash", ".bashrc"),
    ("env SIMPLE_BACKUP_SUFFIX=rc ln -bs in.txt .bash", ".bashrc"),
    ("VERSION_CONTROL=existing SIMPLE_BACKUP_SUFFIX=rc install -b in.txt .bash", ".bashrc"),
    ("timeout 5 cp -b -S rc in.txt .bash", ".bashrc"),
    # fresh ones: other programs, other rules for the name
    ("sed -irc s/a/b/ .bash", ".bashrc"),
    ("sed --in-place=rc -e s/a/b/ .bash", ".bashrc"),
    ("perl -i'rc' -pe s/a/b/ .bash", ".bashrc"),
    ("split -a1 -l1 lines .bashr", ".bashrc"),
    ("xz -S rc .bash", ".bashrc"),
    ("patch -b -z rc .bash in.diff", ".bashrc"),
    ("patch -p1 -i evil.diff", ".envrc"),
    ("patch -p1 < evil.diff", ""),  # a diff on standard input is not read
    ("git apply evil.diff", ""),
    ("git -C '' apply evil.diff", ".envrc"),  # ``-C ""`` leaves the directory as it is (git(1))
    ("git -C dst apply ../evil.diff", "dst/.envrc"),
    ("tar xf bad.tar", ".bashrc"),
    ("tar -xf bad.tar -C dst", "dst/.bashrc"),
    ("rsync -a src/ .", ".bashrc" if shutil.which("rsync") else ""),
    ("mv src dst", "dst/src/.bashrc"),
    ("man-recode -t UTF-8 --suffix=rc .bash", ""),
    ("gzip -d .envrc.gz", ".envrc"),
    ("gunzip -f .envrc.gz", ".envrc"),
    ("python3 -m gzip -d .envrc.gz", ".envrc" if Path("/usr/bin/python3").exists() else ""),
    ("python3 -m tarfile -e bad.tar", ".bashrc" if Path("/usr/bin/python3").exists() else ""),
    ("find . -maxdepth 0 -exec gzip -S rc .bash \\;", ".bashrc"),
    ("bash -c 'cp -b -S rc in.txt .bash'", ".bashrc"),
    ("wget -r http://example.invalid/", ""),
    ("curl -OJ http://example.invalid/x", ""),
    ("cpio -id < x.cpio", ""),
    ("echo 'ProxyCommand sh -c x' >> ~/.ssh/config", ""),
]

EVERYDAY = [
    "gzip in.txt",
    "xz -T0 -9 in.txt",
    "zstd -19 in.txt",
    "python3 -m gzip in.txt",
    "wget -q http://example.invalid/x.tgz",
    "gunzip -k x.txt.gz",
    "gzip -d x.tar.gz",
    "cp -r plain dst",
    "cp -r plain/. dst/",
    "cp -a plain backup",
    "mv plain dst",
    "tar xf ok.tar -C dst",
    "tar czf out.tgz plain",
    "cp -b in.txt notes.txt",
    "sed -i.bak s/a/b/ in.txt",
    "split -l 1000 lines part-",
    "csplit lines 2",
    "patch -p1 -i ok.diff",
    "patch src/x.py ok.diff",
    "git apply ok.diff",
    "git -C dst apply ../ok.diff",
    "git -C '' apply ok.diff",
    "rsync -av plain/ dst",
    "basename --suffix=.txt in.txt",
    "script -q -c true session.log",
]


@pytest.mark.parametrize(("line", "protected"), ASKED)
def test_a_protected_file_written_under_a_derived_name_asks(
    tmp_path: Path, line: str, protected: str
) -> None:
    """PERM-15: the name the program derives is a protected one (the filesystem agrees), so the line asks."""
    work = _project(tmp_path / "work")
    assert _behavior(line, work) == "ask", line
    if protected and shutil.which("bwrap") is not None:
        judged = _project(tmp_path / "judged")
        assert protected in written_paths(line, judged), f"{line!r} was expected to write {protected}"


@pytest.mark.parametrize("line", EVERYDAY)
def test_everyday_writes_under_derived_names_are_not_asked(tmp_path: Path, line: str) -> None:
    """PERM-15: the engine computes the names these write (``in.txt.gz``, ``dst/a.txt``), and none is protected."""
    assert _behavior(line, _project(tmp_path / "work")) == "allow", line


def test_backup_names_follow_the_suffix_option_and_the_environment() -> None:
    """``-S`` beats ``SIMPLE_BACKUP_SUFFIX``; the harness's own value counts; numbered backups are a family."""
    assert "f.bak" in derived_names("cp", ("-b", "-S", ".bak", "a", "f"), ("SIMPLE_BACKUP_SUFFIX=x",))
    assert "fx" in derived_names("cp", ("-b", "a", "f"), ("SIMPLE_BACKUP_SUFFIX=x",))
    assert "frc" in derived_names("cp", ("--backup", "a", "f"), environment={"SIMPLE_BACKUP_SUFFIX": "rc"})
    assert NameFamily("f.~", "0123456789", 1, "~") in derived_names("mv", ("-b", "a", "f"), environment={})
    assert None in derived_names(
        "cp", ("-b", "a", "f"), line_source="export SIMPLE_BACKUP_SUFFIX=$S; cp -b a f"
    )
    assert derived_names("cp", ("--backup=none", "a", "f"), environment={}) == []


def test_trees_and_families_are_described_not_guessed() -> None:
    """``cp -r`` names its tree (listed when judged); ``split`` its family; an unread option: unknown."""
    assert derived_names("cp", ("-r", "src/.", ".")) == [CopiedTree("src/.", ".")]
    family = derived_names("split", ("-a1", "lines", ".bashr"))[0]
    assert isinstance(family, NameFamily)
    assert family.holds(".bashrc")
    assert not family.holds(".bashr")
    assert derived_names("cp", ("--no-such-option", "-b", "a", "f")) == [None]
