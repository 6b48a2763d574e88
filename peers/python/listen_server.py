"""A Python `mcp` SDK 2.x server (stdio, 2026-07-28) with a subscription stream
(`subscriptions/listen`, SEP-2575): one resource, and a tool that changes it, which the
server announces on every open stream that asked for it (`notifications/resources/updated`,
tagged with the listen request's id under `_meta["io.modelcontextprotocol/subscriptionId"]`).

Tools:
  touch(uri) -> text "touched <uri>", and an update of <uri> on the streams

Variant: `--variant changed` announces no update, so a recording made against the default
server shows a finding when replayed against this one.

Usage: python listen_server.py [--variant changed] [--http PORT]
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import Context, MCPServer


def build_server(variant: str) -> MCPServer:
    server = MCPServer("mcp-replay-listen", version="1.0.0", log_level="WARNING")

    @server.resource("file:///project/config.json")
    def config() -> str:
        return "{}"

    @server.tool(description="Change a resource.", structured_output=False)
    async def touch(uri: str, ctx: Context) -> str:
        if variant != "changed":
            await ctx.notify_resource_updated(uri)
        return f"touched {uri}"

    return server


if __name__ == "__main__":
    args = sys.argv[1:]
    variant = args[args.index("--variant") + 1] if "--variant" in args else "default"
    if "--http" in args:
        port = int(args[args.index("--http") + 1])
        build_server(variant).run("streamable-http", host="127.0.0.1", port=port)
    else:
        build_server(variant).run("stdio")
