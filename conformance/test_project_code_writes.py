"""Protected files written by what the line runs from project files, layers deep (PERM-15).

``make`` names no file; its recipe ``touch .git/hooks/pre-commit`` writes one. ``npm run x`` runs the
package's script, ``bash run.sh`` a helper run.sh sources, ``python3 main.py`` a module main.py
imports, ``awk`` a command its program hands to ``system``. The line is composed (a first layer: a
recipe, a package script, a script the line runs; under it, none or a second layer: a sourced or run
shell script, an imported module; and the write, in the last layer's language) x the protected
file; run for real in a bubblewrap sandbox, it is kept only where the filesystem shows the protected
file written. In bypassPermissions the harness must ask, and not run it. Without bubblewrap these
tests skip.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import PROTECTED_TARGETS, assert_protected_write_asks
from pytest_toolharness.adapters import requires

# How shell text writes ``{t}``; how Python and JavaScript code does.
_SHELL_WRITES = ("rm -f {t}", "echo x >> {t}", "printf x > {t}", "cp /etc/hostname {t}")
_PYTHON_WRITES = ('open("{t}", "a").write("x")', 'import pathlib; pathlib.Path("{t}").write_text("x")')
_NODE_WRITES = ('require("fs").appendFileSync("{t}", "x")',)
# A second layer under a shell first layer: (how the shell text runs it, its file, the language its write is in).
_SECOND = (
    (". ./helper.sh", "helper.sh", "shell"),
    ("bash ./helper.sh", "helper.sh", "shell"),
    ("sh helper.sh", "helper.sh", "shell"),
    ("python3 helper.py", "helper.py", "python"),
    ("node helper.js", "helper.js", "node"),
    ("awk 'BEGIN{{system(\"{w}\")}}'", "", "awk"),
)


def _write(language: str, draw: st.DrawFn, target: str) -> str:
    forms = {"shell": _SHELL_WRITES, "python": _PYTHON_WRITES, "node": _NODE_WRITES, "awk": _SHELL_WRITES[:1]}
    return draw(st.sampled_from(forms[language]), label=f"{language} write").format(t=target)


@st.composite
def _project_lines(draw: st.DrawFn) -> tuple[str, str, dict[str, str]]:
    """``(line, target, files)``: a line whose project files, one or two layers down, write ``target``."""
    target = draw(st.sampled_from(PROTECTED_TARGETS), label="target")
    files: dict[str, str] = {}
    if draw(st.booleans(), label="second layer"):
        runs, name, language = draw(st.sampled_from(_SECOND), label="second")
        write = _write(language, draw, target)
        if name:
            files[name] = write + "\n"
            text = runs
        else:
            text = runs.format(w=write)
    else:
        text = _write("shell", draw, target)
    first = draw(st.sampled_from(("make", "npm", "script", "python")), label="first layer")
    if first == "make":
        files["Makefile"] = f"all:\n\t{text}\n"
        line = draw(st.sampled_from(("make", "make -s", "make all", "make -f Makefile")), label="make")
    elif first == "npm":
        files["package.json"] = json.dumps({"name": "p", "version": "1.0.0", "scripts": {"w": text}})
        line = draw(st.sampled_from(("npm run w", "npm run -s w", "npm run-script w")), label="npm")
    elif first == "script":
        files["run.sh"] = text + "\n"
        line = draw(
            st.sampled_from(("bash run.sh", "sh run.sh", ". ./run.sh", "bash ./run.sh")), label="script"
        )
    else:
        # The script imports a module of the project that writes.
        files["helper_mod.py"] = _write("python", draw, target) + "\n"
        files["main.py"] = "import helper_mod\n"
        line = "python3 main.py"
    return line, target, {target: "x\n", **files}


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=40, deadline=None)
@given(case=_project_lines())
@example(
    case=(
        "make",
        ".git/hooks/pre-commit",
        {".git/hooks/pre-commit": "x\n", "Makefile": "all:\n\trm .git/hooks/pre-commit\n"},
    )
)
@example(
    case=(
        "bash run.sh",
        ".mcp.json",
        {".mcp.json": "x\n", "run.sh": ". ./helper.sh\n", "helper.sh": "echo x >> .mcp.json\n"},
    )
)
@example(
    case=(
        "python3 main.py",
        ".git/config",
        {
            ".git/config": "x\n",
            "main.py": "import helper_mod\n",
            "helper_mod.py": 'open(".git/config", "a").write("x")\n',
        },
    )
)
@example(case=("awk 'BEGIN{c=\"echo x >> .mcp.json\"; system(c)}'", ".mcp.json", {".mcp.json": "x\n"}))
@example(
    case=("sed -n '1e echo x >> .git/config' a.txt", ".git/config", {".git/config": "x\n", "a.txt": "a\n"})
)
def test_a_protected_file_written_by_project_code_the_line_runs_asks(
    new_harness: Callable[[], Any], case: tuple[str, str, dict[str, str]]
) -> None:
    """PERM-15: a line whose project files (a recipe, a package script, a script and what it sources, runs or imports) write a protected file asks in bypassPermissions.

    Composed: make, npm run, a shell script, a Python script x none or a second layer (sourced, run
    by a shell, python or node, or handed to awk's ``system``) x the write in that layer's language
    x the protected file; the real tools, run in a sandbox, judge (a line that writes nothing protected is discarded).
    """
    if shutil.which("bwrap") is None:
        pytest.skip("the filesystem judge needs bubblewrap (apt-get install bubblewrap)")
    line, target, files = case
    if line.startswith("npm") and shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    assert_protected_write_asks(new_harness(), line, target, " through the project files it runs", files)
