"""A Python `mcp` SDK client in the 2026-07-28 era: `server/discover` instead of `initialize`,
then `tools/list` and a call of `query` (see modern_server.py). The SDK mirrors the call's
annotated argument into an `Mcp-Param-Region` header over HTTP, and wants `resultType` in
every result. Prints the negotiated version, the number of tools and the call's text.

Usage: python modern_client.py --url http://HOST:PORT/mcp
       python modern_client.py -- SERVER_COMMAND...   (stdio)
"""

from __future__ import annotations

import asyncio
import sys

from mcp import StdioServerParameters
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


async def tour(session: ClientSession) -> None:
    await session.discover()
    tools = await session.list_tools()
    result = await session.call_tool("query", {"region": "eu-west", "sql": "select 1"})
    print(session.protocol_version, len(tools.tools), result.content[0].text)


async def main(argv: list[str]) -> None:
    if argv[:1] == ["--url"]:
        async with streamable_http_client(argv[1]) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await tour(session)
    elif argv[:1] == ["--"]:
        command = StdioServerParameters(command=argv[1], args=argv[2:])
        async with stdio_client(command) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await tour(session)
    else:
        sys.exit("usage: modern_client.py --url URL | -- SERVER_COMMAND...")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
