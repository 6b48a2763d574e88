"""A Python `mcp` SDK 2.x client (stdio, 2026-07-28) that listens (`Client.listen`): it
opens a subscription to one resource, calls `touch` on it, reads the update from the
stream, and leaves the stream (the SDK cancels the `subscriptions/listen` request).
Prints one JSON line a step.

Usage: python listen_client.py -- <server command> [args...]
       python listen_client.py --url http://HOST:PORT/mcp
"""

from __future__ import annotations

import json
import sys

import anyio
from mcp import StdioServerParameters
from mcp.client.client import Client

URI = "file:///project/config.json"


def emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def run(command: list[str]) -> None:
    params = command[1] if command[0] == "--url" else StdioServerParameters(command=command[0], args=command[1:])
    async with Client(params, read_timeout_seconds=20) as client:
        async with client.listen(resource_subscriptions=[URI]) as sub:
            emit({"event": "honored", "uris": list(sub.honored.resource_subscriptions or [])})
            result = await client.call_tool("touch", {"uri": URI})
            emit({"event": "called", "text": result.content[0].text})
            async for event in sub:
                emit({"event": "update", "kind": type(event).__name__, "uri": str(getattr(event, "uri", ""))})
                break
    emit({"event": "done"})


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--url"] and len(args) == 2:
        anyio.run(run, args)
        return 0
    if args[:1] != ["--"] or len(args) < 2:
        sys.exit(__doc__)
    anyio.run(run, args[1:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
