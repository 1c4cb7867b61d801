"""MCP servers for a run: resolve from the vetted registry, one session each, pinned schemas.

    launches = [resolve(s, workspace=ws, trusted=False) for s in agent.mcp_servers]
    async with McpPool(launches, pinned=lock["mcp"]) as pool:   # a changed schema aborts
        outcome = await pool.call("time__get_current_time", {"timezone": "UTC"}, 10)

Importing this package does not import the `mcp` SDK; opening a pool does.
"""

from a4a.runtime.mcp.launch import LaunchSpec, resolve
from a4a.runtime.mcp.pinning import pin, verify, write_pins
from a4a.runtime.mcp.pool import McpPool
from a4a.runtime.mcp.tools import McpOutcome, McpTool, schema_hash

__all__ = ["LaunchSpec", "McpOutcome", "McpPool", "McpTool", "pin", "resolve", "schema_hash",
           "verify", "write_pins"]
