"""A real MCP client (Python `mcp` SDK 2.x, stdio) that sends back what the server mints:
it adds two notes, reads the first back by the id the server returned, and pages through
the notes with the cursors the server hands out.

Usage: python notes_client.py [--timeout SECONDS] -- <server command> [args...]

Prints one JSON line a step; exit status 0 on success, 1 on any error (stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from peer_cli import run_client, server_command

CLIENT_INFO = types.Implementation(name="mcp-replay-notes-client", version="1.0.0")


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def run(command: list[str], timeout: float) -> None:
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(params) as (read_stream, write_stream):
        async with ClientSession(
            read_stream, write_stream, read_timeout_seconds=timeout, client_info=CLIENT_INFO
        ) as session:
            await session.initialize()

            async def call(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
                result = await session.call_tool(name, arguments)
                if result.is_error:
                    raise RuntimeError(f"{name}: {result.content[0].text}")
                return result

            first = await call("add_note", {"text": "milk"})
            note_id = first.structured_content["id"]
            await call("add_note", {"text": "eggs"})
            read = await call("get_note", {"id": note_id})
            emit({"event": "read", "text": read.content[0].text})
            page = (await call("list_notes", {})).structured_content
            seen = list(page["notes"])
            while "nextCursor" in page:
                page = (await call("list_notes", {"cursor": page["nextCursor"]})).structured_content
                seen.extend(page["notes"])
            emit({"event": "notes", "notes": seen})


def main() -> int:
    parser = argparse.ArgumentParser(usage="%(prog)s [--timeout SECONDS] -- <server command> [args...]")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = server_command(parser, args)
    return run_client("notes_client.py", command, lambda: anyio.run(run, command, args.timeout))


if __name__ == "__main__":
    sys.exit(main())
