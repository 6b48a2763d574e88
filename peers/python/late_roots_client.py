"""A Python `mcp` SDK 2.x client (stdio) that answers the server's `roots/list` late, as a
client that must first work out its roots does: its roots callback takes `--delay`
seconds (0.5 by default). Right after the handshake it calls server-everything's
`get-roots-list`, which asks the client for its roots and waits; server-everything's own
first `roots/list` (350 ms after `notifications/initialized`) then finds no roots yet and
asks again, so the server logs "Roots updated" twice. A second `get-roots-list`, a
second later, reads the roots it now has.

Prints one JSON line a call (the first line of its text), then how many times the
client was asked for its roots.

Usage: python late_roots_client.py [--delay SECONDS] -- <server command> [args...]
"""

from __future__ import annotations

import json
import sys

import anyio
from mcp import StdioServerParameters, types
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client

ROOT = types.Root(uri="file:///srv/mcp-replay-tour", name="tour")


def emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def run(command: list[str], delay: float) -> None:
    asked = 0

    async def list_roots(_context) -> types.ListRootsResult:
        nonlocal asked
        asked += 1
        await anyio.sleep(delay)
        return types.ListRootsResult(roots=[ROOT])

    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=20, list_roots_callback=list_roots) as session:
            await session.initialize()
            for pause in (0.0, 1.0):
                await anyio.sleep(pause)
                result = await session.call_tool("get-roots-list", {})
                emit({"tool": "get-roots-list", "text": result.content[0].text.splitlines()[0]})
            emit({"asked": asked})


def main() -> int:
    args = sys.argv[1:]
    delay = 0.5
    if args[:1] == ["--delay"]:
        delay = float(args[1])
        args = args[2:]
    if args[:1] != ["--"] or len(args) < 2:
        sys.exit(__doc__)
    anyio.run(run, args[1:], delay)
    return 0


if __name__ == "__main__":
    sys.exit(main())
