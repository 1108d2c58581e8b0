"""Make's own language as the permission engine evaluates it, against GNU make itself (PERM-17).

The engine reads a Makefile's recipes as make expands them (``permissions/_make_expansion.py``): what it
says a recipe runs must be what ``make -n`` prints, for every Makefile it claims to read. Drawn:
variables defined with every operator, referenced through ``$(X)``, ``${X}`` and one-letter ``$X``,
nested in each other and in the text functions the engine evaluates, the automatic variables of the
rule, escaped dollars, the command line's assignments. A Makefile it can't evaluate it must refuse
(None), never misread.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from reference_impl.permissions._make_expansion import expanded_recipes

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="GNU make is not installed")

_NAMES = ("A", "B", "CMD", "X")
_WORDS = ("nu", "ke", "a.c", "b.c", "dir/c.c", "x", "%", "-o")
_FILES = ("one.c", "two.c")


@st.composite
def _values(draw: st.DrawFn, depth: int = 0) -> str:
    """Text with references to variables and functions, as a Makefile writes it."""
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["word", "word", "ref", "brace", "letter", "function", "dollar"]))
        name = draw(st.sampled_from(_NAMES))
        inner = draw(_values(depth + 1)) if depth < 1 else draw(st.sampled_from(_WORDS))
        parts.append(
            {
                "word": draw(st.sampled_from(_WORDS)),
                "ref": f"$({name})",
                "brace": f"${{{name}}}",
                "letter": "$X",
                "function": draw(
                    st.sampled_from(
                        [
                            f"$(firstword {inner})",
                            f"$(lastword {inner})",
                            f"$(subst k,K,{inner})",
                            f"$(patsubst %.c,%.o,{inner})",
                            f"$(notdir {inner})",
                            f"$(addprefix p/,{inner})",
                            f"$(strip  {inner} )",
                            f"$(filter %.c,{inner})",
                            f"$(sort {inner} b a)",
                        ]
                    )
                ),
                "dollar": "$$HOME",
            }[kind]
        )
    return draw(st.sampled_from(["", " "])).join(parts)


@st.composite
def _makefiles(draw: st.DrawFn) -> tuple[str, list[str]]:
    lines = []
    for name in draw(st.lists(st.sampled_from(_NAMES), max_size=4)):
        operator = draw(st.sampled_from(["=", ":=", "::=", "?=", "+="]))
        prefix = draw(st.sampled_from(["", "export ", "override "]))
        lines.append(f"{prefix}{name} {operator} {draw(_values())}")
    recipe = draw(_values())
    automatic = draw(st.sampled_from(["", " $@", " $<", " $^", " $(@F)"]))
    lines += [f"all: {' '.join(_FILES)}", f"\techo {recipe}{automatic}"]
    assigned = draw(st.lists(st.sampled_from([f"{n}=cli" for n in _NAMES]), max_size=1))
    return "\n".join(lines) + "\n", assigned


@settings(max_examples=60, deadline=None)
@given(case=_makefiles())
def test_recipes_expand_as_make_prints_them(
    tmp_path_factory: pytest.TempPathFactory, case: tuple[str, list[str]]
) -> None:
    """Where the engine expands a Makefile's recipe, it gets what ``make -n`` prints (PERM-17)."""
    makefile, assigned = case
    directory = tmp_path_factory.mktemp("make")
    (directory / "Makefile").write_text(makefile)
    for name in _FILES:
        (directory / name).write_text("")
    done = subprocess.run(
        ["make", "-n", "--no-print-directory", *assigned],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "HOME": str(directory)},
        check=False,
    )
    ours = expanded_recipes([makefile], assigned)
    if done.returncode != 0:
        event("make refuses it")
        return  # make itself refuses it (a recursive variable that refers to itself): nothing runs
    if ours is None:
        event("the engine refuses it")
        return  # refused: the engine asks, which is never a misreading
    event("compared with make")
    made = [" ".join(line.split()) for line in done.stdout.splitlines() if line.strip()]
    assert [" ".join(line.split()) for line in ours] == made, f"{makefile}\nmake {assigned}: {done.stdout}"
