"""The values an MCP pool hands out: listed tools (with their schema hash) and call outcomes."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the SDK is optional and imported only where a server runs
    from mcp.types import CallToolResult

SEPARATOR = "__"


def schema_hash(tool: str, description: str | None, input_schema: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of what the model sees of a tool.

    The server-side tool name is hashed (not the namespaced one) so renaming a server in a
    config does not read as a schema change.
    """
    doc = {"name": tool, "description": description, "input_schema": input_schema}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class McpTool:
    """One tool a server lists, under its namespaced name `server__tool`."""

    name: str
    server: str
    tool: str
    description: str
    input_schema: dict[str, Any]
    schema_hash: str

    @classmethod
    def listed(cls, server: str, tool: str, description: str | None,
               input_schema: dict[str, Any]) -> McpTool:
        """The tool as listed by `server`, namespaced and hashed."""
        return cls(name=f"{server}{SEPARATOR}{tool}", server=server, tool=tool,
                   description=description or "", input_schema=input_schema,
                   schema_hash=schema_hash(tool, description, input_schema))


@dataclass(frozen=True)
class McpOutcome:
    """The result of one tool call, as an observation for the agent (never an exception).

    `content` is the structured result when the server gives one, otherwise the text.
    `error` is `{"code": ..., "message": ...}` when `ok` is False.
    """

    ok: bool
    content: Any = ""
    error: dict[str, str] | None = None

    @classmethod
    def failed(cls, code: str, message: str, content: Any = "") -> McpOutcome:
        """A failed call with a stable error code (mcp.*)."""
        return cls(ok=False, content=content, error={"code": code, "message": message})


def outcome_of(result: CallToolResult) -> McpOutcome:
    """Convert an SDK `CallToolResult` into an outcome.

    Text blocks are joined; other blocks (images, resources) are kept as their JSON form.
    """
    blocks = [b.model_dump(mode="json", by_alias=True, exclude_none=True)
              for b in result.content]
    if all(b.get("type") == "text" for b in blocks):
        text: Any = "\n".join(str(b.get("text", "")) for b in blocks)
    else:
        text = blocks
    if result.is_error:
        message = text if isinstance(text, str) else json.dumps(text)[:2000]
        return McpOutcome.failed("mcp.tool_error", message or "the tool reported an error", text)
    if result.structured_content is not None:
        return McpOutcome(ok=True, content=result.structured_content)
    return McpOutcome(ok=True, content=text)
