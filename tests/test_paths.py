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
