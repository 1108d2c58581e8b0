"""Execution: running tool_use blocks, each through the pipeline and a batch on the streaming scheduler.

One tool_use goes through the pipeline (``_pipeline``) with the session's ``ExecutionContext``
(``_context``): its input checked (``_input_checks``), an ask settled (``_asks``); batches run on the
streaming scheduler (``_scheduler``), and result budgets and persistence are ``_results``.

The pipeline calls the permission engine and the hook runner; neither calls back.
"""

from __future__ import annotations

from reference_impl.execution._context import DecisionLog, ExecutionContext
from reference_impl.execution._pipeline import (
    BatchResult,
    finish_batch,
    new_batch_executor,
    run_tool_use,
    run_tool_uses,
)
from reference_impl.execution._results import (
    MAX_TOOL_RESULTS_PER_MESSAGE_CHARS,
    PERSISTED_OUTPUT_TAG,
    ContentReplacementState,
    apply_message_budget,
    content_size,
    format_size,
    is_exempt_content,
    is_result_content_empty,
    map_tool_output,
    maybe_persist_large_result,
    rebuild_replacement_state,
    utf8_prefix,
)
from reference_impl.execution._scheduler import (
    CallControl,
    DuplicateToolUseIdError,
    RunOne,
    StreamingToolExecutor,
    ToolRunOutcome,
    synthetic_error_result,
)

__all__ = [
    "MAX_TOOL_RESULTS_PER_MESSAGE_CHARS",
    "PERSISTED_OUTPUT_TAG",
    "BatchResult",
    "CallControl",
    "ContentReplacementState",
    "DecisionLog",
    "DuplicateToolUseIdError",
    "ExecutionContext",
    "RunOne",
    "StreamingToolExecutor",
    "ToolRunOutcome",
    "apply_message_budget",
    "content_size",
    "finish_batch",
    "format_size",
    "is_exempt_content",
    "is_result_content_empty",
    "map_tool_output",
    "maybe_persist_large_result",
    "new_batch_executor",
    "rebuild_replacement_state",
    "run_tool_use",
    "run_tool_uses",
    "synthetic_error_result",
    "utf8_prefix",
]
