"""Data only: patterns, roles, domain packs, prompts, policy, MCP registry, JSON Schema."""
