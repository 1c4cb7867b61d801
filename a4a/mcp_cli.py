"""`a4a mcp serve`: a framework's world as an MCP stdio server any MCP client can use.

Only typer is imported here; the `mcp` SDK loads when the server starts. stdout carries the
protocol, so logs and errors go to stderr, and user errors leave before the server starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from a4a.cli_support import guard

app = typer.Typer(
    name="mcp", add_completion=False, no_args_is_help=True, rich_markup_mode=None,
    help="Serve a framework's simulated world over MCP.")


@app.command()
def serve(
    path: Annotated[Path, typer.Argument(help="Framework directory.")],
    seed: Annotated[int | None, typer.Option(help="World seed (default: the framework's "
                                             "environment seed).")] = None,
) -> None:
    """Serve the framework's world tools over MCP stdio until the client disconnects.

    Every session gets one freshly seeded World; its changes last until the client closes.
    """
    def run() -> int:
        import logging
        import sys

        from a4a import api
        from a4a.runtime.world.mcp_server import serve_stdio, world_session

        session = world_session(api.load(path), seed)
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                            format="a4a mcp: %(levelname)s %(name)s: %(message)s")
        typer.echo(f"a4a mcp: serving {len(session.specs)} world tools of {session.name} "
                   f"(seed {session.world.seed}) on stdio", err=True)
        try:
            serve_stdio(session)
        except KeyboardInterrupt:
            return 130
        return 0

    guard(False, run)
