"""The names util-linux's rename gives files, with the real rename.ul as judge (PERM-15).

``rename.ul i .i idea`` makes ``.idea``: the engine computes the new names (the first, last or
every occurrence replaced) and judges them as written; what it computes must be what rename makes.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.permissions._line_writes import program_targets

pytestmark = pytest.mark.skipif(shutil.which("rename.ul") is None, reason="needs util-linux's rename.ul")

_LETTERS = st.text("ai.-_g", min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(
    names=st.lists(
        _LETTERS.filter(lambda n: n not in (".", "..") and not n.startswith("-")),
        min_size=1,
        max_size=3,
        unique=True,
    ),
    expression=_LETTERS.filter(lambda e: not e.startswith("-")),
    replacement=st.text("ai.-_g", max_size=4).filter(lambda r: "/" not in r),
    option=st.sampled_from(((), ("-a",), ("--all",), ("-l",), ("--last",), ("-v",), ("-o",))),
)
def test_the_names_rename_makes_are_the_ones_the_engine_judges(
    tmp_path_factory: pytest.TempPathFactory,
    names: list[str],
    expression: str,
    replacement: str,
    option: tuple[str, ...],
) -> None:
    """PERM-15: every name rename.ul gives a file is among the paths the engine judges as written."""
    place: Path = tmp_path_factory.mktemp("rename")
    for name in names:
        (place / name).write_text("x", encoding="utf-8")
    argv = (
        ("rename.ul", *option, "--", expression, replacement, *names)
        if replacement.startswith("-")
        else ("rename.ul", *option, expression, replacement, *names)
    )
    targets = program_targets(argv)
    subprocess.run(argv, cwd=place, capture_output=True, check=False, timeout=10)
    made = {p.name for p in place.iterdir()} - set(names)
    if None in targets:
        return
    assert made <= set(targets), f"{argv}: rename made {made}, the engine judges {targets}"


@settings(max_examples=40, deadline=None)
@given(
    names=st.lists(_LETTERS.filter(lambda n: not n.startswith("-")), min_size=1, max_size=3),
    at=st.integers(0, 3),
    dashes=st.booleans(),
    expression=_LETTERS.filter(lambda e: not e.startswith("-")),
    option=st.sampled_from(((), ("-a",), ("--all",), ("-l",), ("--last",), ("-v",), ("-o",))),
)
def test_a_file_only_known_at_run_time_is_an_unknown_write(
    names: list[str], at: int, dashes: bool, expression: str, option: tuple[str, ...]
) -> None:
    """PERM-15: a file operand known only at run time (``"$f"``, anywhere among the files, after ``--`` or not) may get any name: the engine judges an unknown write."""
    files: list[str | None] = list(names)
    files.insert(min(at, len(files)), None)
    argv = ("rename.ul", *option, *(("--",) if dashes else ()), expression, "x", *files)
    assert None in program_targets(argv), f"{argv}: {program_targets(argv)}"
