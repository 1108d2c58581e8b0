"""Path normalisation and path patterns for Read/Edit rules (PERM-11)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reference_impl.permissions._paths import (
    PathPatternError,
    is_within,
    lexical_path,
    parse_path_pattern,
    path_forms,
    resolved_path,
)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (".env", "/w/.env"),
        ("./.env", "/w/.env"),
        ("./a/../.env", "/w/.env"),
        (".//.env", "/w/.env"),
        ("a/./b//c", "/w/a/b/c"),
        ("../w/.env", "/w/.env"),
        ("/etc//passwd", "/etc/passwd"),
        ("//etc/passwd", "/etc/passwd"),
        ("/a/b/../../../etc", "/etc"),
    ],
)
def test_lexical_path(given: str, expected: str) -> None:
    assert lexical_path(given, Path("/w")) == expected


def test_tilde_expands_to_home() -> None:
    assert lexical_path("~/x", Path("/w")) == os.path.join(os.path.expanduser("~"), "x")


def test_symlinks_are_resolved_against_the_working_directory(tmp_path: Path) -> None:
    cwd = tmp_path.resolve()
    (cwd / ".env").write_text("SECRET=1")
    (cwd / "innocent").symlink_to(cwd / ".env")
    (cwd / "dir").mkdir()
    (cwd / "link").symlink_to(cwd / "dir")
    assert resolved_path("innocent", cwd) == str(cwd / ".env")
    assert path_forms("innocent", cwd) == (str(cwd / "innocent"), str(cwd / ".env"))
    # ".." after a symlinked directory climbs from the target, as the kernel does.
    (cwd / "dir" / "sub").mkdir()
    (cwd / "deep").symlink_to(cwd / "dir" / "sub")
    assert resolved_path("deep/../x", cwd) == str(cwd / "dir" / "x")
    assert lexical_path("deep/../x", cwd) == str(cwd / "x")


def test_nul_byte_is_refused() -> None:
    with pytest.raises(PathPatternError, match="NUL"):
        lexical_path("a\x00b", Path("/w"))


def test_is_within(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    assert is_within(str(root / "a" / "b"), [root])
    assert is_within(str(root), [root])
    assert not is_within(str(root) + "-other/x", [root])
    assert not is_within("/etc/passwd", [root])


CWD = Path("/proj/sub")
ROOT = Path("/proj")


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        # //abs: absolute
        ("//etc/**", "/etc/passwd", True),
        ("//etc/**", "/etcx/passwd", False),
        ("//etc/passwd", "/etc/passwd", True),
        # /x: relative to the project root (the settings file's directory)
        ("/src/**/*.ts", "/proj/src/a/b.ts", True),
        ("/src/**/*.ts", "/proj/sub/src/a/b.ts", False),
        ("/src/*.ts", "/proj/src/a/b.ts", False),
        # ./x and x: relative to the working directory
        ("./.env", "/proj/sub/.env", True),
        ("./.env", "/proj/sub/x/.env", False),
        ("./secrets/**", "/proj/sub/secrets/k/key.pem", True),
        ("secrets/**", "/proj/sub/secrets/key.pem", True),
        # a pattern without an inner "/" floats to any depth (gitignore)
        (".env", "/proj/sub/deep/down/.env", True),
        ("*.env", "/proj/sub/a/prod.env", True),
        ("*.env", "/proj/sub/.env", True),
        ("*.env", "/proj/other/.env", False),
        (".env.*", "/proj/sub/.env.local", True),
        ("**/.env*", "/proj/sub/a/.env.prod", True),
        # a matching directory covers everything inside it
        ("./secrets", "/proj/sub/secrets/a/b.txt", True),
        ("./secrets/", "/proj/sub/secrets/a.txt", True),
        # ** and * and ?
        ("**", "/proj/sub/anything/at/all", True),
        ("./a/*/c", "/proj/sub/a/b/c", True),
        ("./a/*/c", "/proj/sub/a/b/x/c", False),
        ("./file?.txt", "/proj/sub/file1.txt", True),
        ("./file[0-9].txt", "/proj/sub/filex.txt", False),
        # . and .. in a literal pattern are folded like paths
        ("./a/../.env", "/proj/sub/.env", True),
    ],
)
def test_pattern_forms(pattern: str, path: str, expected: bool) -> None:
    assert parse_path_pattern(pattern, cwd=CWD, project_root=ROOT).matches(path) is expected


def test_home_pattern() -> None:
    home = os.path.realpath(os.path.expanduser("~"))
    assert parse_path_pattern("~/Documents/*.pdf", cwd=CWD).matches(f"{home}/Documents/a.pdf")
    assert not parse_path_pattern("~/Documents/*.pdf", cwd=CWD).matches("/elsewhere/Documents/a.pdf")


def test_pattern_through_symlinked_directory(tmp_path: Path) -> None:
    real = tmp_path.resolve() / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    pattern = parse_path_pattern(f"/{tmp_path}/alias/**", cwd=tmp_path)
    assert pattern.matches(str(real / "secret.txt"))


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("!x", "negated"),
        ("./a/[bc", "unclosed"),
        ("./**/../x", "'..'"),
        # git's glob matches nothing when its last backslash escapes nothing, wildcard or not
        ("./a*\\", "trailing"),
        ("//d/a\\", "trailing"),
        ("a\\\\\\/", "trailing"),
    ],
)
def test_bad_patterns(pattern: str, problem: str) -> None:
    with pytest.raises(PathPatternError, match=problem):
        parse_path_pattern(pattern, cwd=CWD)


def _decide_read(path: str, deny: str, cwd: Path) -> str:
    """The engine's verdict on reading ``path`` in bypassPermissions mode beside the deny rule ``deny``."""
    from reference_impl.permissions import PermissionContext, decide_permission, rules_from_strings
    from reference_impl.tools import PermissionTarget, build_tool

    async def _run(_input: object, _context: object) -> None:
        return None

    tool = build_tool(
        "Read",
        "Read a file.",
        _run,
        input_json_schema={"type": "object"},
        is_read_only=lambda _input: True,
        permission_target=lambda tool_input: PermissionTarget("read", str(tool_input["file_path"])),
    )
    rules = rules_from_strings([deny], "deny", "userSettings")
    context = PermissionContext(mode="bypassPermissions", rules=tuple(rules), cwd=cwd, project_root=cwd)
    return decide_permission(tool, {"file_path": path}, context).behavior


@pytest.mark.parametrize("deny", ["Read(secret/**)", "Read(*.pem)", "Read(key.pem)", "Read(./secret)"])
def test_a_hard_link_to_a_file_any_deny_pattern_covers_is_denied(tmp_path: Path, deny: str) -> None:
    """PERM-11: ``ln secret/sub/key.pem notes.txt``: a wildcard or directory deny covers the link too
    (the same inode), and ``os.path.samefile`` agrees that reading one reads the other."""
    secret = tmp_path / "secret" / "sub" / "key.pem"
    secret.parent.mkdir(parents=True)
    secret.write_text("key\n")
    os.link(secret, tmp_path / "notes.txt")
    assert os.path.samefile(secret, tmp_path / "notes.txt")
    assert _decide_read("notes.txt", deny, tmp_path) == "deny"


def test_a_hard_link_the_engine_cannot_compare_within_its_bound_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PERM-11, fail closed: when a deny pattern's files are too many to compare with a multiply-linked
    file, the engine can't tell whether it is one of them: it asks, never allows. A file with one name
    can only be named by a covered symbolic link, looked for within its own bound (s33; past it, not
    looked for: a known gap); one whose comparison finishes is judged as before (allowed here)."""
    from reference_impl.permissions import _paths

    for index in range(5):
        (tmp_path / "secret" / f"d{index}").mkdir(parents=True)
    (tmp_path / "pkg.js").write_text("x\n")
    os.link(tmp_path / "pkg.js", tmp_path / "store.js")  # pnpm's store: many names, none denied
    (tmp_path / "single.txt").write_text("x\n")
    assert _decide_read("pkg.js", "Read(secret/**)", tmp_path) == "allow"
    monkeypatch.setattr(_paths, "LINK_WALK_LIMIT", 3)
    assert _decide_read("pkg.js", "Read(secret/**)", tmp_path) == "ask"
    # A file with one name: only a covered symbolic link could name it, looked for within its own
    # bound; past it a large tree's reads are not all asked.
    assert _decide_read("single.txt", "Read(secret/**)", tmp_path) == "allow"
    monkeypatch.setattr(_paths, "SYMLINK_WALK_LIMIT", 3)
    assert _decide_read("single.txt", "Read(secret/**)", tmp_path) == "allow"
