"""A Python `mcp` SDK 2.x client (stdio) with OpenTelemetry on: a tracer provider of the
OpenTelemetry SDK is installed, so the mcp SDK writes a new W3C `traceparent` into every
request's `_meta` (the specification's trace context keys), as an instrumented application
does. It calls `echo` twice and `add` once against server.py, each in a span of its own.
Prints one JSON line a call, and whether every request it sent carried a valid
`traceparent` (checked on the wire by a message handler of its own).

Usage: python otel_client.py -- <server command> [args...]
"""

from __future__ import annotations

import json
import re
import sys

import anyio
from mcp import StdioServerParameters
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

TRACEPARENT = re.compile(r"^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")


def emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def run(command: list[str]) -> None:
    trace.set_tracer_provider(TracerProvider())
    tracer = trace.get_tracer("otel-client")
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=20) as session:
            await session.initialize()
            for name, arguments in [("echo", {"text": "one"}), ("add", {"a": 2, "b": 3}), ("echo", {"text": "two"})]:
                with tracer.start_as_current_span(f"call {name}"):
                    result = await session.call_tool(name, arguments)
                emit({"tool": name, "text": result.content[0].text})


def main() -> int:
    args = sys.argv[1:]
    if args[:1] != ["--"] or len(args) < 2:
        sys.exit(__doc__)
    anyio.run(run, args[1:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
