"""Command-line options and ini keys of the plugin, and the settings resolved from them.

Every command-line option has an ini key of the same meaning; the command line wins. Paths given on the
command line are relative to the invocation directory, paths in the ini file to the ini file's directory.

A target profile with known differences brings its own baseline (its ``baseline()``): with
``--toolharness-target=claude-code`` and no baseline given, the packaged
``pytest_toolharness/baselines/claude-code.toml`` is used. A baseline given on the command line or in
the ini file always wins.
"""

from __future__ import annotations

import enum
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = [
    "HEAVY_MARKER",
    "Isolation",
    "RunLevel",
    "Settings",
    "add_options",
    "default_baseline",
    "read_settings",
    "suite_directory",
]


HEAVY_MARKER = "toolharness_heavy"
"""Marks a test that takes seconds: under xdist it is dispatched before the other single tests, so
that it does not start last and end the run alone on one worker while the others wait."""


class RunLevel(enum.Enum):
    """Which requirement levels run and which failures fail the run."""

    MUST = "must"  # MUST requirements only
    SHOULD = "should"  # MUST and SHOULD; SHOULD failures are reported but don't fail the run
    STRICT = "strict"  # MUST and SHOULD; any failure fails the run


class Isolation(enum.Enum):
    """Where the suite's tests (and so the harness code) run."""

    AUTO = "auto"  # PROCESS for the packaged suite; NONE for toolharness_suite_path (the plugin's tests)
    PROCESS = "process"  # in a pytest-xdist worker: a crash or a hang takes only the worker down
    NONE = "none"  # in the pytest process itself (a crash ends the run without a report)


@dataclass(frozen=True)
class Settings:
    """The plugin's settings for one run."""

    conformance: bool
    adapter: str | None
    level: RunLevel
    requirements: tuple[str, ...]
    report: Path | None
    baseline: Path | None
    suite_path: Path | None
    target: str | None = None
    target_timeout: float = 60.0
    default_baseline: bool = False  # the baseline is the target's packaged one, not the user's
    target_env: tuple[tuple[str, str], ...] = ()  # NAME=VALUE pairs for every target run
    keep_workdirs: bool = False  # keep each wire scenario's working directory (and print where)
    test_timeout: float = 120.0  # seconds per test, setup to teardown, shrinking included; 0: none
    run_timeout: float = 1800.0  # seconds for the whole run; 0: none
    isolation: Isolation = Isolation.AUTO
    wire_examples: int = 12  # drawn wire scenarios per drawn test, at most
    wire_budget: float = 60.0  # seconds of drawing per drawn wire test (shrinking has its own bound)
    wire_replay: Path | None = None  # the file of failing drawn scenarios, replayed first


def add_options(parser: pytest.Parser) -> None:
    """Register the ``--toolharness-*`` options and their ini keys."""
    group = parser.getgroup("toolharness", "tool harness conformance suite")
    group.addoption(
        "--toolharness-conformance",
        action="store_true",
        default=None,
        help="Add the packaged conformance suite to the tests of this run (ini: toolharness_conformance).",
    )
    parser.addini(
        "toolharness_conformance",
        "Add the packaged conformance suite to every run.",
        type="bool",
        default=False,
    )
    group.addoption(
        "--toolharness-adapter",
        metavar="MODULE:FACTORY",
        default=None,
        help="Adapter factory the conformance suite runs against (ini: toolharness_adapter).",
    )
    parser.addini("toolharness_adapter", "Adapter factory as 'package.module:factory'.", default="")
    group.addoption(
        "--toolharness-agent",
        metavar="MODULE:FACTORY",
        default=None,
        help="Your own agent for a framework adapter (pydantic-ai, LangGraph): factory(model, tools) "
        "(ini: toolharness_agent).",
    )
    parser.addini(
        "toolharness_agent", "Agent factory for a framework adapter, 'package.module:factory'.", default=""
    )
    group.addoption(
        "--toolharness-level",
        choices=[level.value for level in RunLevel],
        default=None,
        help="must: MUST requirements only; should (default): MUST and SHOULD, SHOULD failures reported "
        "but not failing the run; strict: SHOULD failures fail the run too (ini: toolharness_level).",
    )
    parser.addini("toolharness_level", "must, should (default) or strict.", default=RunLevel.SHOULD.value)
    group.addoption(
        "--toolharness-requirement",
        action="append",
        metavar="ID_OR_AREA",
        default=None,
        help="Run only the tests of this requirement ID (PAIR-1) or area (PAIR); repeatable "
        "(ini: toolharness_requirements).",
    )
    parser.addini(
        "toolharness_requirements", "Requirement IDs or areas to run (default: all).", type="args", default=[]
    )
    group.addoption(
        "--toolharness-report",
        metavar="PATH",
        default=None,
        help="Write the per-requirement report as JSON to PATH (ini: toolharness_report).",
    )
    parser.addini("toolharness_report", "Path of the JSON requirement report.", default="")
    group.addoption(
        "--toolharness-baseline",
        metavar="PATH",
        default=None,
        help="TOML or JSON file of expected failures (id + reason) (ini: toolharness_baseline).",
    )
    parser.addini("toolharness_baseline", "Path of the expected-failures baseline file.", default="")
    group.addoption(
        "--toolharness-target",
        metavar="NAME_OR_COMMAND",
        default=None,
        help="Check a harness from outside, over the wire: 'reference', 'claude-code', or a command "
        "template with {prompt} {settings} {mcp_config} {workdir}; only the wire tests run "
        "(ini: toolharness_target).",
    )
    parser.addini("toolharness_target", "Target harness for the wire suite (name or command).", default="")
    group.addoption(
        "--toolharness-target-timeout",
        metavar="SECONDS",
        type=float,
        default=None,
        help="Seconds a wire scenario may go without progress (a request, an MCP call, a hook) before "
        "the target is killed as hung; a run still progressing may take twice that (default 60; "
        "ini: toolharness_target_timeout).",
    )
    parser.addini(
        "toolharness_target_timeout", "Seconds a wire scenario run may go without progress.", default="60"
    )
    group.addoption(
        "--toolharness-target-env",
        metavar="NAME=VALUE",
        action="append",
        default=None,
        help="An environment variable for the target (repeatable); the target's environment is "
        "otherwise clean (ini: toolharness_target_env, one NAME=VALUE a line).",
    )
    parser.addini(
        "toolharness_target_env", "Environment variables for the target, NAME=VALUE a line.", type="linelist"
    )
    group.addoption(
        "--toolharness-keep-workdirs",
        action="store_true",
        default=None,
        help="Keep each wire scenario's working directory (settings, MCP config, logs, every recorded "
        "request body under requests/) and print where (ini: toolharness_keep_workdirs).",
    )
    parser.addini(
        "toolharness_keep_workdirs",
        "Keep the wire scenarios' working directories.",
        type="bool",
        default=False,
    )
    group.addoption(
        "--toolharness-test-timeout",
        metavar="SECONDS",
        type=float,
        default=None,
        help="Seconds one suite test may take, setup to teardown, Hypothesis's shrinking included, "
        "before it is stopped and reported as hung (default 120; 0: no limit; ini: toolharness_test_timeout).",
    )
    parser.addini("toolharness_test_timeout", "Seconds per suite test (0: no limit).", default="120")
    group.addoption(
        "--toolharness-run-timeout",
        metavar="SECONDS",
        type=float,
        default=None,
        help="Seconds the whole run may take before it is interrupted; the report lists what ran "
        "(default 1800; 0: no limit; ini: toolharness_run_timeout).",
    )
    parser.addini("toolharness_run_timeout", "Seconds for the whole run (0: no limit).", default="1800")
    group.addoption(
        "--toolharness-isolation",
        choices=[i.value for i in Isolation],
        default=None,
        help="process: the suite runs in a pytest-xdist worker, so a harness that crashes or hangs takes "
        "only the worker down; none: in this process; auto (default): process for the packaged suite "
        "(ini: toolharness_isolation).",
    )
    parser.addini("toolharness_isolation", "auto (default), process or none.", default=Isolation.AUTO.value)
    group.addoption(
        "--toolharness-wire-examples",
        metavar="N",
        type=int,
        default=None,
        help="At most N scenarios drawn by Hypothesis per drawn wire test and target (default 12; "
        "ini: toolharness_wire_examples).",
    )
    parser.addini(
        "toolharness_wire_examples", "Drawn wire scenarios per drawn wire test, at most.", default="12"
    )
    group.addoption(
        "--toolharness-wire-budget",
        metavar="SECONDS",
        type=float,
        default=None,
        help="Seconds of drawing per drawn wire test; past it no new scenario is run (default 60, at "
        "most half the test timeout; ini: toolharness_wire_budget).",
    )
    parser.addini("toolharness_wire_budget", "Seconds of drawing per drawn wire test.", default="60")
    group.addoption(
        "--toolharness-wire-replay",
        metavar="PATH",
        default=None,
        help="JSON-lines file of failing drawn wire scenarios: run first, and each new failure is "
        "added (default: the pytest cache; commit the file for CI; ini: toolharness_wire_replay).",
    )
    parser.addini(
        "toolharness_wire_replay", "File of failing drawn wire scenarios, replayed first.", default=""
    )
    # No command-line option on purpose: this exists so the plugin's own tests can run a fake suite.
    parser.addini(
        "toolharness_suite_path",
        "For testing the plugin: directory used instead of the packaged conformance suite.",
        default="",
    )


def _ini_path(config: pytest.Config, value: str) -> Path | None:
    if not value:
        return None
    base = config.inipath.parent if config.inipath is not None else config.rootpath
    return base / value


def _cli_path(config: pytest.Config, value: str | None) -> Path | None:
    if not value:
        return None
    return config.invocation_params.dir / value


def default_baseline(target: str | None) -> Path | None:
    """The baseline target profile ``target`` ships, or None when it has none.

    Only an exact profile name counts (surrounding spaces aside): a command template never gets a
    baseline it did not ask for. A packaged baseline that is missing (a broken install) is a usage
    error naming the file, not a silent run without it.
    """
    if target is None or not target.strip():
        return None
    from pytest_toolharness.wire.targets import TargetError, profile_named

    try:
        profile = profile_named(target)
    except TargetError as exc:
        raise pytest.UsageError(f"--toolharness-target {target.strip()!r}: {exc}") from None
    path = profile.baseline() if profile is not None else None
    if path is None:
        return None
    if not path.is_file():
        raise pytest.UsageError(
            f"the packaged baseline of target {target.strip()!r} is missing: {path} "
            "(reinstall pytest-toolharness, or give --toolharness-baseline)"
        )
    return path


def read_settings(config: pytest.Config) -> Settings:
    """Resolve the settings: command line first, then the ini key, then the default."""
    conformance = config.getoption("toolharness_conformance")
    if conformance is None:
        conformance = bool(config.getini("toolharness_conformance"))
    adapter = config.getoption("toolharness_adapter") or str(config.getini("toolharness_adapter")) or None
    level_text = config.getoption("toolharness_level") or str(config.getini("toolharness_level"))
    try:
        level = RunLevel(level_text.strip().lower())
    except ValueError:
        raise pytest.UsageError(
            f"toolharness_level = {level_text!r} is not one of: {', '.join(r.value for r in RunLevel)}"
        ) from None
    requirements = config.getoption("toolharness_requirement")
    if requirements is None:
        requirements = list(config.getini("toolharness_requirements"))
    report = _cli_path(config, config.getoption("toolharness_report")) or _ini_path(
        config, str(config.getini("toolharness_report"))
    )
    baseline = _cli_path(config, config.getoption("toolharness_baseline")) or _ini_path(
        config, str(config.getini("toolharness_baseline"))
    )
    if config.getoption("toolharness_adapter") and config.getoption("toolharness_target"):
        raise pytest.UsageError(
            "--toolharness-adapter and --toolharness-target both name the harness under test; give one"
        )
    target = config.getoption("toolharness_target") or str(config.getini("toolharness_target")) or None
    timeout = config.getoption("toolharness_target_timeout")
    if timeout is None:
        try:
            timeout = float(str(config.getini("toolharness_target_timeout")))
        except ValueError:
            raise pytest.UsageError(
                f"toolharness_target_timeout = {config.getini('toolharness_target_timeout')!r} is not a number"
            ) from None
    if not timeout > 0:
        raise pytest.UsageError(f"--toolharness-target-timeout must be > 0 seconds, got {timeout}")
    packaged = default_baseline(target) if baseline is None else None
    if target is not None:
        _check_command(target, config.invocation_params.dir)
    keep = config.getoption("toolharness_keep_workdirs")
    if keep is None:
        keep = bool(config.getini("toolharness_keep_workdirs"))
    isolation_text = config.getoption("toolharness_isolation") or str(config.getini("toolharness_isolation"))
    try:
        isolation = Isolation(isolation_text.strip().lower())
    except ValueError:
        raise pytest.UsageError(
            f"toolharness_isolation = {isolation_text!r} is not one of: {', '.join(i.value for i in Isolation)}"
        ) from None
    return Settings(
        conformance=bool(conformance),
        adapter=adapter,
        level=level,
        requirements=tuple(requirements),
        report=report,
        baseline=baseline or packaged,
        suite_path=_ini_path(config, str(config.getini("toolharness_suite_path"))),
        target=target,
        target_timeout=float(timeout),
        default_baseline=packaged is not None,
        target_env=_target_env(config),
        keep_workdirs=bool(keep),
        test_timeout=_seconds(config, "toolharness_test_timeout"),
        run_timeout=_seconds(config, "toolharness_run_timeout"),
        isolation=isolation,
        wire_examples=_wire_examples(config),
        wire_budget=_seconds(config, "toolharness_wire_budget"),
        wire_replay=_cli_path(config, config.getoption("toolharness_wire_replay"))
        or _ini_path(config, str(config.getini("toolharness_wire_replay"))),
    )


def _wire_examples(config: pytest.Config) -> int:
    """``--toolharness-wire-examples`` or its ini key: a count >= 1."""
    value = config.getoption("toolharness_wire_examples")
    if value is None:
        text = str(config.getini("toolharness_wire_examples")).strip()
        try:
            value = int(text)
        except ValueError:
            raise pytest.UsageError(f"toolharness_wire_examples = {text!r} is not a whole number") from None
    if value < 1:
        raise pytest.UsageError(f"--toolharness-wire-examples must be >= 1, got {value}")
    return int(value)


def _check_command(target: str, base: Path) -> None:
    """A usage error for a command template that can't be used (an unknown placeholder, bad quoting)."""
    from pytest_toolharness.wire.targets import CommandTarget, TargetError, profile_named

    try:
        if profile_named(target) is None:
            CommandTarget(target, base)
    except TargetError as exc:
        raise pytest.UsageError(f"--toolharness-target: {exc}") from None


def _target_env(config: pytest.Config) -> tuple[tuple[str, str], ...]:
    """``--toolharness-target-env`` (or the ini key's lines) as (name, value) pairs; a usage error if malformed."""
    given = config.getoption("toolharness_target_env")
    items = [str(line) for line in (given if given is not None else config.getini("toolharness_target_env"))]
    if not items:
        return ()  # the wire package is imported only when it is needed
    from pytest_toolharness.wire.targets import check_target_env

    pairs: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise pytest.UsageError(f"--toolharness-target-env {item!r} is not NAME=VALUE")
        pairs[name] = value
    try:
        check_target_env(pairs)
    except ValueError as exc:
        raise pytest.UsageError(f"--toolharness-target-env: {exc}") from None
    return tuple(pairs.items())


def _seconds(config: pytest.Config, name: str) -> float:
    """A budget in seconds from option ``name`` or its ini key: >= 0, where 0 means no limit."""
    value = config.getoption(name)
    if value is None:
        text = str(config.getini(name)).strip()
        try:
            value = float(text)
        except ValueError:
            raise pytest.UsageError(f"{name} = {text!r} is not a number of seconds") from None
    if not value >= 0:
        raise pytest.UsageError(f"--{name.replace('_', '-')} must be >= 0 seconds (0: no limit), got {value}")
    return float(value)


def suite_directory(settings: Settings) -> Path:
    """The directory of the conformance suite: the packaged ``conformance`` package, or the override."""
    if settings.suite_path is not None:
        if not settings.suite_path.is_dir():
            raise pytest.UsageError(f"toolharness_suite_path {str(settings.suite_path)!r} is not a directory")
        return settings.suite_path.resolve()
    spec = importlib.util.find_spec("conformance")
    if spec is None or not spec.submodule_search_locations:
        raise pytest.UsageError("the conformance suite package 'conformance' is not installed")
    return Path(next(iter(spec.submodule_search_locations))).resolve()
