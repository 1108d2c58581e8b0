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
from hypothesis import event, example, given, settings
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


def _make_dry_run(
    tmp_path_factory: pytest.TempPathFactory, makefile: str, assigned: list[str], files: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """``make -n`` (the judge) on ``makefile`` in a fresh directory holding empty ``files``."""
    directory = tmp_path_factory.mktemp("make")
    (directory / "Makefile").write_text(makefile)
    for name in files:
        (directory / name).write_text("")
    return subprocess.run(
        ["make", "-n", "--no-print-directory", *assigned],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "HOME": str(directory)},
        check=False,
    )


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
    done = _make_dry_run(tmp_path_factory, makefile, assigned, _FILES)
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


# Each text function the engine evaluates, with make's own number of arguments.
_ARITY = {"subst": 3, "patsubst": 3, "addprefix": 2, "addsuffix": 2, "filter": 2, "filter-out": 2,
          "strip": 1, "sort": 1, "words": 1, "firstword": 1, "lastword": 1, "notdir": 1, "dir": 1,
          "basename": 1, "suffix": 1}  # fmt: skip
# Words make splits at a period as it does: all suffix (``.c``), an empty suffix (``a.``), a period
# only in a directory's name (``dir.d/f``: no suffix).
_TEXT = ("a.c", "dir/b.o", "/abs/e.h", "noext", "x.y.z", "nu", "ke", ".c", "a.", "dir.d/f")
_PATTERNS = ("%", "%.c", "a%", "dir/%.o", "%e", "x%z", "noext", "n%", "%.y.z")


@st.composite
def _calls(draw: st.DrawFn, variables: tuple[str, ...], depth: int = 0) -> tuple[str, bool]:
    """Text made by make's functions (nested), and whether each call has make's number of arguments."""
    kind = draw(st.sampled_from(["words", "variable", "call", "call"])) if depth < 2 else "words"
    if kind == "variable" and variables:
        return f"$({draw(st.sampled_from(variables))})", True
    if kind != "call":
        return " ".join(draw(st.lists(st.sampled_from(_TEXT), min_size=1, max_size=3))), True
    function = draw(st.sampled_from(sorted(_ARITY)))
    arity = _ARITY[function]
    # One argument too few (make refuses it) or too many (make reads the last comma as text).
    count = max(1, draw(st.sampled_from([arity, arity, arity, arity - 1, arity + 1])))
    exact = count == arity
    arguments = []
    for index in range(count):
        if function in ("patsubst", "filter", "filter-out") and index == 0:
            argument = " ".join(draw(st.lists(st.sampled_from(_PATTERNS), min_size=1, max_size=2)))
        elif function == "patsubst" and index == 1:
            argument = draw(st.sampled_from(["%.o", "p/%", "%", "q", "nu%ke"]))
        elif function == "subst" and index < 2:
            argument = draw(st.sampled_from(["a", ".c", "dir", "e", "ke"]))
        elif function in ("addprefix", "addsuffix") and index == 0:
            argument = draw(st.sampled_from(["p/", ".x", "k"]))
        else:
            argument, whole = draw(_calls(variables, depth + 1))
            exact = exact and whole
        arguments.append(argument)
    return f"$({function} {','.join(arguments)})", exact


@st.composite
def _function_makefiles(draw: st.DrawFn) -> tuple[str, list[str], bool]:
    """A Makefile of variables (each flavour, referring to earlier ones) and text functions, its line's words."""
    lines, names, exact = [], [], True
    for index in range(draw(st.integers(0, 3))):
        name = f"V{index}"
        operator = draw(st.sampled_from(["=", ":=", "::=", "?="]))
        value, whole = draw(_calls(tuple(names)))
        lines.append(f"{name} {operator} {value}")
        change = draw(st.sampled_from(["", "+=", "=", ":="]))  # appended to, or defined again
        if change:
            appended, more = draw(_calls(tuple(names)))
            lines.append(f"{name} {change} {appended}")
            whole = whole and more
        names.append(name)
        exact = exact and whole
    recipe, whole = draw(_calls(tuple(names)))
    lines += ["all:", f"\techo {recipe}"]
    settable = [f"{n}{o}cli" for n in names for o in ("=", ":=")]
    assigned = draw(st.lists(st.sampled_from(settable), max_size=1)) if settable else []
    return "\n".join(lines) + "\n", assigned, exact and whole


@settings(max_examples=150, deadline=None)
@given(case=_function_makefiles())
# One argument too many: make reads the last comma as text (``a.c,noext`` is one word).
@example(case=("all:\n\techo $(filter %,a.c,noext)\n", [], False))
@example(case=("all:\n\techo $(suffix .c a. dir.d/f a.c) $(basename .c a. dir.d/f)\n", [], True))
# A random draw of the README tests (session 37): one argument whose commas are text, and a value that
# ends in a blank (``+=`` of an empty expansion): make trims neither.
@example(
    case=("V0 = a.c\nV0 += $(suffix noext)\nV1 = a.c\nall:\n\techo $(basename $(V0),$(V0))\n", [], False)
)
@example(
    case=(
        "all:\n\techo [$(subst a, b,xax)] [$(patsubst %.c, %.o,x.c y.c)] [$(addprefix  p ,a b)]\n",
        [],
        True,
    )
)
def test_text_functions_evaluate_as_make_does(
    tmp_path_factory: pytest.TempPathFactory, case: tuple[str, list[str], bool]
) -> None:
    """Every text function the engine claims, nested, with make's number of arguments: evaluated, as ``make -n`` prints.

    Drawn: each function (``subst``, ``patsubst``, ``filter``, ``filter-out`` with their patterns,
    ``addprefix``, ``addsuffix``, ``dir``, ``notdir``, ``basename``, ``suffix``, ``words``, ``sort``,
    ``strip``, ``firstword``, ``lastword``) nested in each other and in variables of each flavour
    (appended to with ``+=`` or defined again) that refer only to variables defined before them, sometimes with one
    argument too few or too many; the command line setting one. Where every call has make's number
    of arguments and make runs the Makefile, the engine must evaluate it (refusing it would ask for an
    ordinary Makefile), and whatever it evaluates must be what make prints; it never raises.
    """
    makefile, assigned, exact = case
    done = _make_dry_run(tmp_path_factory, makefile, assigned)
    ours = expanded_recipes([makefile], assigned)
    if done.returncode != 0:
        event("make refuses it")
        return
    made = [" ".join(line.split()) for line in done.stdout.splitlines() if line.strip()]
    if exact:
        assert ours is not None, f"an ordinary Makefile refused:\n{makefile}\nmake {assigned}: {done.stdout}"
    if ours is not None:
        event("compared with make")
        assert [" ".join(line.split()) for line in ours] == made, (
            f"{makefile}\nmake {assigned}: {done.stdout}"
        )
