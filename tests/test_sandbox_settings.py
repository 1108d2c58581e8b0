"""The ``sandbox`` settings (validation, merging) and the policy derived from them (SBX-1..SBX-3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reference_impl import PermissionContext, SettingsError, load_settings, parse_rule, sandbox_settings
from reference_impl.sandbox import (
    GLOB_MATCH_LIMIT,
    SandboxPatternError,
    derive_policy,
    expand_globs,
    host_allowed,
)


def _file(data: dict[str, Any], source: Any = "userSettings", name: str = "user.json") -> Any:
    return load_settings(json.dumps(data), source, name=name)


@pytest.mark.parametrize(
    ("sandbox", "key"),
    [
        ({"enabeld": True}, "sandbox.enabeld"),
        ({"enabled": "yes"}, "sandbox.enabled"),
        ({"excludedCommands": ["git", 3]}, "sandbox.excludedCommands[1]"),
        ({"filesystem": {"allowWrites": []}}, "sandbox.filesystem.allowWrites"),
        ({"filesystem": {"denyRead": "/etc"}}, "sandbox.filesystem.denyRead"),
        ({"network": {"allowedDomains": ["ok.com", "exa mple.com"]}}, "sandbox.network.allowedDomains[1]"),
        ({"network": {"allowedDomains": ["example.com:443"]}}, "sandbox.network.allowedDomains[0]"),
        ({"network": {"allowedDomains": ["*"]}}, "sandbox.network.allowedDomains[0]"),
        ({"network": {"allowedDomains": ["a.*.com"]}}, "sandbox.network.allowedDomains[0]"),
        ({"network": {"httpProxyPort": 70000}}, "sandbox.network.httpProxyPort"),
        ({"network": []}, "sandbox.network"),
        ("on", "sandbox"),
    ],
)
def test_a_bad_sandbox_setting_refuses_the_file_naming_file_and_key(sandbox: Any, key: str) -> None:
    """A malformed ``sandbox`` value is an error naming the file and the key, never a silent default."""
    with pytest.raises(SettingsError) as caught:
        sandbox_settings([_file({"sandbox": sandbox}, name="project.json")])
    assert caught.value.key == key
    assert "project.json" in str(caught.value)
    assert key.split("[")[0].rsplit(".", 1)[-1] in str(caught.value)


def test_documented_keys_that_only_widen_are_accepted() -> None:
    """Keys Claude Code documents and the harness doesn't enforce load (they would only widen)."""
    data = {
        "sandbox": {
            "enabled": True,
            "ignoreViolations": {"*": ["/tmp"]},
            "enableWeakerNestedSandbox": False,
            "filesystem": {"allowRead": ["/x"]},
            "network": {
                "allowLocalBinding": True,
                "allowUnixSockets": ["/var/run/docker.sock"],
                "httpProxyPort": 8080,
            },
        }
    }
    assert sandbox_settings([_file(data)]).enabled


def test_files_merge_by_precedence_scalars_last_lists_joined() -> None:
    """Later sources win for scalars (whatever order the files come in); lists from every source are joined."""
    user = _file(
        {
            "sandbox": {
                "enabled": True,
                "excludedCommands": ["docker"],
                "network": {"allowedDomains": ["a.com"]},
            }
        }
    )
    project = _file(
        {
            "sandbox": {
                "enabled": False,
                "excludedCommands": ["git", "docker"],
                "network": {"allowedDomains": ["B.com."]},
            }
        },
        "projectSettings",
        "project.json",
    )
    policy = _file({"sandbox": {"failIfUnavailable": True}}, "policySettings", "managed.json")
    merged = sandbox_settings([policy, project, user])
    assert merged.enabled is False
    assert merged.fail_if_unavailable is True
    assert merged.auto_allow_bash_if_sandboxed is False  # Claude Code's default
    assert merged.excluded_commands == ("docker", "git")
    assert merged.allowed_domains == ("a.com", "b.com")


def test_managed_domains_only_is_honoured_from_managed_settings_alone(tmp_path: Path) -> None:
    """``allowManagedDomainsOnly`` from managed settings keeps only managed domains; elsewhere it is ignored."""
    user = _file({"sandbox": {"network": {"allowedDomains": ["user.com"], "allowManagedDomainsOnly": True}}})
    assert sandbox_settings([user]).allow_managed_domains_only is False
    managed = _file(
        {"sandbox": {"network": {"allowedDomains": ["corp.com"], "allowManagedDomainsOnly": True}}},
        "policySettings",
        "managed.json",
    )
    merged = sandbox_settings([user, managed])
    context = PermissionContext(
        cwd=tmp_path, rules=(parse_rule("WebFetch(domain:rule.com)", "allow", "userSettings"),)
    )
    policy = derive_policy(merged, context, temp_dir=tmp_path)
    assert policy.allows_host("corp.com")
    assert not policy.allows_host("user.com")
    assert not policy.allows_host("rule.com")


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("example.com", True),
        ("EXAMPLE.com.", True),
        ("api.example.com", False),
        ("api.github.com", True),
        ("github.com", False),
        ("evil-github.com", False),
        ("blocked.github.com", False),
        ("127.0.0.1", True),
        ("2130706433", True),
        ("0x7f.1", True),
        ("127.0.0.2", False),
        ("exa%6dple.com", True),
        ("", False),
    ],
)
def test_host_patterns(host: str, allowed: bool) -> None:
    """Exact hosts, ``*.`` subdomains (not the apex), denied wins, every IPv4 spelling is one address."""
    assert (
        host_allowed(host, ("example.com", "*.github.com", "127.0.0.1"), ("blocked.github.com",)) is allowed
    )


@pytest.mark.parametrize(
    "host", ["a.localhost", "localhost", "0.0.0.0", "[::1]", "127.0.0.2", "[::ffff:127.0.0.1]"]
)
@pytest.mark.parametrize("denied", ["localhost", "127.0.0.1", "*.localhost"])
def test_a_denied_spelling_of_the_local_machine_denies_every_other(host: str, denied: str) -> None:
    """SBX-3: ``deniedDomains: [localhost]`` beside ``allowedDomains: [*.localhost, 0.0.0.0...]`` still
    keeps the proxy from the local machine by any other spelling (``a.localhost`` resolves to 127.0.0.1)."""
    allowed = ("*.localhost", "localhost", "0.0.0.0", "[::1]", "127.0.0.2", "127.0.0.1", "example.com")
    assert not host_allowed(host, allowed, (denied,))
    assert host_allowed("example.com", allowed, (denied,))


def test_rules_become_mounts_and_domains(tmp_path: Path) -> None:
    """Edit allow rules widen writes, Read deny rules hide paths, WebFetch rules allow and deny hosts."""
    rules = tuple(
        parse_rule(text, behavior, "projectSettings")
        for text, behavior in [
            (f"Edit(/{tmp_path}/build/**)", "allow"),
            ("Read(./.env)", "deny"),
            ("Read(**/*.pem)", "deny"),
            ("WebFetch(domain:pypi.org)", "allow"),
            ("WebFetch(domain:evil.org)", "deny"),
        ]
    )
    work = tmp_path / "work"
    work.mkdir()
    merged = sandbox_settings(
        [_file({"sandbox": {"enabled": True, "network": {"allowedDomains": ["evil.org"]}}})]
    )
    policy = derive_policy(merged, PermissionContext(cwd=work, rules=rules), temp_dir=tmp_path / "t")
    assert str(tmp_path / "build") in policy.writable
    assert str(work / ".env") in policy.hidden
    assert not any(p.endswith(".pem") for p in policy.hidden)  # a pattern can't be a mount
    assert policy.allows_host("pypi.org")
    assert not policy.allows_host("evil.org")
    assert str(work / ".git") in policy.protected
    assert str(work / ".claude") in policy.protected


@pytest.mark.parametrize("source", ["userSettings", "projectSettings", "localSettings", "flagSettings"])
def test_program_paths_count_only_in_managed_settings(source: Any) -> None:
    """``bwrapPath`` / ``socatPath`` from anywhere but managed settings are ignored (a repository can't
    name a fake bubblewrap that would run commands unconfined); from managed settings they count."""
    data = {"sandbox": {"bwrapPath": "/opt/fake/bwrap", "socatPath": "/opt/fake/socat"}}
    assert sandbox_settings([_file(data, source)]).bwrap_path is None
    managed = sandbox_settings([_file(data, "policySettings", "managed.json")])
    assert (managed.bwrap_path, managed.socat_path) == ("/opt/fake/bwrap", "/opt/fake/socat")
    with pytest.raises(SettingsError, match="absolute path"):
        sandbox_settings([_file({"sandbox": {"bwrapPath": "bin/bwrap"}}, "policySettings", "managed.json")])


@pytest.mark.parametrize(
    ("sandbox", "key"),
    [
        ({"credentials": {"envVars": [{"name": "TOKEN", "mode": "deny"}]}}, "sandbox.credentials"),
        ({"network": {"tlsTerminate": {"caCertPath": "/ca.pem"}}}, "sandbox.network.tlsTerminate"),
    ],
)
def test_narrowing_keys_the_harness_cant_enforce_refuse_the_file(sandbox: Any, key: str) -> None:
    """A documented key that would narrow the sandbox in a way the harness can't is refused, not ignored."""
    with pytest.raises(SettingsError, match="not supported") as caught:
        sandbox_settings([_file({"sandbox": sandbox})])
    assert caught.value.key == key


def test_glob_entries_stay_patterns_with_their_directories_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``denyRead`` / ``denyWrite`` globs become absolute patterns (``~`` and ``./`` expanded), not paths."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    work = tmp_path / "work"
    work.mkdir()
    merged = sandbox_settings(
        [
            _file(
                {
                    "sandbox": {
                        "filesystem": {"denyRead": ["~/.ssh/**", "/etc/shadow"], "denyWrite": ["./*.key"]}
                    }
                }
            )
        ]
    )
    rules = (
        parse_rule("Read(**/.env)", "deny", "userSettings"),
        parse_rule(r"Read(./lit\*.txt)", "deny", "userSettings"),
    )
    policy = derive_policy(merged, PermissionContext(cwd=work, rules=rules), temp_dir=tmp_path / "t")
    assert policy.hidden_globs == (f"{tmp_path}/home/.ssh/**", f"{work}/**/.env")
    assert "/etc/shadow" in policy.hidden
    assert f"{work}/lit*.txt" in policy.hidden  # an escaped wildcard is one literal path
    assert policy.protected_globs == (f"{work}/*.key",)
    assert not {f"{tmp_path}/home/.ssh/**", f"{work}/**/.env", f"{work}/*.key"} & {
        *policy.hidden,
        *policy.protected,
    }


def test_a_glob_matching_too_much_refuses_rather_than_half_enforces(tmp_path: Path) -> None:
    """A pattern matching more than GLOB_MATCH_LIMIT paths is an error naming the pattern."""
    for n in range(GLOB_MATCH_LIMIT + 1):
        (tmp_path / f"f{n}.key").touch()
    with pytest.raises(SandboxPatternError, match=r"\*\.key"):
        expand_globs([f"{tmp_path}/*.key"])
    assert len(expand_globs([f"{tmp_path}/*.key"], limit=None)) == GLOB_MATCH_LIMIT + 1
