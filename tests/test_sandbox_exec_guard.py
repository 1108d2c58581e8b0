"""SBX-7's stubs judge at least as broadly as the permission engine reads a deny rule.

The stub (a bash script, run here by the real bash outside any sandbox) and the engine's
``rule_matches`` see the same simple command; whenever the engine's deny rule matches it, the stub
must refuse it (deny is broad at exec time, never narrower than on the line).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference_impl import build_tool, parse_rule
from reference_impl.permissions import rule_matches
from reference_impl.sandbox._exec_guard import DENIALS_FILE, ExecGuard, exec_rules
from reference_impl.tools import PermissionTarget

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")


async def _never_called(*_args: object) -> str:
    raise AssertionError("the Bash tool is only matched here, never called")


BASH = build_tool(
    "Bash",
    "Run a shell command.",
    _never_called,
    input_json_schema={"type": "object", "properties": {"command": {"type": "string"}}},
    is_shell=True,
    permission_target=lambda i: PermissionTarget("shell", str(i.get("command", ""))),
)
_WORDS = st.sampled_from(["-d", "-r", "x", "y", "2001", "a.txt"])


def _stub_refuses(tmp: Path, rule_text: str, args: list[str]) -> bool:
    rule = parse_rule(rule_text, "deny", "localSettings")
    guard = ExecGuard.build(exec_rules([rule]), tmp)
    stubs = sorted((tmp / "stubs").iterdir())
    assert stubs, f"no stub for {rule_text}: {guard.hidden}"
    subprocess.run(["bash", "-p", str(stubs[0]), *args], capture_output=True, check=False, timeout=30)
    return (tmp / DENIALS_FILE).read_text() != ""


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rule_words=st.lists(_WORDS, max_size=2),
    form=st.sampled_from(["{}:*", "{} *", "{}"]),
    args=st.lists(_WORDS, max_size=3),
)
def test_the_stub_refuses_whatever_the_engine_denies(
    tmp_path_factory: pytest.TempPathFactory, rule_words: list[str], form: str, args: list[str]
) -> None:
    """SBX-7 property: a simple ``touch`` command a deny rule matches on the line is refused by the stub."""
    rule_text = "Bash(" + form.format(" ".join(["touch", *rule_words])) + ")"
    command = " ".join(["touch", *args])
    rule = parse_rule(rule_text, "deny", "localSettings")
    engine = rule_matches(rule, BASH, {"command": command}, cwd=Path.cwd())
    refused = _stub_refuses(tmp_path_factory.mktemp("guard"), rule_text, args)
    if engine:
        assert refused, f"{rule_text} denies {command!r} on the line but the stub lets it run"


def test_a_rule_on_another_program_leaves_touch_alone(tmp_path: Path) -> None:
    """The stubs cover only the files of programs a rule names, and judge by the rule's arguments."""
    assert not _stub_refuses(tmp_path, "Bash(touch -d:*)", ["x"])
    rule = parse_rule("Bash(no-such-program-sbx7:*)", "deny", "localSettings")
    assert ExecGuard.build(exec_rules([rule]), tmp_path / "other").hidden == ()
