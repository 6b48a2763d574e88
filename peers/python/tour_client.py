"""A "desktop-like" MCP client (Python `mcp` SDK 2.x, stdio or Streamable HTTP) that tours a server.

Usage:
    python tour_client.py --tour everything|python [--timeout SECONDS] -- <server command> [args...]
    python tour_client.py --tour everything|python [--timeout SECONDS] --url http://HOST:PORT/mcp

With --url the client connects to a Streamable HTTP endpoint (the SDK's streamable_http_client,
which ends the session with a DELETE) instead of launching the server on stdio.

Unlike client.py it declares what desktop clients declare, each answered with
fixed values so a session is reproducible:

    roots        one root, file:///srv/mcp-replay-tour (name "tour"). Not under /tmp, the home
                 or the workspace: the recorder would write such a path as file://<TMP>/...
                 in the client's roots/list answer too, and a replay sends that placeholder
                 as it is, which a strict server (pydantic's FileUrl) rejects
    sampling     always {"role":"assistant","content":{"type":"text","text":FIXED},"model":"tour-model",
                 "stopReason":"endTurn"}
    elicitation  accepts, filling each field that has a default with it and each other
                 required field from its type, keys sorted (see answer_form)
    logging      prints every notifications/message
    progress     a callback on the long-running tool call

Tours (the request sequences are in TOURS below):
    everything   @modelcontextprotocol/server-everything (node .../dist/index.js stdio)
    python       peers/python/tour_server.py

Every event is printed to stdout as one compact JSON line: "initialize", "result" (one per
request, with the method and a short label), "progress", "log", "notification", and
"server-request" (each roots/sampling/elicitation request the server sent); every object
inside a line has its keys sorted. Server-initiated
lines come in the order the SDK delivered them, which depends on timing.

Exit status: 0 on success; 1 on any error (to stderr): spawn failure, a JSON-RPC error
response, a timeout, a closed connection, a malformed line, or a tool result with isError.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from typing import Any

from peer_cli import run_client, server_command
import anyio
from mcp import types
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning

# setLevel/subscribe are deprecated at protocol 2026-07-28; this client speaks the handshake era.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

CLIENT_INFO = types.Implementation(name="mcp-replay-tour-client", version="1.0.0")
ROOT = types.Root(uri="file:///srv/mcp-replay-tour", name="tour")  # made up; see the docstring
SAMPLED_TEXT = "A fixed answer from the tour client's pretend model."
SAMPLING_MODEL = "tour-model"

# Each step: (label, method, arguments). "call" steps are tools/call; "call+progress" adds a
# progress callback. The server-everything calls were chosen from its source
# (dist/tools, dist/prompts, dist/resources) to answer without clocks, randomness or env.
TOURS: dict[str, list[tuple[str, str, dict[str, Any]]]] = {
    "everything": [
        ("tools", "tools/list", {}),
        ("echo", "call", {"name": "echo", "arguments": {"message": "hello from the tour"}}),
        ("get-sum", "call", {"name": "get-sum", "arguments": {"a": 2, "b": 3}}),
        # 1.5 s in 3 steps: server-everything's own roots/list (350 ms after
        # notifications/initialized) tends to land inside this call, before its first progress.
        ("long", "call+progress",
         {"name": "trigger-long-running-operation", "arguments": {"duration": 1.5, "steps": 3}}),
        ("annotated", "call", {"name": "get-annotated-message", "arguments": {"messageType": "success"}}),
        ("structured", "call", {"name": "get-structured-content", "arguments": {"location": "Chicago"}}),
        ("resources", "resources/list", {}),
        ("templates", "resources/templates/list", {}),
        ("read", "resources/read", {"uri": "demo://resource/static/document/extension.md"}),
        ("subscribe", "resources/subscribe", {"uri": "demo://resource/static/document/extension.md"}),
        ("unsubscribe", "resources/unsubscribe", {"uri": "demo://resource/static/document/extension.md"}),
        ("prompts", "prompts/list", {}),
        ("prompt", "prompts/get", {"name": "completable-prompt",
                                   "arguments": {"department": "Engineering", "name": "Alice"}}),
        ("complete-department", "completion/complete",
         {"ref": types.PromptReference(name="completable-prompt"), "argument": {"name": "department", "value": "E"}}),
        ("complete-name", "completion/complete",
         {"ref": types.PromptReference(name="completable-prompt"), "argument": {"name": "name", "value": ""},
          "context": {"department": "Engineering"}}),
        ("complete-resource", "completion/complete",
         {"ref": types.ResourceTemplateReference(uri="demo://resource/dynamic/text/{resourceId}"),
          "argument": {"name": "resourceId", "value": "3"}}),
        ("set-level", "logging/setLevel", {"level": "info"}),
        ("sampling", "call", {"name": "trigger-sampling-request",
                              "arguments": {"prompt": "What is two plus two?", "maxTokens": 32}}),
        ("roots", "call", {"name": "get-roots-list", "arguments": {}}),
        ("elicitation", "call", {"name": "trigger-elicitation-request", "arguments": {}}),
        ("ping", "ping", {}),
    ],
    "python": [
        ("tools", "tools/list", {}),
        ("echo", "call", {"name": "echo", "arguments": {"text": "hello from the tour"}}),
        # 3 steps 200 ms apart: the server's own roots/list (300 ms after
        # notifications/initialized) tends to land between the first and second progress.
        ("slow", "call+progress", {"name": "slow_count", "arguments": {"n": 3}}),
        ("resources", "resources/list", {}),
        ("templates", "resources/templates/list", {}),
        ("read", "resources/read", {"uri": "tour://readme"}),
        ("read-note", "resources/read", {"uri": "tour://notes/alpha"}),
        ("subscribe", "resources/subscribe", {"uri": "tour://readme"}),
        ("unsubscribe", "resources/unsubscribe", {"uri": "tour://readme"}),
        ("complete-topic", "completion/complete",
         {"ref": types.ResourceTemplateReference(uri="tour://notes/{topic}"),
          "argument": {"name": "topic", "value": "ga"}}),
        ("prompts", "prompts/list", {}),
        ("prompt", "prompts/get", {"name": "greet", "arguments": {"name": "Ada"}}),
        ("set-level", "logging/setLevel", {"level": "info"}),
        ("sampling", "call", {"name": "ask_llm", "arguments": {"question": "What is two plus two?"}}),
        ("elicitation", "call", {"name": "ask_user", "arguments": {}}),
        ("roots", "call", {"name": "show_roots", "arguments": {}}),
        ("ping", "ping", {}),
    ],
}


def emit(obj: dict[str, Any]) -> None:
    """One event line: its own keys in the order written, every object inside them sorted.

    (A fixture stores messages with sorted keys, so a session served from one prints what
    the live one did: tests/client_matrix.rs compares them.)"""
    line = {key: _sorted(value) for key, value in obj.items()}
    sys.stdout.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def wire(model: Any) -> Any:
    """A parsed pydantic model as it appeared on the wire (camelCase; only the fields the peer sent)."""
    return model.model_dump(by_alias=True, mode="json", exclude_unset=True)


def answer_form(schema: dict[str, Any]) -> dict[str, Any]:
    """Fixed, schema-valid content for a form elicitation: defaults where given, else by type."""
    content: dict[str, Any] = {}
    required = set(schema.get("required", []))
    for name, prop in schema.get("properties", {}).items():
        if "default" in prop:
            content[name] = prop["default"]
        elif name in required:
            kind = prop.get("type")
            if kind == "string":
                content[name] = prop["enum"][0] if "enum" in prop else "Tour Client"
            elif kind in ("integer", "number"):
                content[name] = prop.get("minimum", 42)
            elif kind == "boolean":
                content[name] = True
            else:
                raise ClientFailure(f"cannot answer elicitation field {name!r} of type {kind!r}")
    # Keys sorted: a fixture stores the answer with sorted keys and a replay sends it so, and
    # server-everything echoes the content with JSON.stringify, in the order it was sent.
    return dict(sorted(content.items()))


class ClientFailure(Exception):
    pass


async def list_roots(context: ClientRequestContext) -> types.ListRootsResult:
    emit({"event": "server-request", "method": "roots/list"})
    return types.ListRootsResult(roots=[ROOT])


async def sample(context: ClientRequestContext, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    emit({"event": "server-request", "method": "sampling/createMessage", "params": wire(params)})
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=SAMPLED_TEXT),
        model=SAMPLING_MODEL,
        stop_reason="endTurn",
    )


async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    emit({"event": "server-request", "method": "elicitation/create", "message": params.message})
    if not isinstance(params, types.ElicitRequestFormParams):
        return types.ElicitResult(action="decline")  # URL mode: never opened here
    return types.ElicitResult(action="accept", content=answer_form(params.requested_schema))


async def on_log(params: types.LoggingMessageNotificationParams) -> None:
    emit({"event": "log", "level": params.level, "logger": params.logger, "data": params.data})


async def run(tour: str, command: list[str], url: str | None, timeout: float) -> None:
    stream_errors: list[Exception] = []

    async def message_handler(message: Any) -> None:
        # Transport faults arrive as Exception values; other notifications are printed.
        if isinstance(message, Exception):
            stream_errors.append(message)
            print(f"tour_client.py: transport error: {message!r}", file=sys.stderr)
        elif message.method not in ("notifications/message", "notifications/progress"):
            # (logs and progress are printed by their own callbacks)
            emit({"event": "notification", "method": message.method})

    if url is not None:
        transport = streamable_http_client(url)
    else:
        # Inherit the whole environment (the SDK default passes only HOME/PATH/...).
        params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
        transport = stdio_client(params)
    async with transport as (read_stream, write_stream):
        async with ClientSession(
            read_stream,
            write_stream,
            read_timeout_seconds=timeout,
            sampling_callback=sample,
            elicitation_callback=elicit,
            list_roots_callback=list_roots,
            logging_callback=on_log,
            message_handler=message_handler,
            client_info=CLIENT_INFO,
        ) as session:
            init = await session.initialize()
            emit({"event": "initialize", "protocolVersion": init.protocol_version,
                  "serverInfo": wire(init.server_info)})
            for label, method, args in TOURS[tour]:
                result = await step(session, label, method, args)
                emit({"event": "result", "step": label, "method": method, "result": summary(method, result)})
            if stream_errors:
                raise ClientFailure(f"{len(stream_errors)} transport error(s) from the server stream")


async def step(session: ClientSession, label: str, method: str, args: dict[str, Any]) -> Any:
    """Sends one tour step through the SDK's own method for it."""
    if method in ("call", "call+progress"):

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            emit({"event": "progress", "step": label, "progress": progress, "total": total, "message": message})

        result = await session.call_tool(
            args["name"], args["arguments"], progress_callback=on_progress if method == "call+progress" else None
        )
        await anyio.sleep(0)  # let already-scheduled progress callbacks print before the result
        if result.is_error:
            raise ClientFailure(f"tool {args['name']!r} returned isError: true: {wire(result)}")
        return result
    if method == "tools/list":
        return await session.list_tools()
    if method == "resources/list":
        return await session.list_resources()
    if method == "resources/templates/list":
        return await session.list_resource_templates()
    if method == "resources/read":
        return await session.read_resource(args["uri"])
    if method == "resources/subscribe":
        return await session.subscribe_resource(args["uri"])
    if method == "resources/unsubscribe":
        return await session.unsubscribe_resource(args["uri"])
    if method == "prompts/list":
        return await session.list_prompts()
    if method == "prompts/get":
        return await session.get_prompt(args["name"], args["arguments"])
    if method == "completion/complete":
        return await session.complete(args["ref"], args["argument"], args.get("context"))
    if method == "logging/setLevel":
        return await session.set_logging_level(args["level"])
    if method == "ping":
        return await session.send_ping()
    raise ClientFailure(f"unknown tour step method {method!r}")


def summary(method: str, result: Any) -> Any:
    """What to print for a result: names for the list methods, the whole result otherwise."""
    if method == "tools/list":
        return [t.name for t in result.tools]
    if method == "resources/list":
        return [str(r.uri) for r in result.resources]
    if method == "resources/templates/list":
        return [t.uri_template for t in result.resource_templates]
    if method == "prompts/list":
        return [p.name for p in result.prompts]
    return wire(result)


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Tour an MCP server with a client that declares roots, sampling and elicitation.",
        usage="%(prog)s --tour everything|python [--timeout SECONDS] (-- <server command> [args...] | --url URL)",
    )
    parser.add_argument("--tour", choices=sorted(TOURS), required=True, help="which request sequence to run")
    parser.add_argument("--timeout", type=float, default=30.0, help="per-request timeout in seconds (default 30)")
    parser.add_argument("--url", help="a Streamable HTTP endpoint to connect to instead of a server command")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="server command, after --")
    args = parser.parse_args()
    if args.url is not None:
        if args.command:
            parser.error("give either --url or a server command, not both")
        return run_client("tour_client.py", None, lambda: anyio.run(run, args.tour, [], args.url, args.timeout))
    command = server_command(parser, args)
    return run_client("tour_client.py", command, lambda: anyio.run(run, args.tour, command, None, args.timeout))


if __name__ == "__main__":
    sys.exit(main())
