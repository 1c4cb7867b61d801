"""A module that a hand-written NexAU config binds a tool to (trusted runs only)."""


def add(a: int, b: int) -> dict[str, int]:
    """Add two numbers."""
    return {"sum": a + b}
