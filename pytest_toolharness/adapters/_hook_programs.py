"""Real command hooks for the suite's :class:`~pytest_toolharness.adapters.HookSpec`.

A command hook is a program the harness runs with the hook input as JSON on stdin; it answers on
stdout (JSON), stderr and its exit status. :func:`hook_command` writes a small Python program that
answers as the spec says and returns the shell command that runs it, so that an adapter only has to
install that command in its harness's own hook configuration::

    if runs_as_command(spec):
        my_hooks.add(spec.event, spec.matcher, command=hook_command(spec, workdir / "hooks", index))

Some outcomes (``exit2``, ``exit1``, ``garbage``) only exist for command hooks; :func:`runs_as_command`
says whether a spec must be installed as one (``as_command=True`` or such an outcome).
"""

from __future__ import annotations

import dataclasses
import json
import shlex
from pathlib import Path

from pytest_toolharness.processes import HOOK_PYTHON
from pytest_toolharness.specs import HookSpec

__all__ = [
    "COMMAND_ONLY_OUTCOMES",
    "STDOUT_BESIDE_STATUS_REASON",
    "hook_command",
    "hook_program",
    "runs_as_command",
]

COMMAND_ONLY_OUTCOMES = frozenset({"exit2", "exit1", "garbage", "plain_text"})
"""Outcomes that only a command hook can produce (an exit status, output that is not JSON)."""


STDOUT_BESIDE_STATUS_REASON = "reason on stdout beside a non-zero status"
"""The reason in the JSON a hook with ``stdout_outcome`` prints: a harness that shows it read stdout."""


def runs_as_command(spec: HookSpec) -> bool:
    """Whether ``spec`` must be installed as a command hook rather than an in-process callback."""
    return spec.as_command or spec.outcome in COMMAND_ONLY_OUTCOMES


def hook_program(spec: HookSpec, *, log: Path | None = None) -> str:
    """The source of a Python program that reads the hook input and answers as ``spec`` says.

    With ``log``, the program first appends the input it read to that file, one JSON object a line
    (the hook log of a loop scenario: proof that the event fired, whatever the hook answers).

    ``exit2`` / ``exit1`` write ``spec.reason`` to stderr (after the JSON of ``spec.stdout_outcome`` on stdout,
    if set) and exit with status 2 / ``spec.exit_code``; ``garbage`` prints
    text that is not JSON, ``plain_text`` its ``context`` as plain text; ``crash`` raises; ``hang`` sleeps for an hour; ``block_once`` blocks unless
    its input says ``stop_hook_active`` (:meth:`HookSpec.output_for`); every other outcome prints
    :meth:`HookSpec.output_json` and exits 0.
    """
    lines = ["import json, sys, time", "raw = sys.stdin.read()"]
    if log is not None:
        lines += [
            f"with open({str(log)!r}, 'a', encoding='utf-8') as log:",
            "    log.write(json.dumps(json.loads(raw)) + '\\n')",
        ]
    output = spec.output_json()
    if spec.stdout_outcome is not None:
        # A JSON answer beside a non-zero status: the harness must not read it (HOOK-3).
        beside = dataclasses.replace(
            spec, outcome=spec.stdout_outcome, stdout_outcome=None, reason=STDOUT_BESIDE_STATUS_REASON
        ).output_json()
        lines += [f"sys.stdout.write({json.dumps(beside)!r})"]
    if spec.outcome == "exit2":
        lines += [f"sys.stderr.write({spec.reason!r})", "sys.exit(2)"]
    elif spec.outcome == "exit1":
        lines += [f"sys.stderr.write({spec.reason!r})", f"sys.exit({spec.exit_code})"]
    elif spec.outcome == "garbage":
        lines += ["sys.stdout.write('}{ not json at all')"]
    elif spec.outcome == "plain_text":
        lines += [f"sys.stdout.write({spec.context!r})"]
    elif spec.outcome == "crash":
        lines += ["raise RuntimeError('scripted hook crash')"]
    elif spec.outcome == "hang":
        lines += ["time.sleep(3600)"]
    elif spec.outcome == "block_once":
        # The loop guard of a Stop hook: once the harness says stop_hook_active, let it stop.
        lines += [
            "if not json.loads(raw or '{}').get('stop_hook_active'):",
            f"    sys.stdout.write({json.dumps(output)!r})",
        ]
    elif output is not None:
        lines += [f"sys.stdout.write({json.dumps(output)!r})"]
    return "\n".join(lines) + "\n"


def hook_command(spec: HookSpec, directory: Path, index: int, *, log: Path | None = None) -> str:
    """Write ``spec``'s hook program into ``directory`` (created) and return the command that runs it.

    ``index`` tells apart several hooks of one scenario (the file is
    ``hook_<index>_<event>_<outcome>.py``). The command is this interpreter running the file, quoted
    for a POSIX shell (:data:`HOOK_PYTHON`). ``log``: see :func:`hook_program`.
    """
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / f"hook_{index}_{spec.event}_{spec.outcome}.py"
    script.write_text(hook_program(spec, log=log), encoding="utf-8")
    return f"{HOOK_PYTHON} {shlex.quote(str(script))}"
