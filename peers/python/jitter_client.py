"""A real MCP client (Python `mcp` SDK 2.x, stdio transport) for the jitter server.

Usage:
    python jitter_client.py [--timeout SECONDS] [--linger MS] -- <server command> [args...]

It is the client half of the jitter recording (`scripts/record-jitter.sh`): it runs a
fixed script against `demo-server jitter` (or any wrapper of it, such as
`mcp-replay record -- demo-server jitter`), with every callback a client can offer:

    initialize (capabilities: roots, sampling, elicitation) -> notifications/initialized
    -> tools/call echo {"text": "hello jitter"}
    -> tools/call slow_count {"n": 5}   (with a progress callback)
    -> tools/call ask                    (the server samples: answered "jitter says hi")
    -> tools/call confirm                (the server elicits: answered accept, proceed=true)
    -> tools/list
    -> wait until --linger ms (default 400) have passed since initialized, then ping

The wait keeps the session open past the server's random startup delays (at most
300 ms), so its own `roots/list` request (answered with one root) and its
`list_changed` notifications happen during the session.

Every answer is deterministic; only the server's timing varies. Each event is printed to
stdout as one JSON line (`initialize`, `result`, `progress`, `log`, `roots`, `sampling`,
`elicitation`, `notification`, `tools`, `ping`); their order varies with the server's
timing. Exit status: 0 on success, 1 on any error (to stderr): spawn failure, error
response, timeout, closed connection, a malformed line, a tool result with isError: true,
or a result other than the expected one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from peer_cli import run_client, server_command
import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

CLIENT_INFO = types.Implementation(name="mcp-replay-jitter-client", version="1.0.0")
ROOT = types.Root(uri="file:///jitter/project", name="jitter")
SAMPLED_TEXT = "jitter says hi"
SAMPLING_MODEL = "jitter-model"

# tool -> (arguments, expected result text)
SCRIPT: list[tuple[str, dict[str, Any], str]] = [
    ("echo", {"text": "hello jitter"}, "hello jitter"),
    ("slow_count", {"n": 5}, "counted to 5"),
    ("ask", {}, SAMPLED_TEXT),
    ("confirm", {}, "accept"),
]


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n")
    sys.stdout.flush()


def wire(model: Any) -> Any:
    """A parsed pydantic model as it appeared on the wire (camelCase; only the fields the peer sent)."""
    return model.model_dump(by_alias=True, mode="json", exclude_unset=True)


class ClientFailure(Exception):
    pass


async def run(command: list[str], timeout: float, linger_ms: float) -> None:
    stream_errors: list[Exception] = []

    async def message_handler(message: Any) -> None:
        # Transport-level faults (e.g. a line that is not JSON-RPC) arrive here as Exception values.
        if isinstance(message, Exception):
            stream_errors.append(message)
            print(f"jitter_client.py: transport error: {message!r}", file=sys.stderr)
            return
        method = getattr(message, "method", None)
        # Log messages and progress have events of their own (the callbacks below).
        if method not in ("notifications/message", "notifications/progress"):
            emit({"event": "notification", "method": method})

    async def logging_callback(params: types.LoggingMessageNotificationParams) -> None:
        emit({"event": "log", "level": params.level, "logger": params.logger, "data": params.data})

    async def list_roots_callback(context: Any) -> types.ListRootsResult:
        emit({"event": "roots"})
        return types.ListRootsResult(roots=[ROOT])

    async def sampling_callback(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        emit({"event": "sampling", "params": wire(params)})
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=SAMPLED_TEXT),
            model=SAMPLING_MODEL,
            stop_reason="endTurn",
        )

    async def elicitation_callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        emit({"event": "elicitation", "params": wire(params)})
        return types.ElicitResult(action="accept", content={"proceed": True})

    # Inherit the whole environment (the SDK default passes only HOME/PATH/...), so a
    # wrapper such as `mcp-replay record` and the server see MCP_* settings.
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))

    async with stdio_client(params) as (read_stream, write_stream):
        async with ClientSession(
            read_stream,
            write_stream,
            read_timeout_seconds=timeout,
            sampling_callback=sampling_callback,
            elicitation_callback=elicitation_callback,
            list_roots_callback=list_roots_callback,
            logging_callback=logging_callback,
            message_handler=message_handler,
            client_info=CLIENT_INFO,
        ) as session:
            init = await session.initialize()
            initialized_at = time.monotonic()
            emit(
                {
                    "event": "initialize",
                    "protocolVersion": init.protocol_version,
                    "serverInfo": wire(init.server_info),
                    "capabilities": wire(init.capabilities),
                }
            )

            for name, arguments, expected in SCRIPT:

                async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                    emit({"event": "progress", "progress": progress, "total": total, "message": message})

                result = await session.call_tool(
                    name, arguments, progress_callback=on_progress if name == "slow_count" else None
                )
                # Progress callbacks run as tasks the SDK spawned before the response was
                # resolved; yield once so any not yet run print before the result line.
                await anyio.sleep(0)
                emit({"event": "result", "tool": name, "result": wire(result)})
                if result.is_error:
                    raise ClientFailure(f"tool {name!r} returned isError: true: {wire(result)}")
                texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
                if texts != [expected]:
                    raise ClientFailure(f"tool {name!r} returned {texts!r}, expected {[expected]!r}")

            listed = await session.list_tools()
            emit({"event": "tools", "tools": sorted(tool.name for tool in listed.tools)})

            # Stay until the server's startup traffic (at most 300 ms after initialized)
            # has certainly happened, then end with a ping: the recording's last exchange.
            remaining = linger_ms / 1000 - (time.monotonic() - initialized_at)
            if remaining > 0:
                await anyio.sleep(remaining)
            await session.send_ping()
            emit({"event": "ping"})

            if stream_errors:
                raise ClientFailure(f"{len(stream_errors)} transport error(s) from the server stream")


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Run the jitter client script against a stdio server.",
        usage="%(prog)s [--timeout SECONDS] [--linger MS] -- <server command> [args...]",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="per-request timeout in seconds (default 30)")
    parser.add_argument(
        "--linger", type=float, default=400.0, help="ms after initialized before the final ping (default 400)"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="server command, after --")
    args = parser.parse_args()
    command = server_command(parser, args)
    return run_client("jitter_client.py", command, lambda: anyio.run(run, command, args.timeout, args.linger))


if __name__ == "__main__":
    sys.exit(main())
