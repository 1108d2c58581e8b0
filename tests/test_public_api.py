"""The public names: a light top-level import, one capability table, command-hook programs."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

import pytest_toolharness
from pytest_toolharness import adapters, wire
from pytest_toolharness.adapters import (
    CAPABILITIES,
    CapabilityError,
    HookSpec,
    _contract,
    check_harness,
    hook_command,
    hook_program,
    missing_methods,
    runs_as_command,
)
from pytest_toolharness.processes._launch import HOOK_PYTHON

ROOT = Path(__file__).resolve().parent.parent


def _modules_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint('\\n'.join(sys.modules))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_importing_the_package_loads_no_harness_and_no_sdk() -> None:
    """The front door imports its names on first use: no heavier than the plugin, which loads in every pytest process."""
    package = _modules_after("import pytest_toolharness")
    heavy = sorted(
        m
        for m in package
        if m.split(".")[0] in ("reference_impl", "anthropic", "mcp")
        or m.startswith(("pytest_toolharness.adapters.reference", "pytest_toolharness.adapters.framework"))
    )
    assert heavy == []
    assert package <= _modules_after("import pytest_toolharness.plugin")


def test_every_public_name_resolves() -> None:
    # Every adapters name docs/adapters.md shows is also at the top level; the ones left off are the
    # plugin's own (loading an adapter, reading its declarations), which no adapter author writes.
    documented = set(re.findall(r"\b\w+\b", (ROOT / "docs" / "adapters.md").read_text(encoding="utf-8")))
    left_off = set(adapters.__all__) - set(pytest_toolharness.__all__)
    assert not left_off & documented, sorted(left_off & documented)
    for name in set(adapters.__all__) & set(pytest_toolharness.__all__):
        assert getattr(pytest_toolharness, name) is getattr(adapters, name)
    for package in (pytest_toolharness, adapters, wire):
        assert len(package.__all__) == len(set(package.__all__))
        for name in package.__all__:
            getattr(package, name)
    assert {n for n in dir(wire) if n.startswith("check_")} <= set(wire.__all__)
    with pytest.raises(AttributeError, match="capabilities_of"):
        _ = pytest_toolharness.capabilities_of  # type: ignore[attr-defined]


def test_one_table_every_capability_a_protocol_or_a_feature() -> None:
    protocols = {
        value
        for name, value in vars(_contract).items()
        if name.endswith("Capability") and isinstance(value, type)
    }
    assert {c.protocol for c in CAPABILITIES.values() if c.protocol is not None} == protocols
    assert set(typing.get_args(_contract.Harness)) == protocols
    for capability in CAPABILITIES.values():
        if capability.name == "permissions":
            # Data the scenarios carry (rules, a mode), for the pool and execute() alike: neither.
            assert (capability.protocol, capability.feature_of, capability.methods) == (None, None, ())
            continue
        assert (capability.protocol is None) == (capability.feature_of is not None), capability.name
        assert capability.feature_of in (None, "execution", "agent_loop")
        assert capability.description
    assert CAPABILITIES["wire"].methods == ("run_wire",)
    assert CAPABILITIES["execution"].methods == ("execute",)
    assert CAPABILITIES["hooks"].methods == ()


class _Half:
    def assemble_pool(self, builtin: Any, mcp: Any, *, deny_rules: Any = ()) -> list[str]:
        return []

    render_tools = "not callable"


def test_check_harness_names_each_missing_method() -> None:
    assert missing_methods(_Half(), ["pool", "hooks"]) == []
    assert missing_methods(_Half(), ["wire", "schemas", "pool"]) == [
        ("schemas", "render_tools"),
        ("wire", "run_wire"),
    ]
    check_harness(_Half(), frozenset({"pool", "hooks"}))
    with pytest.raises(CapabilityError, match=r"capability 'schemas' needs render_tools\(\)") as info:
        check_harness(_Half(), frozenset({"schemas", "pool"}), "adapter 'half'")
    assert str(info.value).startswith("adapter 'half' declares capabilities its harness (_Half)")
    with pytest.raises(ValueError, match="unknown capability name"):
        check_harness(_Half(), {"telepathy"})


def _run(command: str, stdin: str = "{}") -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, shell=True, input=stdin, capture_output=True, text=True, check=False)


@pytest.mark.parametrize(
    ("spec", "code", "stdout", "stderr"),
    [
        (HookSpec("PreToolUse", "exit2", reason='it\'s "blocked"'), 2, "", 'it\'s "blocked"'),
        (HookSpec("PreToolUse", "exit1", reason="oops"), 1, "", "oops"),
        (HookSpec("PreToolUse", "garbage"), 0, "}{ not json at all", ""),
        (
            HookSpec("PostToolUse", "block", reason="no"),
            0,
            json.dumps({"decision": "block", "reason": "no"}),
            "",
        ),
        (HookSpec("PreToolUse", "none", as_command=True), 0, "{}", ""),
    ],
)
def test_hook_command_runs_a_real_hook(
    tmp_path: Path, spec: HookSpec, code: int, stdout: str, stderr: str
) -> None:
    command = hook_command(spec, tmp_path / "a dir with spaces", 3)
    assert (tmp_path / "a dir with spaces" / f"hook_3_{spec.event}_{spec.outcome}.py").is_file()
    done = _run(command, json.dumps({"hook_event_name": spec.event, "tool_name": "Bash"}))
    assert (done.returncode, done.stdout, done.stderr) == (code, stdout, stderr)
    if stdout.startswith("{"):
        assert json.loads(done.stdout) == spec.output_json()


def test_a_hook_program_starts_without_site_or_the_callers_python_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook interpreter skips ``site`` and ``PYTHON*``: a broken ``sitecustomize`` on PYTHONPATH is not run."""
    (tmp_path / "sitecustomize.py").write_text("raise SystemExit('sitecustomize ran')\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    assert _run(f"{shlex.quote(sys.executable)} -c pass").returncode != 0, (
        "the broken sitecustomize should run here"
    )
    spec = HookSpec("PreToolUse", "none", as_command=True)
    command = hook_command(spec, tmp_path / "hooks", 0)
    assert command.startswith(HOOK_PYTHON + " ")
    done = _run(command)
    assert (done.returncode, done.stdout, done.stderr) == (0, "{}", "")


def test_a_hook_spec_if_rule_is_a_tool_events_settings_handlers_and_reaches_the_plugin(
    tmp_path: Path,
) -> None:
    """``if_rule`` is a settings handler's ``if``: refused on a callback or a non-tool event, written by write_plugin."""
    with pytest.raises(ValueError, match="in-process callback"):
        HookSpec("PreToolUse", "deny", if_rule="Bash(git push *)")
    with pytest.raises(ValueError, match="tool events"):
        HookSpec("Stop", "block", as_command=True, if_rule="Bash(git push *)")
    with pytest.raises(ValueError, match="permission rule string"):
        HookSpec("PreToolUse", "deny", as_command=True, if_rule=" ")
    spec = HookSpec("PreToolUse", "deny", from_plugin=True, if_rule="Bash(git push *)")
    root = adapters.write_plugin([spec], tmp_path / "plugin")
    document = json.loads((root / "hooks" / "hooks.json").read_text(encoding="utf-8"))
    assert [h["if"] for h in document["hooks"]["PreToolUse"][0]["hooks"]] == ["Bash(git push *)"]


def test_crashing_hooks_fail_and_command_only_outcomes_need_a_command(tmp_path: Path) -> None:
    crash = _run(hook_command(HookSpec("PreToolUse", "crash"), tmp_path, 0))
    assert crash.returncode == 1
    assert "scripted hook crash" in crash.stderr
    assert "time.sleep(3600)" in hook_program(HookSpec("PreToolUse", "hang"))
    assert runs_as_command(HookSpec("PreToolUse", "exit2"))
    assert runs_as_command(HookSpec("PreToolUse", "allow", as_command=True))
    assert not runs_as_command(HookSpec("PreToolUse", "allow"))
