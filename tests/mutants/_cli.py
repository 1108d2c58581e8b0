"""The reference CLI with a mutant's defect: ``python -m tests.mutants._cli MUTANT_MODULE -p ...``.

The wire checks run the reference harness as a process of its own (``python -m reference_impl``),
where a patch made in the suite's process does not reach. This entry applies the mutant's patches
first, then runs the CLI as ``-m reference_impl`` would: a defect on the CLI's path (its agent loop,
request building, MCP client) is then judged over the wire too.
"""

from __future__ import annotations

import importlib
import runpy
import sys


def main() -> None:
    """Apply the patches of the mutant module named by the first argument, then run the CLI."""
    mutant = importlib.import_module(sys.argv[1])
    for patch in mutant.adapter.patches:
        patch.apply_in_cli()
    sys.argv = [sys.argv[0], *sys.argv[2:]]
    runpy.run_module("reference_impl", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
