"""The ``toolharness`` console command: ``toolharness check`` runs the conformance suite and prints the report.

For projects without a ``conftest.py``: it runs pytest (in a fresh interpreter) on the packaged
``conformance`` suite only, with the plugin's options, and exits with pytest's exit status. Arguments
after ``--`` go to pytest unchanged.

The suite is named as a package (``--pyargs conformance``), not by its path: pytest then looks for
its configuration from the current directory, as for any run, so the project's ``toolharness_adapter``
(and other ``toolharness_*`` keys) apply wherever the suite is installed.

The project's other pytest configuration does not reach the suite: its ``addopts`` (and
``PYTEST_ADDOPTS``, ``PYTEST_PLUGINS``) are dropped, and every installed ``pytest11`` plugin other than
the ones the suite runs on (:data:`SUITE_PLUGINS`) is blocked with ``-p no:<name>``, so a ``--maxfail=1``,
a ``--deselect`` or a plugin that rewrites outcomes cannot change a verdict (:func:`isolated_env`,
:func:`host_plugin_blocks`). Its warning filters are overridden per test by the plugin.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_toolharness._options import RunLevel

__all__ = ["SUITE_PLUGINS", "build_pytest_args", "host_plugin_blocks", "isolated_env", "main"]

SUITE_PLUGINS = frozenset({"pytest-toolharness", "hypothesis", "pytest-xdist", "syrupy"})
"""The distributions whose ``pytest11`` plugins the suite's run keeps; every other one is blocked."""

_HOST_ENV = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")
"""Environment variables by which the host's pytest configuration would reach the suite's run."""


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def host_plugin_blocks() -> list[str]:
    """``-p no:<name>`` for every installed ``pytest11`` plugin not of :data:`SUITE_PLUGINS`, sorted."""
    keep = {_normalized(name) for name in SUITE_PLUGINS}
    blocked: set[str] = set()
    for entry in importlib.metadata.entry_points(group="pytest11"):
        dist = entry.dist
        if dist is None or _normalized(dist.metadata["Name"] or "") not in keep:
            blocked.add(entry.name)
    return [arg for name in sorted(blocked) for arg in ("-p", f"no:{name}")]


def isolated_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of the suite's run: this one without :data:`_HOST_ENV`."""
    source = os.environ if environ is None else environ
    return {key: value for key, value in source.items() if key not in _HOST_ENV}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolharness", description="Tool harness conformance suite.")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser(
        "check",
        help="run the conformance suite against an adapter and print the per-requirement report",
        description="Run the conformance suite against an adapter. Arguments after '--' go to pytest.",
    )
    check.add_argument(
        "--adapter", metavar="MODULE:FACTORY", help="adapter factory (default: the reference harness)"
    )
    check.add_argument(
        "--target",
        metavar="NAME_OR_COMMAND",
        help="check a harness over the wire instead: a target profile ('reference', 'claude-code', "
        "'opencode', 'cline', 'gemini', 'codex', or a package's) or a command template with {prompt} {settings} "
        "{mcp_config} {workdir} (only the wire tests run)",
    )
    check.add_argument(
        "--target-timeout",
        metavar="SECONDS",
        help="seconds a wire scenario may go without progress before the target is killed as hung",
    )
    check.add_argument(
        "--target-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an environment variable for the target (repeatable)",
    )
    check.add_argument(
        "--keep-workdirs",
        action="store_true",
        help="keep each wire scenario's working directory with the recorded request bodies",
    )
    check.add_argument("--report", metavar="PATH", help="also write the report as JSON to PATH")
    check.add_argument(
        "--level", choices=[level.value for level in RunLevel], help="must, should (default), strict"
    )
    check.add_argument(
        "--requirement",
        action="append",
        default=[],
        metavar="ID_OR_AREA",
        help="only this ID or area (repeatable)",
    )
    check.add_argument("--baseline", metavar="PATH", help="TOML or JSON file of expected failures")
    check.add_argument(
        "-n", dest="workers", metavar="N", help="run in N processes (needs pytest-xdist; 'auto' works)"
    )
    # For testing the plugin and the command: run another directory as the suite.
    check.add_argument("--suite-path", metavar="DIR", help=argparse.SUPPRESS)
    return parser


def _packaged_suite() -> Path:
    spec = importlib.util.find_spec("conformance")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("toolharness: the conformance suite package 'conformance' is not installed")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def build_pytest_args(options: argparse.Namespace, extra: Sequence[str]) -> list[str]:
    """The pytest command line for ``toolharness check``."""
    # The suite is the only test path, so the user's own tests don't run; no cache directory is
    # written, because the root directory may be inside site-packages. The host's addopts and its
    # unrelated plugins are left out (the module docstring).
    isolation = ["-p", "no:cacheprovider", "-o", "addopts=", *host_plugin_blocks()]
    if options.suite_path:
        suite = Path(options.suite_path).resolve()
        args = [str(suite), "--toolharness-conformance", *isolation]
        args += ["-o", f"toolharness_suite_path={suite}"]
    else:
        _packaged_suite()  # fail early, and clearly, when it is not installed
        args = ["--pyargs", "conformance", "--toolharness-conformance", *isolation]
    if options.adapter:
        args.append(f"--toolharness-adapter={options.adapter}")
    target = getattr(options, "target", None)
    target_timeout = getattr(options, "target_timeout", None)
    if options.adapter and target:
        raise SystemExit("toolharness: --adapter and --target both name the harness under test; give one")
    if target:
        args.append(f"--toolharness-target={target}")
    if target_timeout:
        args.append(f"--toolharness-target-timeout={target_timeout}")
    args += [f"--toolharness-target-env={item}" for item in getattr(options, "target_env", [])]
    if getattr(options, "keep_workdirs", False):
        args.append("--toolharness-keep-workdirs")
    if options.report:
        args.append(f"--toolharness-report={options.report}")
    if options.level:
        args.append(f"--toolharness-level={options.level}")
    args += [f"--toolharness-requirement={r}" for r in options.requirement]
    if options.baseline:
        args.append(f"--toolharness-baseline={options.baseline}")
    if options.workers:
        if importlib.util.find_spec("xdist") is None:
            raise SystemExit("toolharness: -n needs pytest-xdist (pip install pytest-xdist)")
        args += ["-n", str(options.workers)]
    return args + list(extra)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``toolharness`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        split = argv.index("--")
        argv, extra = argv[:split], argv[split + 1 :]
    options = _parser().parse_args(argv)
    # A fresh interpreter: this process has already imported the plugin, which pytest must be
    # the first to import (to rewrite its assertions), and the run must not share our state.
    command = [sys.executable, "-m", "pytest", *build_pytest_args(options, extra)]
    return subprocess.run(command, check=False, env=isolated_env()).returncode


if __name__ == "__main__":
    raise SystemExit(main())
