"""A file tool's path judged by the file it opens, however the model spells it: PERM-11, PERM-15.

The model writes ``file_path`` as it likes: absolute, relative, from the home as ``~/``, with ``.``,
doubled slashes, through a link into or out of the project, climbing with ``..`` out of a directory a
link led to (the kernel climbs from where the link led, not from where its name stands). A path
rule and the working-directory check judge the file the call opens; the kernel says which file that
is (:mod:`conformance._file_spellings`), and the property expects by its answer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._file_spellings import FileScene, file_scene, home_set_to, spelled_paths
from conformance._strategies_permissions import edit_tool, host_answering, read_tool, run_calls
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec, SettingsSpec

_PLACES = ("project", "outside", "home")
"""Where the file lies: in the working directory, beside the home, in the home beside the project."""


def _target(scene: FileScene, place: str) -> Path:
    target = {
        "project": scene.cwd / "src" / "app.py",
        "outside": scene.outside / "notes.txt",
        "home": scene.home / "secret.txt",
    }[place]
    target.write_text("x\n", encoding="utf-8")
    return target


def _rule_paths(scene: FileScene, target: Path) -> list[str]:
    """How a rule may name ``target``: absolute (``//``), from the home (``~/``), relative when inside.

    Relative to the working directory: ``src/app.py``, ``./src/app.py``, ``src/**``.
    """
    forms = ["/" + str(target)]
    if target.is_relative_to(scene.home):
        forms.append(f"~/{target.relative_to(scene.home)}")
    if target.is_relative_to(scene.cwd):
        relative = target.relative_to(scene.cwd)
        forms += [str(relative), f"./{relative}", f"{relative.parent}/**"]
    return forms


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=50, deadline=None)
@given(
    place=st.sampled_from(_PLACES),
    family=st.sampled_from(["Read", "Edit"]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
    data=st.data(),
)
@example(place="home", family="Read", mode="default", data=None)
def test_a_path_deny_holds_however_the_model_spells_the_path(
    new_harness: Callable[[], Any], place: str, family: str, mode: str, data: st.DataObject | None
) -> None:
    """PERM-11: a deny rule on a file denies every call that opens it, whatever spelling the model's path uses.

    Composed: the file's place x the rule's form (``//abs``, ``~/``, relative, ``dir/**``) x the
    model's spelling (route through links, absolute / relative / ``~/``, ``.``, ``//``, ``..`` climbs
    the kernel takes from where a link led) x the mode, with an allow rule for the whole tool beside it.
    ``~`` is the home (``HOME``, set to the scene's home).
    """
    scene = file_scene()
    target = _target(scene, place)
    if data is None:  # the held-out set of session 39: ``~/`` in the model's path left unexpanded
        rule_path, spelled = f"~/{target.relative_to(scene.home)}", f"~/{target.relative_to(scene.home)}"
    else:
        rule_path = data.draw(st.sampled_from(_rule_paths(scene, target)), label="rule path")
        spelled = data.draw(spelled_paths(target, scene), label="model's path")
    tool = read_tool() if family == "Read" else edit_tool()
    rules = [RuleSpec(f"{family}({rule_path})", "deny"), RuleSpec(family, "allow")]
    with home_set_to(scene.home):
        run = run_calls(
            new_harness(),
            [tool],
            [(family, {"file_path": spelled})],
            rules=rules,
            mode=mode,
            cwd=scene.cwd,
            host=host_answering("allow"),
        )
    assert run.ran() == 0, (
        f"{family}({rule_path}) deny missed {spelled!r} (opens {target}) in {mode}: {run.describe()}"
    )


@requires("execution", "permissions", "host_callback", "settings_files")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=50, deadline=None)
@given(
    place=st.sampled_from(_PLACES),
    blocked=st.booleans(),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
    data=st.data(),
)
@example(place="outside", blocked=True, mode="acceptEdits", data=None)
@example(place="project", blocked=True, mode="acceptEdits", data=None)
def test_an_edit_outside_the_working_directories_is_judged_where_it_lands(
    new_harness: Callable[[], Any], place: str, blocked: bool, mode: str, data: st.DataObject | None
) -> None:
    """PERM-15: an edit whose file lies outside the working directories is denied under ``blockWritesOutsideWorkingDirectories``, and acceptEdits never runs it unasked, however the path is spelled.

    Composed: the file's place x the model's spelling (a name inside the project that a link leads
    out of, ``..`` after a link, ``~/``, absolute or relative) x the flag x the mode. Where the file
    lies is the kernel's answer. A control: a file inside, named plainly, is edited unasked in
    acceptEdits, so a harness that asks for everything does not pass.
    """
    scene = file_scene()
    target = _target(scene, place)
    if data is None and place == "project":  # the control, named plainly
        spelled = str(target.relative_to(scene.cwd))
    elif data is None:  # the held-out set of session 39: the check read the path as written
        spelled = f"shared/{target.name}"
    else:
        spelled = data.draw(spelled_paths(target, scene), label="model's path")
    files = [SettingsSpec("projectSettings", {"permissions": {"blockWritesOutsideWorkingDirectories": True}})]
    with home_set_to(scene.home):
        run = run_calls(
            new_harness(),
            [edit_tool()],
            [("Edit", {"file_path": spelled})],
            mode=mode,
            cwd=scene.cwd,
            host=host_answering("allow"),
            settings=files if blocked else [],
        )
    why = f"edit of {spelled!r} (opens {target}) in {mode}, blocked: {blocked}: {run.describe()}"
    inside = target.is_relative_to(scene.cwd)
    if not inside and blocked:
        assert (run.ran(), run.asked) == (0, []), f"must be denied without asking: {why}"
    elif not inside and mode != "bypassPermissions":
        assert (run.ran(), len(run.asked)) == (1, 1), f"must be asked (the host allows): {why}"
    elif inside and mode == "acceptEdits" and spelled == str(target.relative_to(scene.cwd)):
        assert (run.ran(), run.asked) == (1, []), f"an edit inside must run unasked in acceptEdits: {why}"
