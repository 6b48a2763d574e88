"""The Python SDK's client over Streamable HTTP making one call, for the facts docs/mock.md
pins about faults on cue: it calls `lookup_issue` (demo, sample, 42) with a read timeout of
3 s and prints one JSON line: {"result": ...}, or {"error": NAME, "message": ...}.

Usage: python fault_http_client.py --url http://127.0.0.1:PORT/mcp
Exit status 0 whatever the call gave (the line says what); 1 if it could not connect.
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


async def main(url):
    async with streamable_http_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write, read_timeout_seconds=3) as session:
            await session.initialize()
            try:
                result = await session.call_tool(
                    "lookup_issue", {"owner": "demo", "repo": "sample", "number": 42}
                )
                emit({"result": result.model_dump(mode="json", exclude_none=True)})
            except Exception as e:  # the fact is whatever surfaced
                emit({"error": type(e).__name__, "message": str(e)})


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--url":
        sys.exit("usage: fault_http_client.py --url URL")
    try:
        asyncio.run(asyncio.wait_for(main(sys.argv[2]), 10))
    except BaseException as e:  # noqa: BLE001 (the fact, printed)
        emit({"error": type(e).__name__, "message": str(e)})
