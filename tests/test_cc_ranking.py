"""The default ToolSearch ranking against the real Claude Code CLI's, on 45 keyword queries of our own.

One offline CLI run (see benchmarks/_cc_agreement_bench.py) answers every query; the reference's
seed ranking runs over the very tools the CLI deferred, as it sent them. Where the two differ, the
difference must be one docs/toolsearch-agreement.md explains, query by query.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks._cc_agreement_bench import (
    MCP_TOOLS,
    QUERIES,
    Agreement,
    claude_code_mcp_ranking,
    measure_agreement,
)
from pytest_toolharness.wire.targets._claude_code import find_claude_binary

DOC = Path(__file__).resolve().parents[1] / "docs" / "toolsearch-agreement.md"


@pytest.fixture(scope="module")
def agreement(tmp_path_factory: pytest.TempPathFactory) -> Agreement:
    try:
        binary = find_claude_binary()
    except FileNotFoundError as error:
        pytest.skip(str(error))
    if binary is None:
        pytest.skip("no Claude Code binary: install the test extra (claude-agent-sdk)")
    return measure_agreement(binary, tmp_path_factory.mktemp("cc-ranking") / "run")


def _mcp(names: list[str]) -> list[str]:
    return [name for name in names if name.startswith("mcp__")]


def _documented() -> dict[str, str]:
    """query -> cause, from the doc's disagreement table (rows ``| `query` | cause | ...``)."""
    rows = re.findall(r"^\| `([^`]+)` \| ([a-z-]+) \|", DOC.read_text(encoding="utf-8"), re.MULTILINE)
    return dict(rows)


def test_the_cli_answers_every_query(agreement: Agreement) -> None:
    assert len(QUERIES) >= 40
    unanswered = [q for q in QUERIES if q not in agreement.cli]
    assert not unanswered, f"the CLI sent no ToolSearch result for {unanswered}"
    served = {f"mcp__suite__{name}" for name in MCP_TOOLS}
    assert served <= {str(t["name"]) for t in agreement.deferred}, "the CLI did not defer every MCP tool"
    # The queries reach both kinds of tool: the comparison is not only about MCP tools.
    found = {name for q in QUERIES for name in agreement.cli[q]}
    assert found & served, found
    assert found - served, found


def test_on_mcp_tools_the_rankings_agree(agreement: Agreement) -> None:
    """Restricted to MCP tools (every input of their score is on the wire) the two orders agree.

    The CLI's five results also hold built-ins, so fewer MCP names fit: one MCP list is a prefix of
    the other.
    """
    differ = {}
    for q in QUERIES:
        cli, ref = _mcp(agreement.cli[q]), _mcp(agreement.reference[q])
        if ref[: len(cli)] != cli and cli[: len(ref)] != ref:
            differ[q] = (cli, ref)
    assert not differ, differ


def test_the_clis_formula_reproduces_its_mcp_ranking(agreement: Agreement) -> None:
    """The scoring documented in docs/toolsearch-agreement.md is the one the CLI runs (on MCP tools)."""
    differ = {}
    for q in QUERIES:
        cli = _mcp(agreement.cli[q])
        replica = claude_code_mcp_ranking(q, agreement.deferred)
        if replica[: len(cli)] != cli:
            differ[q] = (cli, replica)
    assert not differ, differ


def test_every_disagreement_is_explained(agreement: Agreement) -> None:
    """Each query where the orders differ is in the doc's table, and the table holds no stale row."""
    disagreements = agreement.disagreements()
    documented = _documented()
    undocumented = sorted(set(disagreements) - set(documented))
    stale = sorted(set(documented) - set(disagreements))
    assert not undocumented, {q: disagreements[q] for q in undocumented}
    assert not stale, f"documented disagreements that agree now: {stale}"
    for q, (cli, ref) in disagreements.items():
        # The one cause left once MCP tools agree: a built-in's hint and pre-loading prompt.
        builtins = {n for n in cli + ref if not n.startswith("mcp__")}
        assert builtins, f"{q!r}: a disagreement among MCP tools only: {cli} vs {ref}"
        assert documented[q] == "builtin-hint", (q, documented[q])
