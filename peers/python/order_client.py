"""A real MCP client (Python `mcp` SDK 2.x, stdio) for order_server.py that answers the
server's `roots/list` a moment late (its callback takes 300 ms, as one that asks the user
or the file system does) and calls the next tool meanwhile: the session's client messages
go in an order a replay must keep.

It calls `prepare` (during which the server asks for the roots), `get_roots` at once, and
`get_roots` again a second later; it prints each answer's text.

Usage: python order_client.py -- <server command> [args...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from peer_cli import run_client, server_command

ROOT = types.Root(uri="file:///srv/mcp-replay-order", name="order")


async def list_roots(context) -> types.ListRootsResult:  # noqa: ANN001 - the SDK's context
    await anyio.sleep(0.3)
    return types.ListRootsResult(roots=[ROOT])


async def run(command: list[str]) -> None:
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(params) as (read_stream, write_stream):
        async with ClientSession(read_stream, write_stream, list_roots_callback=list_roots) as session:
            await session.initialize()
            for name, pause in (("prepare", 0.0), ("get_roots", 0.0), ("get_roots", 1.0)):
                await anyio.sleep(pause)
                result = await session.call_tool(name, {})
                print(json.dumps({"tool": name, "text": result.content[0].text}), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(usage="%(prog)s -- <server command> [args...]")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = server_command(parser, args)
    return run_client("order_client.py", command, lambda: anyio.run(run, command))


if __name__ == "__main__":
    sys.exit(main())
