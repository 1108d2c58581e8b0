"""Artefact: wire checks passed when the behaviour under test never happened.

A harness that never starts the MCP server, runs no hook and answers every tool_use with an error
(without running anything) gets well-formed, paired, non-empty error results. The wire suite must
report the requirements whose behaviour it never exercised as "not checked", never as passed.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from tests._wire_suite import run_wire_suite

# A real program on a real socket: a loop that offers the pairing scenario's tool names, then
# answers each tool_use with an error result without running it, until the model stops.
LIAR = textwrap.dedent(
    """
    import json, os, urllib.request

    url = os.environ["ANTHROPIC_BASE_URL"].rstrip("/") + "/v1/messages"
    tools = [
        {"name": name, "description": "A tool.", "input_schema": {"type": "object", "properties": {}}}
        for name in ("Read", "Bash", "Write", "mcp__suite__echo", "mcp__suite__fail", "mcp__suite__empty",
                     "mcp__suite__guarded", "mcp__suite__big", "mcp__suite__notes",
                     "mcp__suite__weather", "mcp__suite__slow", "mcp__suite__fast", "ToolSearch",
                     "mcp__suite__g_ask", "mcp__suite__g_free", "mcp__suite__g_hookdeny",
                     "mcp__suite__g_exit2", "mcp__suite__g_rewrite", "mcp__suite__m_unruled")
    ]
    messages = [{"role": "user", "content": os.environ["TOOLHARNESS_PROMPT"]}]
    for _ in range(10):
        body = {"model": "m", "max_tokens": 100, "messages": messages, "tools": tools}
        request = urllib.request.Request(
            url, json.dumps(body).encode(), {"content-type": "application/json", "x-api-key": "x"}
        )
        answer = json.load(urllib.request.urlopen(request))
        messages.append({"role": "assistant", "content": answer["content"]})
        uses = [b for b in answer["content"] if b["type"] == "tool_use"]
        if not uses:
            break
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b["id"], "content": "it failed", "is_error": True}
            for b in uses
        ]})
    """
)


def test_unexercised_behaviour_is_not_checked(tmp_path: Path) -> None:
    liar = tmp_path / "liar.py"
    liar.write_text(LIAR, encoding="utf-8")
    done, rows = run_wire_suite(f"{sys.executable} {liar}", tmp_path / "report.json", timeout=300)
    assert rows, done.stdout[-3000:] + done.stderr[-3000:]
    # Paired, non-empty error results: these hold for what the liar sent and are really checked.
    assert rows["PAIR-1"]["status"] == "passed", rows["PAIR-1"]
    # The MCP tools never ran, the hook never ran, nothing oversized was produced: not checked.
    # Nor did any hook: the security requirements are not checked either, never passed.
    for requirement in (
        *("PAIR-2", "PAIR-3", "PAIR-4", "RESULT-1", "CACHE-2", "DEFER-3", "DEFER-8"),
        *(
            "PERM-1",
            "PERM-2",
            "PERM-3",
            "HOOK-3",
            "HOOK-7",
            "EXEC-1",
            "EXEC-2",
            "EXEC-5",
            "PERM-7",
            "PERM-9",
            "PERM-10",
        ),
        # The whole-run judgements: no control ran, no file was written, no hook or search ran.
        *("PERM-4", "PERM-11", "PERM-12", "PERM-15", "PERM-16", "PERM-17", "CONC-4", "RESULT-2", "RESULT-3"),
        *("HOOK-8", "DEFER-5", "SBX-1", "SBX-2", "SBX-4", "SBX-5", "SBX-6"),
    ):
        assert rows[requirement]["status"] == "not checked", (
            requirement,
            rows[requirement],
            done.stdout[-3000:],
        )
    assert "the failing MCP tool (fail) never ran" in rows["PAIR-3"]["reason"], rows["PAIR-3"]
