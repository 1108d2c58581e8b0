"""Loading settings files: every real file loads or is refused naming the file and rule (PERM-12)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reference_impl import SettingsError, load_settings
from reference_impl.permissions import PERMISSION_MODES, RuleSyntaxError, rules_from_strings


def _corpus(shared_dir: Path) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads(
        (shared_dir / "corpus" / "claude_settings.json").read_text("utf-8")
    )
    assert records, "the corpus is empty"
    return records


def test_every_corpus_file_loads_or_is_refused_clearly(shared_dir: Path) -> None:
    refused: list[tuple[str, SettingsError]] = []
    for record in _corpus(shared_dir):
        name = record["source"]
        try:
            settings = load_settings(record["raw_text"], "projectSettings", name=name)
        except SettingsError as error:
            refused.append((name, error))
            continue
        data = json.loads(record["raw_text"])
        permissions = data.get("permissions") or {}
        assert len(settings.permissions.allow) == len(permissions.get("allow") or [])
        assert len(settings.permissions.deny) == len(permissions.get("deny") or [])
        assert len(settings.permissions.ask) == len(permissions.get("ask") or [])
        assert settings.permissions.default_mode == permissions.get("defaultMode")
        # Keys a shared project file may not set are dropped, each with a notice naming it.
        dropped = {notice.key for notice in settings.notices if "." not in notice.key}
        assert settings.data == {k: v for k, v in data.items() if k not in dropped}
        assert all(rule.source == "projectSettings" for rule in settings.rules)
    for name, refusal in refused:
        assert name in str(refusal)
        assert refusal.rule is not None or refusal.key is not None, str(refusal)
    # Every real file in the corpus is well formed today: a refusal would be a loader bug.
    assert not refused, [str(refusal) for _, refusal in refused]


def test_corpus_files_with_one_broken_deny_rule_are_refused(shared_dir: Path) -> None:
    """Each real file plus one malformed deny rule is refused, naming the file and that rule (PERM-12)."""
    for record in _corpus(shared_dir):
        data = json.loads(record["raw_text"])
        permissions = data.get("permissions") or {}
        permissions["deny"] = [*(permissions.get("deny") or []), "Bash(rm -rf"]
        data["permissions"] = permissions
        with pytest.raises(SettingsError) as info:
            load_settings(json.dumps(data), "projectSettings", name=record["source"])
        assert record["source"] in str(info.value)
        assert "'Bash(rm -rf'" in str(info.value)
        assert info.value.rule == "Bash(rm -rf"


def test_rule_kinds_seen_in_real_files() -> None:
    text = json.dumps(
        {
            "permissions": {
                "allow": [
                    "Bash(npm test:*)",
                    "Bash(git fetch *)",
                    "Read(//Users/a/**)",
                    "mcp__github__*",
                    "WebSearch",
                ],
                "deny": ["Read(./.env)", "Bash(curl * | bash)"],
                "ask": ["Bash(git push:*)"],
                "defaultMode": "acceptEdits",
                "additionalDirectories": ["../docs"],
            },
            "hooks": {"PreToolUse": []},
            "env": {"A": "1"},
        }
    )
    settings = load_settings(text, "localSettings", name="local.json")
    assert [r.text for r in settings.rules] == [
        "Read(./.env)",
        "Bash(curl * | bash)",
        "Bash(git push:*)",
        "Bash(npm test:*)",
        "Bash(git fetch *)",
        "Read(//Users/a/**)",
        "mcp__github__*",
        "WebSearch",
    ]
    assert [r.behavior for r in settings.rules] == [
        "deny",
        "deny",
        "ask",
        "allow",
        "allow",
        "allow",
        "allow",
        "allow",
    ]
    assert settings.permissions.default_mode == "acceptEdits"
    assert settings.permissions.additional_directories == ("../docs",)
    assert settings.data["hooks"] == {"PreToolUse": []}


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("{not json", ["is not valid JSON"]),
        ("[]", ["must contain a JSON object"]),
        ('{"permissions": []}', ["'permissions' must be an object"]),
        ('{"permissions": {"allow": "Bash"}}', ["permissions.allow must be a list"]),
        ('{"permissions": {"deny": [42]}}', ["permissions.deny[0]", "42"]),
        (
            '{"permissions": {"deny": ["Read(./.env)", "Bash(rm -rf"]}}',
            ["permissions.deny[1]", "'Bash(rm -rf'"],
        ),
        ('{"permissions": {"Deny": ["Bash"]}}', ["unknown key", "'Deny'"]),
        ('{"permissions": {"deny": ["Bash"], "deny": []}}', ["duplicate key 'deny'"]),
        ('{"permissions": {}, "permissions": {}}', ["duplicate key 'permissions'"]),
        ('{"permissions": {"defaultMode": "yolo"}}', ["defaultMode 'yolo'"]),
        ('{"permissions": {"additionalDirectories": "x"}}', ["additionalDirectories"]),
        ('{"permissions": {"disableBypassPermissionsMode": true}}', ["disableBypassPermissionsMode"]),
    ],
)
def test_malformed_settings_are_refused_naming_file_and_culprit(text: str, fragments: list[str]) -> None:
    with pytest.raises(SettingsError) as info:
        load_settings(text, "userSettings", name="~/.claude/settings.json")
    message = str(info.value)
    assert "'~/.claude/settings.json'" in message
    for fragment in fragments:
        assert fragment in message


def test_one_bad_deny_rule_refuses_the_whole_file() -> None:
    """A malformed deny rule is never dropped on its own: the file is refused (PERM-12)."""
    text = json.dumps({"permissions": {"allow": ["Bash"], "deny": ["Bash(rm -rf:*)", "WebFetch(evil.com)"]}})
    with pytest.raises(SettingsError) as info:
        load_settings(text, "projectSettings", name="p.json")
    assert info.value.rule == "WebFetch(evil.com)"


def test_load_from_path(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"permissions": {"allow": ["Bash(ls:*)"]}}', encoding="utf-8")
    settings = load_settings(path, "projectSettings")
    assert settings.name == str(path)
    assert settings.permissions.allow[0].text == "Bash(ls:*)"
    path.write_text('{"permissions": {"allow": ["Bash(ls:*"]}}', encoding="utf-8")
    with pytest.raises(SettingsError, match=r"settings\.json"):
        load_settings(path, "projectSettings")
    with pytest.raises(SettingsError, match="can't be read"):
        load_settings(tmp_path / "missing.json", "projectSettings")


def test_unknown_source_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown settings source"):
        load_settings("{}", "somewhere")  # type: ignore[arg-type]


def test_every_mode_is_accepted_as_default_mode() -> None:
    for mode in PERMISSION_MODES:
        settings = load_settings(json.dumps({"permissions": {"defaultMode": mode}}), "userSettings")
        assert settings.permissions.default_mode == mode


def test_empty_and_null_sections() -> None:
    assert load_settings("{}", "userSettings").rules == ()
    assert load_settings('{"permissions": null}', "userSettings").rules == ()
    assert load_settings('{"permissions": {"allow": null, "deny": []}}', "userSettings").rules == ()


def test_rules_from_strings_for_cli_args() -> None:
    rules = rules_from_strings(["Bash(git:*)", "Edit"], "allow", "cliArg")
    assert [(r.tool_name, r.source) for r in rules] == [("Bash", "cliArg"), ("Edit", "cliArg")]


@pytest.mark.parametrize("behavior", ["deny", "ask"])
def test_rules_from_strings_refuses_a_dead_deny_or_ask_rule(behavior: str) -> None:
    """PERM-12 for rules given as strings (``--disallowedTools``): one that can never match is refused
    by name, like one in a settings file; the live rule beside it does not save it."""
    with pytest.raises(RuleSyntaxError, match="can never match") as caught:
        rules_from_strings(["Bash(git:*)", "WebSearch(cats)"], behavior, "cliArg")
    assert caught.value.rule == "WebSearch(cats)"


def test_rules_from_strings_reads_the_behavior_by_value() -> None:
    """A behavior spelt by a string built at run time (read from JSON, argv) means what the literal does:
    an allow shell rule is kept as written either way, a deny one read as bash reads it."""
    texts = ['Bash("git" status:*)', "Bash(npm test:*)"]
    for behavior in ("allow", "deny"):
        built = json.loads(json.dumps(behavior))
        assert built == behavior
        assert built is not behavior  # what the test is about: an equal string, not the same object
        assert rules_from_strings(texts, built, "cliArg") == rules_from_strings(texts, behavior, "cliArg")


def test_only_a_dead_allow_rule_earns_a_notice() -> None:
    """A file's notices name what the harness could not honour: the dead allow rule, no live rule."""
    live = {"allow": ["Bash(npm test:*)", "Read(./src/**)"], "deny": ["Bash(rm:*)"], "ask": ["WebFetch"]}
    loaded = load_settings(json.dumps({"permissions": live}), "userSettings", name="mine.json")
    assert loaded.notices == ()
    live["allow"].append("WebSearch(cats)")
    loaded = load_settings(json.dumps({"permissions": live}), "userSettings", name="mine.json")
    assert [(notice.key, "WebSearch(cats)" in str(notice)) for notice in loaded.notices] == [
        ("permissions.allow[2]", True)
    ]


def test_the_highest_precedence_default_mode_wins_in_any_order(tmp_path: Path) -> None:
    """``context_from_settings`` ranks the files by precedence: the order they are passed in is no matter."""
    from itertools import permutations

    from reference_impl import context_from_settings

    files = [
        load_settings(json.dumps({"permissions": {"defaultMode": mode}}), source)
        for source, mode in (
            ("userSettings", "plan"),
            ("policySettings", "dontAsk"),
            ("localSettings", "acceptEdits"),
        )
    ]
    for order in permutations(files):
        assert context_from_settings(order, cwd=tmp_path).mode == "dontAsk"
        unmanaged = [f for f in order if f.source != "policySettings"]
        assert context_from_settings(unmanaged, cwd=tmp_path).mode == "acceptEdits"
