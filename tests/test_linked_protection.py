"""A protected or denied file is a file, not a spelling: names that reach it through symbolic links (PERM-15, PERM-11).

Red-team round 2 (s33), mechanisms 3, 4 and 6: a protected name that is a link to an ordinary
file, git's own directory, hooks and included configuration not spelled ``.git``, and a link
inside a denied tree pointing out of it.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from reference_impl import PermissionContext, decide_permission, parse_rule
from reference_impl.permissions._linked_protection import is_git_directory
from tests.test_rules import BASH, EDIT, READ, WRITE


def _decide(tool: object, inputs: dict[str, str], cwd: Path, mode: str = "acceptEdits", rules: tuple = ()):  # type: ignore[type-arg]
    return decide_permission(tool, inputs, PermissionContext(mode=mode, rules=rules, cwd=cwd))  # type: ignore[arg-type]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.parametrize(
    ("link", "target", "written"),
    [
        (".mcp.json", "conf/mcp.json", "conf/mcp.json"),
        (".mcp.json", "conf/new.json", "conf/new.json"),  # dangling: the write creates the protected file
        (".claude", "conf/claude", "conf/claude/settings.json"),
        (".git", "repo", "repo/hooks/post-checkout"),
    ],
)
def test_a_write_reaching_a_protected_name_through_a_link_asks(
    tmp_path: Path, link: str, target: str, written: str
) -> None:
    """PERM-15: ``.mcp.json -> conf/mcp.json``: writing ``conf/mcp.json`` writes ``.mcp.json`` (acceptEdits asks)."""
    (tmp_path / written).parent.mkdir(parents=True, exist_ok=True)
    if target == "conf/mcp.json":
        (tmp_path / target).write_text("{}\n")
    os.symlink(target, tmp_path / link)
    tool = EDIT if (tmp_path / written).exists() else WRITE
    decision = _decide(
        tool,
        {"file_path": str(tmp_path / written), "content": "x", "old_string": "{}", "new_string": "x"},
        tmp_path,
    )
    assert decision.behavior == "ask", decision
    bash = _decide(BASH, {"command": f"echo x >> {written}"}, tmp_path, mode="bypassPermissions")
    assert bash.behavior == "ask", bash


def test_a_home_dotfile_linked_into_a_dotfiles_tree_is_protected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PERM-15: ``~/.bashrc -> ../dotfiles/bashrc``: editing ``dotfiles/bashrc`` edits what bash sources."""
    (tmp_path / "dotfiles").mkdir()
    (tmp_path / "dotfiles" / "bashrc").write_text("# rc\n")
    (tmp_path / "h").mkdir()
    os.symlink("../dotfiles/bashrc", tmp_path / "h" / ".bashrc")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    decision = _decide(WRITE, {"file_path": str(tmp_path / "dotfiles" / "bashrc"), "content": "x"}, tmp_path)
    assert decision.behavior == "ask", decision


def test_an_ordinary_write_beside_links_is_not_asked(tmp_path: Path) -> None:
    """Links to other files leave ordinary writes alone."""
    (tmp_path / "conf").mkdir()
    os.symlink("conf/mcp.json", tmp_path / ".mcp.json")
    os.symlink("conf", tmp_path / "other")
    decision = _decide(WRITE, {"file_path": str(tmp_path / "conf" / "plain.json"), "content": "x"}, tmp_path)
    assert decision.behavior == "allow", decision


def test_a_separate_git_directory_is_protected(tmp_path: Path) -> None:
    """PERM-15: ``git init --separate-git-dir=meta``: ``meta/hooks/pre-commit`` is a hook."""
    _git(tmp_path, "init", "-q", f"--separate-git-dir={tmp_path / 'meta'}", ".")
    decision = _decide(
        WRITE, {"file_path": str(tmp_path / "meta" / "hooks" / "pre-commit"), "content": "x"}, tmp_path
    )
    assert decision.behavior == "ask", decision
    bash = _decide(
        BASH, {"command": "printf 'nuke' > meta/hooks/pre-commit"}, tmp_path, mode="bypassPermissions"
    )
    assert bash.behavior == "ask", bash


def test_a_configured_hooks_path_and_an_included_file_are_protected(tmp_path: Path) -> None:
    """PERM-15: ``core.hooksPath=.githooks`` and ``include.path=../gitcfg.inc`` name files git runs or reads."""
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "config", "core.hooksPath", ".githooks")
    _git(tmp_path, "config", "include.path", "../gitcfg.inc")
    (tmp_path / "gitcfg.inc").write_text("[core]\n")
    for written in (".githooks/pre-commit", "gitcfg.inc"):
        decision = _decide(WRITE, {"file_path": str(tmp_path / written), "content": "x"}, tmp_path)
        assert decision.behavior == "ask", (written, decision)
    plain = _decide(WRITE, {"file_path": str(tmp_path / "src.py"), "content": "x"}, tmp_path)
    assert plain.behavior == "allow", plain


@pytest.mark.parametrize("linked", ["../data/key.txt", "../data"])
def test_a_link_inside_a_denied_tree_denies_its_target(tmp_path: Path, linked: str) -> None:
    """PERM-11: ``secret/key -> ../data/key.txt`` under ``Read(./secret/**)``: ``data/key.txt`` is the denied file."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "key.txt").write_text("TOPSECRET\n")
    (tmp_path / "data" / "other.txt").write_text("x\n")
    (tmp_path / "secret").mkdir()
    os.symlink(linked, tmp_path / "secret" / "key")
    rules = (parse_rule("Read(./secret/**)", "deny", "userSettings"),)
    decision = _decide(
        READ, {"file_path": str(tmp_path / "data" / "key.txt")}, tmp_path, mode="default", rules=rules
    )
    assert decision.behavior == "deny", decision
    if linked == "../data/key.txt":
        other = _decide(
            READ, {"file_path": str(tmp_path / "data" / "other.txt")}, tmp_path, mode="default", rules=rules
        )
        assert other.behavior == "allow", other


def test_a_git_directory_is_what_git_takes_for_one(tmp_path: Path) -> None:
    """PERM-15: objects/, refs/ and a HEAD naming a ref or an object make a git directory, whatever its name."""
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "meta")], check=True)
    assert is_git_directory(str(tmp_path / "meta"))
    plain = tmp_path / "plain"
    (plain / "objects").mkdir(parents=True)
    (plain / "refs").mkdir()
    assert not is_git_directory(str(plain))  # no HEAD
    (plain / "HEAD").write_text("0123456789abcdef0123456789abcdef01234567\n")
    assert is_git_directory(str(plain))  # a detached HEAD
    (plain / "HEAD").write_text("not a ref\n")
    assert not is_git_directory(str(plain))
    (plain / "HEAD").unlink()
    (plain / "HEAD").symlink_to("refs/heads/main")
    assert is_git_directory(str(plain))
    (plain / "refs").rmdir()
    assert not is_git_directory(str(plain))


def test_code_copying_a_tree_into_a_directory_holding_a_protected_name_asks(tmp_path: Path) -> None:
    """PERM-15: ``copytree("tmpl", ".")`` writes into the root, which holds .git; into ``out`` it does not."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "tmpl").mkdir()
    (tmp_path / "out").mkdir()
    into_root = """python3 -c 'import shutil; shutil.copytree("tmpl", ".", dirs_exist_ok=True)'"""
    into_out = """python3 -c 'import shutil; shutil.copytree("tmpl", "out", dirs_exist_ok=True)'"""
    assert _decide(BASH, {"command": into_root}, tmp_path, mode="bypassPermissions").behavior == "ask"
    assert _decide(BASH, {"command": into_out}, tmp_path, mode="bypassPermissions").behavior == "allow"


_HEAD_STARTS = (
    b"ref:",
    b"ref: ",
    b"ref:\t",
    b"ref:\n",
    b"ref:\r\n ",
    b"ref:\v",
    b"ref:\f",
    b"REF: ",
    b"ref",
    b"",
)
_HEAD_NAMES = (
    b"refs/heads/main",
    b"refs/",
    b"heads/main",
    b"refs",
    b"0" * 40,
    b"a1B2" * 10,
    b"f" * 64,
    b"e" * 39,
)
_HEAD_ENDS = (b"", b"\n", b" junk", b"junk", b"\n\n", b"g")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    start=st.sampled_from(_HEAD_STARTS),
    name=st.sampled_from(_HEAD_NAMES),
    end=st.sampled_from(_HEAD_ENDS),
    padding=st.sampled_from((0, 1, 200, 245, 246, 247, 248, 251)),
)
@example(start=b"", name=b"0" * 40, end=b"junk", padding=0)  # git reads the object name's digits only
@example(start=b"ref:\t", name=b"refs/heads/x", end=b"", padding=0)  # any blanks after ``ref:``
@example(start=b"ref:", name=b"refs/heads/x", end=b"", padding=251)  # past the 255 bytes git reads
def test_a_git_directory_is_what_git_itself_takes_for_one(
    tmp_path: Path, start: bytes, name: bytes, end: bytes, padding: int
) -> None:
    """PERM-15: a HEAD, after objects/ and refs/, makes a git directory exactly when git's own discovery takes it for one.

    Composed: ``ref:`` with blanks of each kind (or none, or another case) x a ref or an object name of
    each length and case x what follows, the blanks padded towards the 255 bytes git reads.
    """
    directory = Path(tempfile.mkdtemp(dir=tmp_path))
    (directory / "objects").mkdir(parents=True)
    (directory / "refs").mkdir()
    blanks = start[len(start.rstrip()) :] if start.startswith(b"ref:") else b""
    (directory / "HEAD").write_bytes(start + blanks[:1] * padding + name + end)
    found = subprocess.run(
        ["git", "rev-parse", "--git-dir"],
        cwd=directory,
        capture_output=True,
        text=True,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            "GIT_CEILING_DIRECTORIES": str(tmp_path),
            "HOME": str(tmp_path),
        },
        check=False,
    )
    gits = found.returncode == 0 and found.stdout.strip() == "."
    assert is_git_directory(str(directory)) == gits, (start + name + end, padding, found.stderr)


@pytest.mark.parametrize(("blanks", "git_reads_it"), [(246, True), (247, False)])
def test_a_symbolic_head_is_read_to_the_255_bytes_git_reads(
    tmp_path: Path, blanks: int, git_reads_it: bool
) -> None:
    """``ref:`` and blanks then ``refs/`` ending at byte 255 is a ref to git; one byte later it is not (git reads 255)."""
    (tmp_path / "objects").mkdir()
    (tmp_path / "refs").mkdir()
    (tmp_path / "HEAD").write_bytes(b"ref:" + b" " * blanks + b"refs/")
    assert is_git_directory(str(tmp_path)) is git_reads_it
