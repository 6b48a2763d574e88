"""The Python SDK's client (stdio) calling `count_up` (to 3) with a progress callback, for the
facts docs/mock.md pins about a notification out of its recorded order: one JSON line says
which progress messages came before the result and which after it (200 ms later):
{"result": TEXT, "before": [...], "after": [...]}.

Usage: python fault_progress_client.py -- <server command> [args...]
       python fault_progress_client.py --url http://127.0.0.1:PORT/mcp   (Streamable HTTP)
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


async def main(argv):
    seen = {"before": [], "after": []}
    answered = False

    async def on_progress(progress, total, message):
        seen["after" if answered else "before"].append(message)

    if argv[0] == "--url":
        transport = streamable_http_client(argv[1])
    else:
        command = argv[1:]
        params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
        transport = stdio_client(params)
    async with transport as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write, read_timeout_seconds=3) as session:
            await session.initialize()
            result = await session.call_tool("count_up", {"to": 3}, progress_callback=on_progress)
            answered = True
            await asyncio.sleep(0.2)
            text = result.content[0].text if result.content else None
            sys.stdout.write(json.dumps({"result": text, **seen}) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("--", "--url"):
        sys.exit("usage: fault_progress_client.py (-- <server command> [args...] | --url URL)")
    asyncio.run(asyncio.wait_for(main(sys.argv[1:]), 10))
