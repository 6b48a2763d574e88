"""A real MCP client (Python `mcp` SDK 2.x, stdio) for crm_server.py that sends back what
the server mints and checks its shape: it lists the tools through every page, creates a
customer (with a progress callback), follows the result's resource_link, reads the customer
by the id it was given, and asks for the owner's customers by the e-mail address the
server returned.

It prints what it saw as shapes, never the values (an id as `cus_<12 hex>`), so that its
output is the same in every run against the live server and against a mock that serves
values of the right shape.

Usage: python crm_client.py [--timeout SECONDS] -- <server command> [args...]

Prints one JSON line a step; exit status 0 on success, 1 on any error (stderr).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import sys
from typing import Any

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from peer_cli import run_client, server_command

CLIENT_INFO = types.Implementation(name="mcp-replay-crm-client", version="1.0.0")


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def shape(value: str) -> str:
    """A value written as its shape: runs of six or more hex digits as `<N hex>`, the rest
    kept (`cus_1a2b3c` -> `cus_<6 hex>`)."""
    return re.sub(
        r"[0-9a-f]{6,}", lambda m: f"<{len(m.group())} hex>", value
    )


async def run(command: list[str], timeout: float) -> None:
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(params) as (read_stream, write_stream):
        async with ClientSession(
            read_stream, write_stream, read_timeout_seconds=timeout, client_info=CLIENT_INFO
        ) as session:
            await session.initialize()
            names: list[str] = []
            cursor = None
            while True:
                page_params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.list_tools(params=page_params)
                names.extend(t.name for t in page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
            emit({"event": "tools", "names": names})

            progress: list[str] = []

            async def on_progress(done: float, total: float | None, message: str | None) -> None:
                progress.append(message or "")

            created = await session.call_tool("create_customer", {"name": "Ada"}, progress_callback=on_progress)
            if created.is_error:
                raise RuntimeError(f"create_customer: {created.content[0].text}")
            customer = created.structured_content or {}
            cid, owner = customer["id"], customer["owner"]
            link = next(c for c in created.content if c.type == "resource_link")
            emit(
                {
                    "event": "created",
                    "id": shape(cid),
                    "uri": shape(str(link.uri)),
                    "uri_names_id": str(link.uri).endswith(cid),
                    "owner_is_email": re.fullmatch(r"[^@\s]+@[^@\s]+\.[a-z]+", owner) is not None,
                    "created_at_is_time": datetime.datetime.fromisoformat(customer["createdAt"]) is not None,
                    "progress": [shape(p) for p in progress],
                }
            )

            read = await session.read_resource(str(link.uri))
            record = json.loads(read.contents[0].text)
            emit({"event": "read", "same_id": record["id"] == cid, "name": record["name"]})

            got = await session.call_tool("get_customer", {"id": cid})
            if got.is_error:
                raise RuntimeError(f"get_customer: {got.content[0].text}")
            emit({"event": "got", "text_names_owner": owner in got.content[0].text})

            mine = await session.call_tool("customers_by_owner", {"owner": owner})
            ids = (mine.structured_content or {}).get("customers", [])
            emit({"event": "owned", "ids": ids == [cid]})


def main() -> int:
    parser = argparse.ArgumentParser(usage="%(prog)s [--timeout SECONDS] -- <server command> [args...]")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = server_command(parser, args)
    return run_client("crm_client.py", command, lambda: anyio.run(run, command, args.timeout))


if __name__ == "__main__":
    sys.exit(main())
