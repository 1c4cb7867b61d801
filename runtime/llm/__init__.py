"""The LLM seam: one protocol, neutral messages, backends chosen by spec string."""
