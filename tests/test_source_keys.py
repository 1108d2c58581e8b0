"""Settings keys only some settings sources may set: the table against the documentation, and loading.

The documentation lists are copied here by hand from Claude Code's settings pages (managed-only
settings; keys not read from shared project settings); the table in ``reference_impl`` must agree
with them, and may only be stricter (a row of its own never lets the shared project file set a key).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.agent._cli import _parser, _session
from reference_impl.permissions import (
    SETTING_SOURCES,
    SOURCE_RESTRICTED_KEYS,
    context_from_settings,
    load_settings,
)

# CC docs, settings ("managed-only settings": only effective in managed settings).
DOCUMENTED_MANAGED_ONLY = frozenset(
    {
        "allowedChannelPlugins",
        "allowManagedHooksOnly",
        "allowManagedMcpServersOnly",
        "allowManagedPermissionRulesOnly",
        "blockedMarketplaces",
        "channelsEnabled",
        "pluginTrustMessage",
        "sandbox.filesystem.allowManagedReadPathsOnly",
        "sandbox.network.allowManagedDomainsOnly",
        "strictKnownMarketplaces",
    }
)
# CC docs: autoMode (auto mode config), autoMemoryDirectory (memory), skipDangerousModePermissionPrompt
# (settings) are not read from the shared project settings file.
DOCUMENTED_NOT_FROM_PROJECT = frozenset(
    {"autoMode", "autoMemoryDirectory", "skipDangerousModePermissionPrompt"}
)

TABLE = {row.key: row for row in SOURCE_RESTRICTED_KEYS}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


def test_the_table_holds_what_the_documentation_says() -> None:
    managed = {key for key, row in TABLE.items() if row.sources == frozenset({"policySettings"})}
    assert managed == DOCUMENTED_MANAGED_ONLY
    documented = {key for key, row in TABLE.items() if row.documented}
    assert documented == DOCUMENTED_MANAGED_ONLY | DOCUMENTED_NOT_FROM_PROJECT
    for key in DOCUMENTED_NOT_FROM_PROJECT:
        assert TABLE[key].sources == frozenset(SETTING_SOURCES) - {"projectSettings"}, key
    # Rows of the harness's own are stricter than the documentation, never looser.
    for key, row in TABLE.items():
        assert "projectSettings" not in row.sources, key
        assert row.why, key


def _nested(key: str, value: Any) -> dict[str, Any]:
    *parents, last = key.split(".")
    data: dict[str, Any] = {last: value}
    for part in reversed(parents):
        data = {part: data}
    return data


def _lookup(data: Any, key: str) -> tuple[bool, Any]:
    for part in key.split("."):
        if not isinstance(data, dict) or part not in data:
            return False, None
        data = data[part]
    return True, data


@settings(max_examples=200, deadline=None)
@given(
    keys=st.lists(st.sampled_from(sorted(TABLE)), min_size=1, max_size=4, unique=True),
    source=st.sampled_from(SETTING_SOURCES),
    values=st.lists(JSON, min_size=4, max_size=4),
)
def test_a_key_is_honoured_only_from_the_sources_that_may_set_it(
    keys: list[str], source: Any, values: list[Any]
) -> None:
    """PERM-4: every restricted key, from every source, with any value: kept from an allowed source;
    dropped from any other with a notice naming the key, the file and the source; never an error."""
    data: dict[str, Any] = {"permissions": {"deny": ["Bash(rm:*)"]}}
    for key, value in zip(keys, values, strict=False):
        nested = _nested(key, value)
        head = next(iter(nested))
        if isinstance(data.get(head), dict) and isinstance(nested[head], dict):
            data[head] = {**data[head], **nested[head]}
        else:
            data.update(nested)
    written = {key: _lookup(data, key) for key in keys}
    loaded = load_settings(json.dumps(data), source, name="drawn.json")
    noticed = {notice.key: notice for notice in loaded.notices}
    for key in keys:
        present, value = written[key]
        if not present:
            continue  # a later key replaced its parent with a non-object
        if source in TABLE[key].sources:
            assert _lookup(loaded.data, key) == (True, value), key
            assert key not in noticed
        else:
            assert _lookup(loaded.data, key) == (False, None), f"{key} from {source} must be dropped"
            text = str(noticed[key])
            assert all(part in text for part in (key, "drawn.json", source)), text
    assert [r.text for r in loaded.permissions.deny] == ["Bash(rm:*)"]


@pytest.mark.parametrize("source", ["userSettings", "projectSettings", "localSettings", "flagSettings"])
def test_a_rules_lock_outside_managed_settings_keeps_every_rule(source: Any) -> None:
    user = load_settings('{"permissions": {"deny": ["Bash(rm:*)"], "allow": ["Read"]}}', "userSettings")
    lock = load_settings(
        '{"allowManagedPermissionRulesOnly": true, "permissions": {"allow": ["Bash"]}}', source, name="lock"
    )
    context = context_from_settings([user, lock], cwd=Path("/"))
    assert {r.text for r in context.rules} == {"Bash(rm:*)", "Read", "Bash"}
    assert [n.key for n in lock.notices] == ["allowManagedPermissionRulesOnly"]


def test_a_rules_lock_in_managed_settings_keeps_only_managed_rules() -> None:
    user = load_settings('{"permissions": {"deny": ["Bash(rm:*)"], "allow": ["Read"]}}', "userSettings")
    managed = load_settings(
        '{"allowManagedPermissionRulesOnly": true, "permissions": {"deny": ["WebFetch"]}}', "policySettings"
    )
    context = context_from_settings([user, managed], cwd=Path("/"))
    assert [(r.text, r.source) for r in context.rules] == [("WebFetch", "policySettings")]
    assert managed.notices == ()


def test_the_cli_names_each_ignored_key_before_any_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line says, when the session is made, which key of which file was ignored."""
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"allowManagedHooksOnly": True, "autoMemoryDirectory": "/tmp/elsewhere"}), "utf-8"
    )
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    args = _parser().parse_args(["-p", "hi", "--setting-sources", "project"])
    _session(args, "session-1")
    err = capsys.readouterr().err
    for key in ("allowManagedHooksOnly", "autoMemoryDirectory"):
        line = next((line for line in err.splitlines() if key in line), "")
        assert all(part in line for part in ("settings.json", "projectSettings", "ignored")), err
