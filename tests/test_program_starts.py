"""What a "plain" program starts with no option naming it, mined from the machine's files (PERM-17).

``diff -l`` runs ``pr``, ``file -z`` runs a decompressor, ``man`` runs ``pager`` and ``groff``: a
deny rule on the helper holds (the engine asks). The catalogue is mined from the programs' binaries,
their libraries, their manual pages and their script text, never typed in: the mining is checked on
made-up programs, and the committed catalogue against the installed ones.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission, parse_rule
from reference_impl.permissions._helper_mining import (
    binary_strings,
    man_programs,
    mine_starts,
    script_commands,
)
from reference_impl.permissions._program_starts import started_by_default
from tests.test_rules import BASH


def _decide(tmp_path: Path, line: str, deny: str, allow: str) -> str:
    rules = (parse_rule(deny, "deny", "projectSettings"), parse_rule(allow, "allow", "userSettings"))
    context = PermissionContext(mode="bypassPermissions", rules=rules, cwd=tmp_path)
    return decide_permission(BASH, {"command": line}, context).behavior


@pytest.mark.parametrize(
    ("line", "helper"),
    [
        ("diff -l /dev/null f", "pr"),  # red team s32 bypass_05: diff execs /usr/bin/pr
        ("diff --paginate a b", "pr"),
        ("file -z a.zst", "zstd"),  # bypass_06: libmagic runs the decompressor by name
        ("file -z a.gz", "gzip"),
        ("file -Z a.xz", "xz"),
        ("man ls", "groff"),  # man-db formats through groff (nroff, tbl, pic) ...
        ("man -P cat ls", "nroff"),  # ... whatever pager -P names
        ("zgrep x a.gz", "sed"),  # a script runs what its text names
    ],
)
def test_a_helper_the_machine_shows_a_program_starting_is_judged(
    tmp_path: Path, line: str, helper: str
) -> None:
    """PERM-17: a deny rule on a program another one starts with no option naming it is not outranked."""
    program = line.split()[0]
    if shutil.which(program) is None or shutil.which(helper) is None:
        pytest.skip(f"{program} or {helper} is not installed")
    assert _decide(tmp_path, line, f"Bash({helper}:*)", f"Bash({program}:*)") != "allow"


@pytest.mark.parametrize(
    ("line", "deny"),
    [
        ("diff a b", "Bash(rm:*)"),
        ("file a", "Bash(curl:*)"),
        ("ls -la", "Bash(pr:*)"),
        ("cat f", "Bash(zstd:*)"),
    ],
)
def test_a_helper_no_file_shows_leaves_the_line_allowed(tmp_path: Path, line: str, deny: str) -> None:
    """PERM-17 (no false ask): a deny on a program the line's program shows no sign of starting."""
    assert _decide(tmp_path, line, deny, f"Bash({line.split()[0]}:*)") == "allow"


def test_strings_are_whole_nul_separated_texts() -> None:
    assert binary_strings(b"\x7fELF\x02\x00/usr/bin/pr\x00-l\x00zstd\x00\x01\x02x\x00") == {
        "/usr/bin/pr",
        "-l",
        "zstd",
    }


def test_script_commands_are_words_where_commands_start() -> None:
    text = (
        '#!/bin/sh\n# gzip is mentioned in a comment\nx=$(sed -n 1p f) && exec grep -e file "$@" | sort\n'
        "g='${GREP-'\\''egrep'\\''}'; eval \"$g x\"; ${PAGER:-less} f\n"
    )
    assert script_commands(text) >= {"sed", "grep", "sort", "egrep", "less"}
    assert "gzip" not in script_commands(text)
    assert "file" not in script_commands(text)


def test_man_programs_are_names_set_as_programs() -> None:
    page = ".B groff\nformats through \\fBnroff\\fR and the pager(1); a file is not.\n.BR tbl (1)\n"
    assert man_programs(page) >= {"groff", "nroff", "pager", "tbl"}
    assert "file" not in man_programs(page)


def test_mining_reads_paths_compressors_and_scripts(tmp_path: Path) -> None:
    """Absolute paths in a binary, compressors named by a program that reads compressed data, a script's commands."""
    (tmp_path / "pager").write_bytes(b"\x7fELF\x00/usr/bin/pr\x00hello\x00")
    (tmp_path / "peek").write_bytes(b"\x7fELF\x00zstd\x00gzip\x00pr\x00")
    (tmp_path / "squash").write_bytes(b"\x7fELF\x00")
    (tmp_path / "zstd").write_bytes(b"\x7fELF\x00")
    (tmp_path / "pr").write_bytes(b"\x7fELF\x00")
    (tmp_path / "wrap").write_text('#!/bin/sh\nsquash -d "$1" | pr\n')
    helps = {"peek": "  -z  look inside compressed files\n", "zstd": "  -d, --decompress  decompression\n"}
    programs = {p.name: str(p) for p in tmp_path.iterdir()}
    found = mine_starts(programs, lambda name: helps.get(name, ""))["programs"]
    assert found["pager"] == ["pr"]
    assert found["peek"] == ["zstd"]  # gzip is not installed among these; pr is no compressor
    assert found["wrap"] == ["pr", "squash"]
    assert "squash" not in found


@pytest.mark.parametrize(("program", "helper"), [("diff", "pr"), ("file", "zstd"), ("man", "groff")])
def test_the_committed_catalogue_holds_what_the_installed_programs_show(program: str, helper: str) -> None:
    """The catalogue is mined again where these programs are installed: it must name their helpers."""
    if shutil.which(program) is None or shutil.which(helper) is None:
        pytest.skip(f"{program} or {helper} is not installed")
    assert helper in started_by_default(program)


@pytest.mark.parametrize("text", [None, "{not json", '{"programs": {"diff": ["pr"]'])
def test_a_missing_or_broken_catalogue_fails_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str | None
) -> None:
    """PERM-17: without its catalogue the engine can't tell what a program starts: it never allows."""
    from reference_impl.permissions import _program_starts

    catalogue = tmp_path / "program_starts.json"
    if text is not None:
        catalogue.write_text(text, encoding="utf-8")
    monkeypatch.setattr(_program_starts, "STARTS_FILE", catalogue)
    _program_starts._starts.cache_clear()
    try:
        # A line of its own: the engine caches what it reads of a line, keyed by its text.
        line = f"file -z {tmp_path.name}.zst"
        assert _decide(tmp_path, line, "Bash(zstd:*)", "Bash(file:*)") != "allow"
    finally:
        _program_starts._starts.cache_clear()
