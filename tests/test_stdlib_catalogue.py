"""``stdlib_capabilities.json`` is what the standard library's own source says (PERM-17)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from reference_impl.permissions._stdlib_catalogue import CATALOGUE_FILE, member_capability, mine


def test_the_catalogue_is_mined_from_this_pythons_standard_library() -> None:
    """PERM-17: mined again from the interpreter that runs, the catalogue is the one committed."""
    committed = json.loads(CATALOGUE_FILE.read_text(encoding="utf-8"))
    if committed["python"] != f"{sys.version_info.major}.{sys.version_info.minor}":
        pytest.skip(f"the catalogue is of Python {committed['python']}")
    assert mine() == committed


@pytest.mark.parametrize(
    ("member", "capable"),
    [
        ("pydoc.pipepager", True),
        ("webbrowser.get", True),
        ("pipes.Template", True),
        ("imaplib.IMAP4_stream", True),
        ("logging.config.dictConfig", True),
        ("doctest.run_docstring_examples", True),
        ("multiprocessing.set_executable", True),  # made at run time by a module that has such members
        ("os.system", True),
        ("code.InteractiveConsole.push", True),  # a class's method named through its module
        ("trace.Trace.run", True),
        ("logging.getLogger", False),
        ("json.loads", False),
        ("os.path.join", False),
        ("os.close", False),  # built into the interpreter (posix), star-imported by os
        ("subprocess.PIPE", False),
        ("collections.namedtuple", False),  # vetted: evaluates only the identifiers it checks
    ],
)
def test_members_the_source_shows_may_start_a_program_or_run_code(member: str, capable: bool) -> None:
    """PERM-17: a member that reaches a way to start a program or evaluate code, through any other."""
    assert (member_capability(member) is not None) == capable


def test_a_relative_import_two_levels_up_reaches_the_member_it_names(tmp_path: Path) -> None:
    """PERM-17: ``from ..x import danger`` in ``pkg/sub/m.py`` binds ``pkg.x.danger``: what calls it is capable."""
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "sub" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "x.py").write_text('import os\ndef danger():\n    os.system("x")\n')
    (tmp_path / "pkg" / "sub" / "m.py").write_text("from ..x import danger\ndef f():\n    danger()\n")
    modules = mine(str(tmp_path))["modules"]
    assert isinstance(modules, dict)
    assert modules["pkg.sub.m"]["capable"] == {"danger": ["runs"], "f": ["runs"]}
