"""The other names of multi-call programs in the permission engine agree with this machine (PERM-17)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from reference_impl.permissions import _programs


@pytest.mark.parametrize("name", sorted(_programs._OTHER_NAMES))
def test_other_name_runs_the_program_the_engine_says(name: str) -> None:
    """PERM-17: where ``name`` is installed, it is a link to, or a script that execs, the program listed for it."""
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed here: nothing to compare with")
    program = _programs._OTHER_NAMES[name][0]
    real = Path(os.path.realpath(found))
    if real.name != Path(found).name:
        assert real.name == program or real.name.startswith(program), (
            f"{found} -> {real}, listed as {program}"
        )
        return
    other = shutil.which(program)
    if other is not None and os.path.samefile(other, real):
        return  # a hard link: the same binary under another name
    text = real.read_bytes()[:4096]
    if not text.startswith(b"#!"):
        pytest.skip(f"{found} is a binary of its own: no other program to compare with")
    assert re.search(rb"\b" + program.encode() + rb"\b", text), f"{found} does not run {program}"
