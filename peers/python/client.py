"""A real MCP client (Python `mcp` SDK 2.x, stdio transport) used as a test peer.

Usage:
    python client.py [--timeout SECONDS] -- <server command> [args...]

It launches the given command as its server (directly, or through any wrapper
that forwards stdio, e.g. `mcp-replay record -- python server.py`, or a mock
that replays a recording) and runs a fixed script:

    initialize -> notifications/initialized -> tools/list
    -> tools/call echo {"text": "hello"}
    -> tools/call add {"a": 2, "b": 3}
    -> tools/call countdown {"n": 3}   (with a progress callback)

Every event is printed to stdout as one JSON line (compact, keys in a fixed
order), in this order:

    {"event":"initialize","protocolVersion":...,"serverInfo":{...},"capabilities":{...}}
    {"event":"tools","tools":["echo","add",...]}
    {"event":"result","tool":"echo","result":{<CallToolResult as on the wire>}}
    {"event":"result","tool":"add","result":{...}}
    {"event":"log","level":"info","logger":null,"data":"countdown from 3"}
    {"event":"progress","tool":"countdown","progress":1.0,"total":3.0,"message":"T-2"}
    ... one line per progress notification ...
    {"event":"result","tool":"countdown","result":{...}}

Exit status: 0 on success; 1 on any error (the error goes to stderr): spawn
failure, JSON-RPC error response, timeout, connection closed, a malformed line
from the server, or a tool result with isError: true.

What it sends is deterministic: the SDK numbers requests 1, 2, 3, ... in send
order (initialize=1, tools/list=2, echo=3, add=4, countdown=5) and uses the
request id as the progress token (countdown carries _meta.progressToken=5).
clientInfo is fixed below; capabilities are {} (no sampling/elicitation/roots
callbacks are installed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from peer_cli import run_client, server_command
import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

CLIENT_INFO = types.Implementation(name="mcp-replay-peer-client", version="1.0.0")


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n")
    sys.stdout.flush()


def wire(model: Any) -> Any:
    """A parsed pydantic model as it appeared on the wire (camelCase; only the fields the peer sent)."""
    return model.model_dump(by_alias=True, mode="json", exclude_unset=True)


class ClientFailure(Exception):
    pass


async def run(command: list[str], timeout: float) -> None:
    stream_errors: list[Exception] = []

    async def message_handler(message: Any) -> None:
        # Transport-level faults (e.g. a line that is not JSON-RPC) arrive here as Exception values.
        if isinstance(message, Exception):
            stream_errors.append(message)
            print(f"client.py: transport error: {message!r}", file=sys.stderr)

    async def logging_callback(params: types.LoggingMessageNotificationParams) -> None:
        emit({"event": "log", "level": params.level, "logger": params.logger, "data": params.data})

    # Inherit the whole environment (the SDK default passes only HOME/PATH/...), so a
    # wrapper such as `mcp-replay record` and the peer server see MCP_* settings.
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))

    async with stdio_client(params) as (read_stream, write_stream):
        async with ClientSession(
            read_stream,
            write_stream,
            read_timeout_seconds=timeout,
            logging_callback=logging_callback,
            message_handler=message_handler,
            client_info=CLIENT_INFO,
        ) as session:
            init = await session.initialize()
            emit(
                {
                    "event": "initialize",
                    "protocolVersion": init.protocol_version,
                    "serverInfo": wire(init.server_info),
                    "capabilities": wire(init.capabilities),
                }
            )

            listed = await session.list_tools()
            emit({"event": "tools", "tools": [tool.name for tool in listed.tools]})

            async def call(name: str, arguments: dict[str, Any], with_progress: bool = False) -> None:
                async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                    emit({"event": "progress", "tool": name, "progress": progress, "total": total, "message": message})

                result = await session.call_tool(
                    name, arguments, progress_callback=on_progress if with_progress else None
                )
                # Progress callbacks run as tasks the SDK spawned before the response was
                # resolved; yield once so any not yet run print before the result line.
                await anyio.sleep(0)
                emit({"event": "result", "tool": name, "result": wire(result)})
                if result.is_error:
                    raise ClientFailure(f"tool {name!r} returned isError: true: {wire(result)}")

            await call("echo", {"text": "hello"})
            await call("add", {"a": 2, "b": 3})
            await call("countdown", {"n": 3}, with_progress=True)

            if stream_errors:
                raise ClientFailure(f"{len(stream_errors)} transport error(s) from the server stream")


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Run a fixed MCP client script against a stdio server.",
        usage="%(prog)s [--timeout SECONDS] -- <server command> [args...]",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="per-request timeout in seconds (default 30)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="server command, after --")
    args = parser.parse_args()
    command = server_command(parser, args)
    return run_client("client.py", command, lambda: anyio.run(run, command, args.timeout))


if __name__ == "__main__":
    sys.exit(main())
