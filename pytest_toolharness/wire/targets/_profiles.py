"""Target profiles: what the wire suite needs to know about one agent CLI, behind an entry-point group.

A scenario is written in roles, not in one CLI's words: *the* built-in read tool, *the* shell tool,
the suite's MCP server and its tools, permission rules, a command hook, tool search on or off. A
:class:`TargetProfile` says what those roles are called in its CLI (:class:`ToolNames`), which of
them it has (``capabilities``), which requirement profiles it claims (``claims``: ``core``,
``claude-code``), where its binary is (``find_binary``: an environment variable, then ``PATH``),
how to build the :class:`~pytest_toolharness.wire.targets._command.Target` that runs it, and the baseline
it ships (expected failures, each with a reason and the request bytes that show it).

Profiles are found through the ``pytest_toolharness.targets`` entry-point group (each entry point
names a zero-argument callable returning a profile); the built-ins are declared there too and are
also known without the package metadata (an old editable install). A third-party package adds a
CLI by declaring, in its ``pyproject.toml``::

    [project.entry-points."pytest_toolharness.targets"]
    my-cli = "my_package.toolharness:profile"

See docs/wire.md, "Writing a target profile".
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Protocol, runtime_checkable

from pytest_toolharness.wire.scenarios import CLAUDE_CODE_NAMES, ToolNames
from pytest_toolharness.wire.targets._cline import CLINE_BIN_ENV, CLINE_NAMES, ClineTarget
from pytest_toolharness.wire.targets._codex import CODEX_BIN_ENV, CODEX_NAMES, CodexTarget
from pytest_toolharness.wire.targets._command import CommandTarget, ReferenceTarget, Target, TargetError
from pytest_toolharness.wire.targets._gemini_cli import GEMINI_BIN_ENV, GEMINI_NAMES, GeminiCliTarget
from pytest_toolharness.wire.targets._opencode import OPENCODE_BIN_ENV, OPENCODE_NAMES, OpencodeTarget

__all__ = [
    "BUILTIN_PROFILES",
    "CLAUDE_CODE_NAMES",
    "ENTRY_POINT_GROUP",
    "PROFILE_CAPABILITIES",
    "ClaudeCodeProfile",
    "ClineProfile",
    "CodexProfile",
    "GeminiCliProfile",
    "OpencodeProfile",
    "ReferenceProfile",
    "TargetProfile",
    "ToolNames",
    "find_on_path",
    "load_profiles",
    "profile_named",
    "resolve_target",
]

#: The entry-point group a package declares its target profiles in.
ENTRY_POINT_GROUP = "pytest_toolharness.targets"

#: What a profile may declare it can express: each a role the wire scenarios use.
PROFILE_CAPABILITIES: Mapping[str, str] = {
    "mcp": "runs the suite's stdio MCP server and offers its tools",
    "read_tool": "has a built-in tool that reads a file",
    "shell_tool": "has a built-in tool that runs a shell command",
    "permission_rules": "takes allow / ask / deny rules for tools",
    "permission_modes": "takes a permission mode (default, plan, dontAsk, ...)",
    "command_hooks": "runs command hooks before and after a tool call",
    "tool_search": "can defer tools behind a search tool, switched on and off",
    "settings_files": "reads Claude Code's user, project and local settings files by itself",
    "rule_texts": "takes Claude Code's rule texts as written (Tool(content)), so a malformed one reaches it malformed",
    "plugins": "loads hooks from a Claude Code plugin folder (hooks/hooks.json, ${CLAUDE_PLUGIN_ROOT})",
    "sandbox": "runs shell commands in its sandbox when the settings say sandbox.enabled",
}

_BASELINES = Path(__file__).resolve().parents[2] / "baselines"


@runtime_checkable
class TargetProfile(Protocol):
    """One agent CLI as the wire suite sees it (see the module docstring)."""

    name: str
    description: str
    claims: tuple[str, ...]
    capabilities: frozenset[str]
    names: ToolNames

    def find_binary(self) -> Path | None:
        """The CLI's executable (its environment variable first, then PATH), or None."""
        ...

    def target(self) -> Target:
        """The target that runs the CLI once per scenario; a clear error when it can't be found."""
        ...

    def baseline(self) -> Path | None:
        """The baseline the profile ships (expected failures with reasons and evidence), if any."""
        ...


def find_on_path(env_var: str, *commands: str) -> Path | None:
    """``$env_var`` when set (an error if it is not an executable file), else the first of ``commands`` on PATH."""
    explicit = os.environ.get(env_var)
    if explicit:
        path = Path(explicit)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise FileNotFoundError(f"{env_var}={explicit} is not an executable file")
        return path
    for command in commands:
        found = shutil.which(command)
        if found:
            return Path(found)
    return None


class ReferenceProfile:
    """The embedded reference harness, ``python -m reference_impl`` (Claude Code's conventions)."""

    name: str = "reference"
    description: str = "the reference harness embedded in pytest-toolharness"
    claims: tuple[str, ...] = ("core", "claude-code")
    capabilities: frozenset[str] = frozenset(PROFILE_CAPABILITIES)
    names: ToolNames = CLAUDE_CODE_NAMES

    def find_binary(self) -> Path | None:
        """The current interpreter: the harness is a module of this install."""
        import sys

        return Path(sys.executable)

    def target(self) -> Target:
        """A :class:`~pytest_toolharness.wire.targets._command.ReferenceTarget`."""
        return ReferenceTarget()

    def baseline(self) -> Path | None:
        """None: the reference harness is expected to pass everything."""
        return None


class ClaudeCodeProfile:
    """The Claude Code CLI (``claude -p``): settings.json rules, modes and hooks, ``ENABLE_TOOL_SEARCH``."""

    name: str = "claude-code"
    description: str = "Claude Code CLI (the binary bundled in claude-agent-sdk, or claude on PATH)"
    claims: tuple[str, ...] = ("core", "claude-code")
    capabilities: frozenset[str] = frozenset(PROFILE_CAPABILITIES)
    names: ToolNames = CLAUDE_CODE_NAMES

    def find_binary(self) -> Path | None:
        """``$TOOLHARNESS_CLAUDE_BIN``, the claude-agent-sdk wheel's binary, ``claude`` on PATH."""
        from pytest_toolharness.wire.targets._claude_code import find_claude_binary

        return find_claude_binary()

    def target(self) -> Target:
        """A :class:`~pytest_toolharness.wire.targets._claude_code.ClaudeCodeTarget` on the binary found."""
        from pytest_toolharness.wire.targets._claude_code import ClaudeCodeTarget

        return ClaudeCodeTarget(self.find_binary())

    def baseline(self) -> Path | None:
        """``pytest_toolharness/baselines/claude-code.toml``."""
        return _BASELINES / "claude-code.toml"


def _required(profile: str, binary: Path | None, env_var: str, package: str) -> Path:
    if binary is None:
        raise FileNotFoundError(
            f"no {profile} binary: install it (npm install -g {package}), put it on PATH, or set {env_var}"
        )
    return binary


class OpencodeProfile:
    """opencode (npm ``opencode-ai``): its own ``opencode.json`` (provider, MCP, permission map)."""

    name: str = "opencode"
    description: str = "opencode CLI (npm opencode-ai), opencode run against the scripted API"
    claims: tuple[str, ...] = ("core",)
    capabilities: frozenset[str] = frozenset({"mcp", "read_tool", "shell_tool", "permission_rules"})

    names: ToolNames = OPENCODE_NAMES

    def find_binary(self) -> Path | None:
        """``$TOOLHARNESS_OPENCODE_BIN``, else ``opencode`` on PATH."""
        return find_on_path(OPENCODE_BIN_ENV, "opencode")

    def target(self) -> Target:
        """An :class:`~pytest_toolharness.wire.targets._opencode.OpencodeTarget` on the binary found."""
        return OpencodeTarget(_required("opencode", self.find_binary(), OPENCODE_BIN_ENV, "opencode-ai"))

    def baseline(self) -> Path | None:
        """``pytest_toolharness/baselines/opencode.toml``."""
        return _BASELINES / "opencode.toml"


class ClineProfile:
    """Cline (npm ``cline``): its own provider and MCP settings in a per-run data directory."""

    name: str = "cline"
    description: str = "Cline CLI (npm cline), cline --json against the scripted API"
    claims: tuple[str, ...] = ("core",)
    capabilities: frozenset[str] = frozenset({"mcp", "read_tool", "shell_tool"})

    names: ToolNames = CLINE_NAMES

    def find_binary(self) -> Path | None:
        """``$TOOLHARNESS_CLINE_BIN``, else ``cline`` on PATH."""
        return find_on_path(CLINE_BIN_ENV, "cline")

    def target(self) -> Target:
        """A :class:`~pytest_toolharness.wire.targets._cline.ClineTarget` on the binary found."""
        return ClineTarget(_required("cline", self.find_binary(), CLINE_BIN_ENV, "cline"))

    def baseline(self) -> Path | None:
        """``pytest_toolharness/baselines/cline.toml``."""
        return _BASELINES / "cline.toml"


class GeminiCliProfile:
    """The Gemini CLI (npm ``@google/gemini-cli``): its settings.json and policy-engine rules in a scratch home."""

    name: str = "gemini"
    description: str = "Gemini CLI (npm @google/gemini-cli), gemini -p against the scripted Gemini API"
    claims: tuple[str, ...] = ("core",)
    capabilities: frozenset[str] = frozenset(
        {
            "mcp",
            "read_tool",
            "shell_tool",
            "permission_rules",
            "permission_modes",
            "command_hooks",
            "settings_files",
            # the policy file takes each rule text literally, as the tool it names (literal_rules)
            "rule_texts",
        }
    )

    names: ToolNames = GEMINI_NAMES

    def find_binary(self) -> Path | None:
        """``$TOOLHARNESS_GEMINI_BIN``, else ``gemini`` on PATH."""
        return find_on_path(GEMINI_BIN_ENV, "gemini")

    def target(self) -> Target:
        """A :class:`~pytest_toolharness.wire.targets._gemini_cli.GeminiCliTarget` on the binary found."""
        return GeminiCliTarget(_required("gemini", self.find_binary(), GEMINI_BIN_ENV, "@google/gemini-cli"))

    def baseline(self) -> Path | None:
        """``pytest_toolharness/baselines/gemini.toml``."""
        return _BASELINES / "gemini.toml"


class CodexProfile:
    """The Codex CLI (npm ``@openai/codex``): its config.toml and execpolicy rules in a scratch ``CODEX_HOME``."""

    name: str = "codex"
    description: str = "Codex CLI (npm @openai/codex), codex exec against the scripted Responses API"
    claims: tuple[str, ...] = ("core",)
    capabilities: frozenset[str] = frozenset(
        {
            "mcp",
            "shell_tool",
            "permission_rules",
            "permission_modes",
            "command_hooks",
            "sandbox",
            "settings_files",
        }
    )

    names: ToolNames = CODEX_NAMES

    def find_binary(self) -> Path | None:
        """``$TOOLHARNESS_CODEX_BIN``, else ``codex`` on PATH."""
        return find_on_path(CODEX_BIN_ENV, "codex")

    def target(self) -> Target:
        """A :class:`~pytest_toolharness.wire.targets._codex.CodexTarget` on the binary found."""
        return CodexTarget(_required("codex", self.find_binary(), CODEX_BIN_ENV, "@openai/codex"))

    def baseline(self) -> Path | None:
        """``pytest_toolharness/baselines/codex.toml``."""
        return _BASELINES / "codex.toml"


#: The profiles shipped with the plugin (declared in the entry-point group as well).
BUILTIN_PROFILES: dict[str, Callable[[], TargetProfile]] = {
    "reference": ReferenceProfile,
    "claude-code": ClaudeCodeProfile,
    "opencode": OpencodeProfile,
    "cline": ClineProfile,
    "gemini": GeminiCliProfile,
    "codex": CodexProfile,
}


def _check(profile: object, where: str) -> TargetProfile:
    if not isinstance(profile, TargetProfile):
        raise TargetError(f"{where} is not a target profile (needs name, claims, capabilities, names, ...)")
    unknown = sorted(set(profile.capabilities) - set(PROFILE_CAPABILITIES))
    if unknown:
        raise TargetError(
            f"{where} declares unknown capabilities {unknown}; known: {sorted(PROFILE_CAPABILITIES)}"
        )
    return profile


def load_profiles() -> dict[str, Callable[[], TargetProfile]]:
    """Every profile by name: the built-ins, then the entry-point group's (a package may not shadow one)."""
    found: dict[str, Callable[[], TargetProfile]] = dict(BUILTIN_PROFILES)
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in BUILTIN_PROFILES and entry.value.startswith("pytest_toolharness."):
            continue  # the built-in's own declaration

        def make(entry: metadata.EntryPoint = entry) -> TargetProfile:
            try:
                factory = entry.load()
            except Exception as exc:  # a broken plugin: name it, don't crash the run with a traceback
                raise TargetError(
                    f"target profile {entry.name!r} ({entry.value}) can't be loaded: {exc}"
                ) from exc
            return _check(factory(), f"target profile {entry.name!r} ({entry.value})")

        if entry.name in found:
            raise TargetError(
                f"target profile {entry.name!r} is declared twice (entry point {entry.value} and another)"
            )
        found[entry.name] = make
    return found


def profile_named(name: str) -> TargetProfile | None:
    """The profile called ``name`` (surrounding spaces aside), or None when there is none."""
    factory = load_profiles().get(name.strip())
    return _check(factory(), f"target profile {name.strip()!r}") if factory is not None else None


def resolve_target(text: str, base: Path | None = None) -> Target:
    """The target of the profile named ``text``, or a :class:`CommandTarget` for anything else.

    ``base`` is the directory a relative program path in a command is resolved against (default:
    the current directory). A single word that names no profile is still taken as a command (a
    harness on ``PATH`` that reads ``TOOLHARNESS_*`` variables).
    """
    if not isinstance(text, str) or not text.strip():
        raise TargetError(
            f"--toolharness-target needs a target profile ({', '.join(load_profiles())}) or a command template"
        )
    try:
        profile = profile_named(text)
        if profile is not None:
            return profile.target()
    except ImportError as exc:
        raise TargetError(f"target {text.strip()!r} is not available: {exc}") from exc
    return CommandTarget(text, base)
