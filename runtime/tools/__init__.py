"""Tools: a registry keyed by name; builtins, world operations, MCP and sandboxed code."""
