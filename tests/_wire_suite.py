"""Running the wire conformance suite (``conformance/test_wire*.py``) against a target, in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def run_wire_suite(
    target: str, report: Path, *options: str, timeout: float = 600
) -> tuple[subprocess.CompletedProcess[str], dict[str, dict[str, Any]]]:
    """Run the wire suite against ``target`` with ``options``; the process and its report's rows by id.

    The rows are empty when no report was written (the run's output then says why).
    """
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "--toolharness-conformance", f"--toolharness-target={target}"),
            f"--toolharness-report={report}",
            *options,
            *(
                "-p",
                "no:cacheprovider",
                "-q",
                "conformance/test_wire.py",
                "conformance/test_wire_security.py",
                "conformance/test_wire_rules.py",
            ),
        ],
        cwd=REPO,
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    rows = json.loads(report.read_text())["requirements"] if report.exists() else []
    return done, {row["id"]: row for row in rows}
