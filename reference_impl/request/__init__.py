"""Building one Messages API request: the transcript, the schema cache, cache keys, notices and discovery."""

from __future__ import annotations

from reference_impl.request._builder import (
    BuiltRequest,
    NoticeMechanism,
    RequestBuilder,
    RequestRuleError,
    check_request_rules,
)
from reference_impl.request._cache_keys import (
    ADVANCED_TOOL_USE_BETA,
    EPHEMERAL,
    TOOL_SEARCH_TOOL_BETA,
    BetaLatch,
    Provider,
    cache_break_hash,
    place_message_cache_marker,
    tool_search_beta_header,
)
from reference_impl.request._discovery import (
    compact,
    extract_discovered_tool_names,
)
from reference_impl.request._notices import (
    ListingStyle,
    announced_deferred_tools,
    compute_deferred_tools_delta,
    format_deferred_tool_line,
    render_deferred_tools_listing,
)
from reference_impl.request._schemas import (
    ToolSchemaCache,
    input_schema_for_model,
    schema_cache_key,
    tool_to_param,
)
from reference_impl.request._transcript import (
    CompactBoundary,
    DeferredToolsDelta,
    TranscriptEntry,
    content_blocks,
    system_reminder,
    to_api_messages,
)

__all__ = [
    "ADVANCED_TOOL_USE_BETA",
    "EPHEMERAL",
    "TOOL_SEARCH_TOOL_BETA",
    "BetaLatch",
    "BuiltRequest",
    "CompactBoundary",
    "DeferredToolsDelta",
    "ListingStyle",
    "NoticeMechanism",
    "Provider",
    "RequestBuilder",
    "RequestRuleError",
    "ToolSchemaCache",
    "TranscriptEntry",
    "announced_deferred_tools",
    "cache_break_hash",
    "check_request_rules",
    "compact",
    "compute_deferred_tools_delta",
    "content_blocks",
    "extract_discovered_tool_names",
    "format_deferred_tool_line",
    "input_schema_for_model",
    "place_message_cache_marker",
    "render_deferred_tools_listing",
    "schema_cache_key",
    "system_reminder",
    "to_api_messages",
    "tool_search_beta_header",
    "tool_to_param",
]
