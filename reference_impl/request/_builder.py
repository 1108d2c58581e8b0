"""Building one Messages API request from the tool pool and the transcript (DEFER-2, DEFER-6, PAIR-6).

:class:`RequestBuilder` lives for a session (it holds the schema cache and the beta latch) and
makes every per-request decision afresh in :meth:`RequestBuilder.build`, as Claude Code's
``queryModel()`` does: whether tool search is on (DEFER-8), which tools are deferred, which are
discovered, what the model is told about deferred tools, and where the cache marker goes.

When tool search is on, every deferred tool is sent with ``defer_loading: true``, discovered
ones included (the API expands the ones a ``tool_reference`` names, as Claude Code relies on).
When it is off, no tool is deferred, the ToolSearch tool is left out, and ``tool_reference``
blocks in the history become text (the API only accepts them with tool search).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from anthropic.types import MessageParam, TextBlockParam, ThinkingConfigParam, ToolParam

from reference_impl._repeats import repeated
from reference_impl.request._cache_keys import (
    BetaLatch,
    Provider,
    cache_break_hash,
    place_message_cache_marker,
)
from reference_impl.request._discovery import extract_discovered_tool_names
from reference_impl.request._notices import (
    ListingStyle,
    compute_deferred_tools_delta,
    render_deferred_tools_listing,
)
from reference_impl.request._schemas import ToolSchemaCache, tool_to_param
from reference_impl.request._transcript import TranscriptEntry, to_api_messages
from reference_impl.tools import (
    TOOL_SEARCH_TOOL_NAME,
    DescriptionContext,
    TokenCounter,
    Tool,
    ToolSearchMode,
    ToolSearchSetting,
    is_deferred_tool,
    is_tool_search_enabled,
)

__all__ = ["BuiltRequest", "NoticeMechanism", "RequestBuilder", "RequestRuleError", "check_request_rules"]

NoticeMechanism = Literal["listing", "delta"]


class RequestRuleError(ValueError):
    """A request would break one of the API's own rules (the API would answer 400)."""


@dataclass(frozen=True)
class BuiltRequest:
    """One request, ready to send: ``client.messages.create(**built.params)``.

    ``appended_entries`` are transcript entries this request introduced (a ``deferred_tools_delta``
    notice): the caller appends them to its transcript so the next request folds them in.

    Each tool in ``params["tools"]`` is a new dict, but its ``input_schema`` (and any other nested
    value) is the session schema cache's own object, shared by every request: copy before changing
    one (a pool of 10,000 tools is not copied on every turn).
    """

    params: dict[str, Any]
    betas: tuple[str, ...]
    tool_search_enabled: bool
    deferred_tool_names: frozenset[str]
    discovered_tool_names: frozenset[str]
    cache_hash: str
    appended_entries: tuple[TranscriptEntry, ...] = ()


def _reference_text(name: str, available: bool) -> TextBlockParam:
    if available:
        return {"type": "text", "text": f"Tool {name} is loaded."}
    return {"type": "text", "text": f"Tool {name} is no longer available."}


def _resolve_tool_references(
    messages: Sequence[MessageParam], tool_names: frozenset[str], *, keep_references: bool
) -> list[MessageParam]:
    """Turn each ``tool_reference`` the API would refuse into text (DEFER-6).

    With ``keep_references`` (tool search on), a reference survives when its tool is in the
    request's tools array; otherwise every reference becomes text. Blocks are copied, never
    changed in place.
    """
    resolved: list[MessageParam] = []
    for message in messages:
        content = message["content"]
        if message["role"] != "user" or isinstance(content, str):
            resolved.append(message)
            continue
        blocks: list[Any] = []
        for block in content:
            inner = block.get("content") if isinstance(block, Mapping) else None
            if not (
                isinstance(block, Mapping) and block.get("type") == "tool_result" and isinstance(inner, list)
            ):
                blocks.append(block)
                continue
            items: list[Any] = []
            for item in inner:
                if isinstance(item, Mapping) and item.get("type") == "tool_reference":
                    name = str(item.get("tool_name", ""))
                    if not (keep_references and name in tool_names):
                        items.append(_reference_text(name, name in tool_names))
                        continue
                items.append(item)
            blocks.append({**block, "content": items})
        resolved.append(cast(MessageParam, {**message, "content": blocks}))
    return resolved


def check_request_rules(params: Mapping[str, Any]) -> None:
    """Raise :class:`RequestRuleError` when ``params`` breaks a rule the API enforces.

    Tool names and tool_use ids are unique (PAIR-6); when any tool is deferred, at least one is not; no deferred
    tool has ``cache_control`` (DEFER-2); every ``tool_reference`` names a tool in ``tools``
    (DEFER-6).
    """
    tools = list(params.get("tools", ()))
    names = [t["name"] for t in tools]
    duplicates = repeated(names)
    if duplicates:
        raise RequestRuleError(f"tool names must be unique; repeated: {', '.join(duplicates)}")
    deferred = [t for t in tools if t.get("defer_loading")]
    if deferred and len(deferred) == len(tools):
        raise RequestRuleError("every tool is deferred; at least one tool must be sent without defer_loading")
    marked = sorted(t["name"] for t in deferred if t.get("cache_control") is not None)
    if marked:
        raise RequestRuleError(f"deferred tools can't carry cache_control: {', '.join(marked)}")
    known = set(names)
    tool_use_ids: list[str] = []
    for message in params.get("messages", ()):
        content = message.get("content")
        if isinstance(content, str):
            continue
        for block in content:
            if block.get("type") == "tool_use":
                tool_use_ids.append(str(block.get("id")))
            inner = block.get("content") if block.get("type") == "tool_result" else None
            for item in inner if isinstance(inner, list) else ():
                if item.get("type") == "tool_reference" and item.get("tool_name") not in known:
                    raise RequestRuleError(
                        f"tool_reference {item.get('tool_name')!r} names no tool in the request's tools"
                    )
    # A repeated id would pair one tool_result with two tool_use blocks (PAIR-6): refuse to send it.
    repeated_ids = repeated(tool_use_ids)
    if repeated_ids:
        raise RequestRuleError(
            f"tool_use ids must be unique in the conversation; repeated: {', '.join(repeated_ids)}"
        )


@dataclass
class RequestBuilder:
    """Session-level request building; :meth:`build` makes one request.

    ``notices`` picks how the model learns deferred tool names: ``"delta"`` (persistent
    ``deferred_tools_delta`` notices, returned in :attr:`BuiltRequest.appended_entries`) or
    ``"listing"`` (a listing message before the history of every request, in ``listing_style``).
    ``system`` blocks are sent as given (they may carry ``cache_control``, as Claude Code's do).
    """

    model: str
    max_tokens: int
    system: Sequence[TextBlockParam] = ()
    tool_search: ToolSearchSetting = field(default_factory=lambda: ToolSearchSetting(ToolSearchMode.TST))
    notices: NoticeMechanism = "delta"
    listing_style: ListingStyle = "tag"
    provider: Provider = "firstParty"
    context_window: int = 200_000
    token_counter: TokenCounter | None = None
    thinking: ThinkingConfigParam | None = None
    cwd: Path = field(default_factory=Path.cwd)
    message_cache_marker: bool = True
    schema_cache: ToolSchemaCache = field(default_factory=ToolSchemaCache)
    beta_latch: BetaLatch = field(init=False)

    def __post_init__(self) -> None:
        if not self.model:
            raise ValueError("RequestBuilder: model must be a non-empty model name")
        if self.max_tokens <= 0:
            raise ValueError(f"RequestBuilder: max_tokens must be positive, got {self.max_tokens}")
        if self.notices not in ("listing", "delta"):
            raise ValueError(f"RequestBuilder: notices must be 'listing' or 'delta', got {self.notices!r}")
        self.beta_latch = BetaLatch(self.provider)

    def reset(self) -> None:
        """After ``/clear`` or compaction: stop latching the beta header (CACHE-6)."""
        self.beta_latch.reset()

    def _param(self, tool: Tool, context: DescriptionContext, *, defer: bool, share: bool) -> ToolParam:
        return tool_to_param(
            tool, self.schema_cache, description_context=context, defer_loading=defer, share_nested=share
        )

    def build(self, pool: Sequence[Tool], entries: Sequence[TranscriptEntry]) -> BuiltRequest:
        """The request for ``pool`` and ``entries`` now; the transcript is not changed."""
        names = [tool.name for tool in pool]
        duplicates = repeated(names)
        if duplicates:
            raise RequestRuleError(f"the tool pool repeats tool names: {', '.join(duplicates)}")
        context = DescriptionContext(model=self.model, cwd=self.cwd, tool_names=tuple(names))
        deferred = [tool for tool in pool if is_deferred_tool(tool)]

        def deferred_params() -> list[ToolParam]:
            # Only tst-auto counts them. Our own count only reads; a caller's token counter gets copies.
            share = self.token_counter is None
            return [self._param(tool, context, defer=False, share=share) for tool in deferred]

        enabled = is_tool_search_enabled(
            deferred_params,
            setting=self.tool_search,
            model=self.model,
            search_tool_available=TOOL_SEARCH_TOOL_NAME in names,
            context_window=self.context_window,
            token_counter=self.token_counter,
        )
        deferred_names = frozenset(tool.name for tool in deferred) if enabled else frozenset()
        sent = list(pool) if enabled else [tool for tool in pool if tool.name != TOOL_SEARCH_TOOL_NAME]
        if deferred_names and all(tool.name in deferred_names for tool in sent):
            raise RequestRuleError(
                "tool search is on but every tool in the pool is deferred; the API needs one that is not"
            )
        tools = [self._param(tool, context, defer=tool.name in deferred_names, share=True) for tool in sent]

        appended: tuple[TranscriptEntry, ...] = ()
        history: list[TranscriptEntry] = list(entries)
        if enabled and self.notices == "delta":
            delta = compute_deferred_tools_delta(pool, entries)
            if delta is not None:
                appended = (delta,)
                history.append(delta)
        elif enabled:
            listing = render_deferred_tools_listing(sent, style=self.listing_style)
            if listing is not None:
                history.insert(0, cast(MessageParam, {"role": "user", "content": listing}))

        messages = _resolve_tool_references(
            to_api_messages(history), frozenset(t["name"] for t in tools), keep_references=enabled
        )
        if self.message_cache_marker:
            messages = place_message_cache_marker(messages)

        betas = self.beta_latch.betas(tool_search_enabled=enabled)
        params: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens}
        if self.system:
            params["system"] = [dict(block) for block in self.system]
        params["messages"] = messages
        if tools:
            params["tools"] = tools
        if self.thinking is not None:
            params["thinking"] = dict(self.thinking)
        if betas:
            params["extra_headers"] = {"anthropic-beta": ",".join(betas)}
        check_request_rules(params)
        return BuiltRequest(
            params=params,
            betas=betas,
            tool_search_enabled=enabled,
            deferred_tool_names=deferred_names,
            discovered_tool_names=extract_discovered_tool_names(entries),
            cache_hash=cache_break_hash(params),
            appended_entries=appended,
        )
