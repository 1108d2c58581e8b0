"""Permission settings read from settings files of several sources: PERM-4, PERM-9, PERM-15.

The scenario's ``settings`` are Claude Code settings files (``SettingsSpec(source, content)``), as a
harness loads them from disk, beside files of other sources that say nothing about the key under
test, in any order. What is observed is the same as for the scenario's own rules and mode: whether
the call started, whether the host was asked, the recorded decision.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import (
    Run,
    edit_tool,
    host_answering,
    plain_tool,
    read_tool,
    run_calls,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import SettingsSpec, ToolSpec

FILE_SOURCES = ("userSettings", "projectSettings", "localSettings", "policySettings")
OUTSIDE = ("/definitely-outside-the-suite/notes.txt", "../../outside-the-suite/notes.txt")
# Relative to the working directory (run_calls's <run>/work): a sibling directory.
EXTRA_DIR = "../extra"


def quiet_files() -> st.SearchStrategy[list[SettingsSpec]]:
    """Up to two settings files that say nothing about the key under test (an empty file, an unrelated rule)."""
    content = st.sampled_from([{}, {"permissions": {}}, {"permissions": {"allow": ["Unrelated"]}}])
    return st.lists(
        st.builds(SettingsSpec, source=st.sampled_from(FILE_SOURCES), content=content), max_size=2
    )


@st.composite
def files_with(draw: st.DrawFn, permissions: dict[str, Any]) -> list[SettingsSpec]:
    """A settings file of a drawn source with ``permissions``, among quiet files, in a drawn order."""
    chosen = SettingsSpec(draw(st.sampled_from(FILE_SOURCES)), {"permissions": permissions})
    return draw(st.permutations([chosen, *draw(quiet_files())]))


def ran_unasked(run: Run) -> bool:
    return run.ran() == 1 and not run.asked


# --------------------------------------------------------------------------------------------
# PERM-15: blockWritesOutsideWorkingDirectories and denyInsteadOfPrompting.


@requires("execution", "permissions", "host_callback", "settings_files")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    where=st.sampled_from(["outside", "inside", "extra"]),
    kind=st.sampled_from(["edit", "read"]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
def test_block_writes_outside_working_directories(
    new_harness: Callable[[], Any], data: st.DataObject, where: str, kind: str, mode: str
) -> None:
    """PERM-15: with ``blockWritesOutsideWorkingDirectories`` set, edits outside the working directories are denied.

    In every mode (never run, nobody asked), whichever source sets it; an edit inside them (the
    working directory or an ``additionalDirectories`` entry) and any read are decided as without it.
    """
    permissions: dict[str, Any] = {"blockWritesOutsideWorkingDirectories": True}
    if data.draw(st.booleans(), label="additional directory in the same file"):
        permissions["additionalDirectories"] = [EXTRA_DIR]
        files = data.draw(files_with(permissions), label="settings")
    else:
        extra = SettingsSpec(
            data.draw(st.sampled_from(FILE_SOURCES)), {"permissions": {"additionalDirectories": [EXTRA_DIR]}}
        )
        files = data.draw(st.permutations([*data.draw(files_with(permissions)), extra]), label="settings")
    path = {
        "outside": data.draw(st.sampled_from(OUTSIDE), label="outside path"),
        "inside": data.draw(st.sampled_from(["notes.txt", "./src/app.py", "a/../b.md"]), label="inside path"),
        "extra": f"{EXTRA_DIR}/notes.txt",
    }[where]
    tool = edit_tool() if kind == "edit" else read_tool()
    name = tool.name
    host = host_answering("allow")
    run = run_calls(
        new_harness(), [tool], [(name, {"file_path": path})], mode=mode, host=host, settings=files
    )
    why = f"{kind} of {path!r} in {mode} with {files}: {run.describe()}"
    if kind == "edit" and where == "outside":
        assert (run.ran(), run.asked) == (0, []), f"must be denied without asking: {why}"
        assert run.decision().get("behavior", "deny") == "deny", why
        return
    inside = where != "outside"
    unasked = mode == "bypassPermissions" or (inside and (kind == "read" or mode == "acceptEdits"))
    if unasked:
        assert ran_unasked(run), f"must run without asking: {why}"
    else:
        assert (run.ran(), len(run.asked)) == (1, 1), f"must be asked (the host allows): {why}"


DENY_INSTEAD_CASES = ("undecided", "ask_rule", "allow_rule", "deny_rule", "read_inside")


@requires("execution", "permissions", "host_callback", "settings_files")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=30, deadline=None)
@given(data=st.data(), case=st.sampled_from(DENY_INSTEAD_CASES))
def test_deny_instead_of_prompting(new_harness: Callable[[], Any], data: st.DataObject, case: str) -> None:
    """PERM-15: with ``denyInsteadOfPrompting`` set in any source, a call that would ask is denied unasked.

    Calls allowed without asking still run, denied ones stay denied.
    """
    permissions: dict[str, Any] = {"denyInsteadOfPrompting": True}
    rule = {"ask_rule": "ask", "allow_rule": "allow", "deny_rule": "deny"}.get(case)
    if rule is not None:
        permissions[rule] = ["Deploy"]
    files = data.draw(files_with(permissions), label="settings")
    tool: ToolSpec = read_tool() if case == "read_inside" else plain_tool("Deploy")
    tool_input = {"file_path": "notes.txt"} if case == "read_inside" else {"x": "prod"}
    run = run_calls(
        new_harness(), [tool], [(tool.name, tool_input)], host=host_answering("allow"), settings=files
    )
    why = f"{case} with {files}: {run.describe()}"
    if case in ("allow_rule", "read_inside"):
        assert ran_unasked(run), f"must still run without asking: {why}"
    else:
        assert (run.ran(), run.asked) == (0, []), f"must be denied without asking: {why}"
        assert run.decision().get("behavior", "deny") == "deny", why


# --------------------------------------------------------------------------------------------
# PERM-9, PERM-7, PERM-5: the mode a settings file sets (defaultMode), and the working directories
# its additionalDirectories add.

CALLS = ("plain", "edit_inside", "edit_extra", "read_ask_rule")
SETTINGS_MODES = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk")


def expected(mode: str, call: str) -> str:
    """``ran`` (without asking), ``asked`` (the host allows, so it runs) or ``denied`` (neither)."""
    if call == "read_ask_rule":  # a content-level ask rule on a read-only tool: asked in every mode
        return "denied" if mode == "dontAsk" else "asked"
    if mode == "bypassPermissions":
        return "ran"
    if mode in ("plan", "dontAsk"):
        return "denied"
    if mode == "acceptEdits" and call != "plain":
        return "ran"
    return "asked"


@requires("execution", "permissions", "host_callback", "settings_files")
@pytest.mark.requirement("PERM-9", "SHOULD")
@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    mode=st.sampled_from(SETTINGS_MODES),
    call=st.sampled_from(CALLS),
    given_at_start=st.booleans(),
)
def test_modes_and_directories_from_settings_files(
    new_harness: Callable[[], Any], data: st.DataObject, mode: str, call: str, given_at_start: bool
) -> None:
    """PERM-9 (with PERM-5, PERM-7): a mode set by a settings file's ``defaultMode`` (any source) acts as that mode.

    Plan denies what is not read-only and still asks about a read-only call, acceptEdits
    allows edits inside the working directories (``additionalDirectories`` from settings included,
    relative to the working directory) and nothing else, dontAsk denies every ask, bypassPermissions
    still asks on a content-level ask rule. A mode given when the session starts wins over the files'.
    """
    permissions: dict[str, Any] = {"additionalDirectories": [EXTRA_DIR], "ask": ["Read(./notes.txt)"]}
    start_mode = "default"
    if given_at_start and mode != "default":
        start_mode = mode
        permissions["defaultMode"] = data.draw(st.sampled_from([m for m in SETTINGS_MODES if m != mode]))
    else:
        permissions["defaultMode"] = mode
    files = data.draw(files_with(permissions), label="settings")
    tool, tool_input = {
        "plain": (plain_tool("Deploy"), {"x": "prod"}),
        "edit_inside": (edit_tool(), {"file_path": "src/app.py"}),
        "edit_extra": (edit_tool(), {"file_path": f"{EXTRA_DIR}/notes.txt"}),
        "read_ask_rule": (read_tool(), {"file_path": "notes.txt"}),
    }[call]
    run = run_calls(
        new_harness(),
        [tool],
        [(tool.name, tool_input)],
        mode=start_mode,
        host=host_answering("allow"),
        settings=files,
    )
    want = expected(mode, call)
    why = f"{call} in {mode} (started as {start_mode}, files {files}): expected {want}: {run.describe()}"
    got = "denied" if run.ran() == 0 and not run.asked else "ran" if ran_unasked(run) else "asked"
    if got == "asked":
        assert (run.ran(), len(run.asked)) == (1, 1), why
    assert got == want, why


# --------------------------------------------------------------------------------------------
# PERM-4: settings only managed settings may set. Claude Code's documentation lists keys honoured
# only from managed (policy) settings; one of them, allowManagedPermissionRulesOnly, discards every
# rule not written in managed settings. Written anywhere else it must be ignored: a cloned
# repository's .claude/settings.json could otherwise throw the user's deny rules away.

MANAGED_ONLY_KEYS = (
    "allowManagedPermissionRulesOnly",
    "allowManagedHooksOnly",
    "allowManagedMcpServersOnly",
    "strictKnownMarketplaces",
    "blockedMarketplaces",
    "channelsEnabled",
)
NOT_MANAGED = ("userSettings", "projectSettings", "localSettings")
JSON_VALUES: st.SearchStrategy[Any] = st.one_of(
    st.booleans(), st.none(), st.integers(-2, 2), st.sampled_from(["true", "", "disable"]), st.just([])
)


@requires("execution", "permissions", "host_callback", "settings_files")
@pytest.mark.requirement("PERM-4", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    lock_source=st.sampled_from(NOT_MANAGED),
    keys=st.lists(st.sampled_from(MANAGED_ONLY_KEYS), min_size=1, max_size=3, unique=True),
    rule_source=st.sampled_from(NOT_MANAGED),
    behavior=st.sampled_from(["deny", "ask"]),
    mode=st.sampled_from(["default", "bypassPermissions"]),
)
def test_managed_only_keys_from_other_sources_drop_no_rule(
    new_harness: Callable[[], Any],
    data: st.DataObject,
    lock_source: str,
    keys: list[str],
    rule_source: str,
    behavior: str,
    mode: str,
) -> None:
    """PERM-4: a managed-only key (``allowManagedPermissionRulesOnly`` ...) set outside managed settings is ignored.

    Whatever value it has and whichever non-managed source writes it, a deny (or ask) rule of any
    non-managed source still denies (asks), in every mode; with the lock in managed settings, a
    managed deny rule still denies and a non-managed allow rule no longer allows unasked.
    """
    locks: dict[str, Any] = {key: data.draw(JSON_VALUES, label=key) for key in keys}
    locks["allowManagedPermissionRulesOnly"] = data.draw(st.sampled_from([True, "true", 1]), label="lock")
    guard = SettingsSpec(rule_source, {"permissions": {behavior: ["Deploy"]}})
    lock = SettingsSpec(lock_source, locks)
    files = data.draw(st.permutations([guard, lock, *data.draw(quiet_files())]), label="settings")
    tool = plain_tool("Deploy")
    run = run_calls(
        new_harness(),
        [tool],
        [(tool.name, {"x": "prod"})],
        mode=mode,
        host=host_answering("allow"),
        settings=files,
    )
    why = f"{behavior} rule in {rule_source}, {locks} in {lock_source}, {mode}: {run.describe()}"
    if behavior == "deny":
        assert (run.ran(), run.asked) == (0, []), f"the deny rule must still deny: {why}"
    else:
        assert len(run.asked) == 1, f"the ask rule must still ask: {why}"

    # The same lock in managed settings is honoured: only managed rules apply.
    # The source's name as a harness reads it from its own configuration (decoded at run time, so
    # not the interned literal: a harness must compare it by value).
    policy = json.loads('"policySettings"')
    managed = [
        SettingsSpec(policy, {"allowManagedPermissionRulesOnly": True, "permissions": {"deny": ["Deploy"]}}),
        SettingsSpec(rule_source, {"permissions": {"allow": ["Deploy", "Other"]}}),
    ]
    other = plain_tool("Other")
    run = run_calls(
        new_harness(),
        [tool, other],
        [(tool.name, {"x": "prod"}), (other.name, {"x": "a"})],
        host=host_answering("allow"),
        settings=data.draw(st.permutations(managed), label="managed"),
    )
    why = f"managed lock and deny, allow in {rule_source}: {run.describe()}"
    assert run.ran("toolu_1") == 0, f"the managed deny rule must deny: {why}"
    assert run.ran("toolu_2") == 1, f"the host allowed the other call: {why}"
    assert len(run.asked) == 1, f"the non-managed allow rule must not apply: {why}"


# --------------------------------------------------------------------------------------------
# PERM-4: one rule text written by several sources, with several behaviours.

SHARED_TEXTS = ("Deploy", "Deploy(*)")
"""Rule texts that match the ``Deploy`` call; each example writes one of them in several places."""

_STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}


@st.composite
def same_rule_everywhere(draw: st.DrawFn) -> tuple[str, list[SettingsSpec], list[tuple[str, str]]]:
    """(text, settings files, where it is written): one rule text in 2..4 (source, list) places.

    A source may write it in two lists of one file; the files come in a drawn order, with quiet
    files among them, so the strictest entry can be anywhere, in any source.
    """
    text = draw(st.sampled_from(SHARED_TEXTS))
    places = draw(
        st.lists(
            st.tuples(st.sampled_from(FILE_SOURCES), st.sampled_from(["allow", "ask", "deny"])),
            min_size=2,
            max_size=4,
            unique=True,
        ).filter(lambda p: len({behavior for _, behavior in p}) > 1)
    )
    by_source: dict[str, dict[str, list[str]]] = {}
    for source, behavior in places:
        by_source.setdefault(source, {})[behavior] = [text]
    files = [SettingsSpec(source, {"permissions": lists}) for source, lists in by_source.items()]
    return text, draw(st.permutations([*files, *draw(quiet_files())])), places


@requires("execution", "permissions", "host_callback", "settings_files")
@pytest.mark.requirement("PERM-4", "MUST")
@settings(max_examples=30, deadline=None)
@given(case=same_rule_everywhere(), host_allows=st.booleans())
def test_the_same_rule_text_in_several_sources_keeps_every_behaviour(
    new_harness: Callable[[], Any],
    case: tuple[str, list[SettingsSpec], list[tuple[str, str]]],
    host_allows: bool,
) -> None:
    """PERM-4 property: the same rule text written as allow, ask and deny by several sources resolves to the strictest.

    However the sources are ordered and whichever of them writes the strict entry, a deny anywhere
    denies (nobody asked), else an ask anywhere asks; merging the sources' rules by their text
    (one behaviour kept per text) loses that.
    """
    text, files, places = case
    strictest = max((behavior for _, behavior in places), key=_STRICTNESS.__getitem__)
    host = host_answering("allow" if host_allows else "deny")
    run = run_calls(
        new_harness(), [plain_tool("Deploy")], [("Deploy", {"x": "prod"})], host=host, settings=files
    )
    why = f"{text!r} written as {places}, files {files}: expected {strictest}; {run.describe()}"
    if strictest == "deny":
        assert (run.ran(), run.asked) == (0, []), why
    else:
        assert len(run.asked) == 1, why
        assert run.ran() == (1 if host_allows else 0), why
