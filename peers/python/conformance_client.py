"""The Python SDK client (`mcp` 2.x) for the conformance suite's client scenarios.

Usage (as the suite runs it): python conformance_client.py [ARGS...] URL
    the server URL is the last argument, the scenario is MCP_CONFORMANCE_SCENARIO
    (initialize, tools_call, elicitation-sep1034-client-defaults, sse-retry).

Per scenario: connect over Streamable HTTP (`streamable_http_client`, which ends with a
DELETE) and initialize, list the tools, then

    tools_call                            call add_numbers {a: 5, b: 3}
    elicitation-sep1034-client-defaults   with an elicitation callback (the SDK then declares
                                          elicitation, form and url), call
                                          test_client_elicitation_defaults, accept with {}
                                          (the SDK applies no schema defaults of its own)
    sse-retry                             call test_reconnection (the server drops the POST
                                          stream; the transport reconnects)

Prints one JSON line per step (keys sorted) and nothing that varies between runs, so a
served recording must print the same lines as the live scenario. Exit status: 0 on success,
1 on any error (to stderr).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio
from mcp import types
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.client.streamable_http import streamable_http_client

CLIENT_INFO = types.Implementation(name="mcp-replay-conformance-client", version="1.0.0")
CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "tools_call": ("add_numbers", {"a": 5, "b": 3}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
    "sse-retry": ("test_reconnection", {}),
}


def emit(event: dict[str, Any]) -> None:
    print(json.dumps(event, sort_keys=True, separators=(",", ":")), flush=True)


def wire(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    emit({"event": "server-request", "method": "elicitation/create", "message": params.message})
    return types.ElicitResult(action="accept", content={})


async def run(url: str, scenario: str) -> None:
    callback = elicit if scenario == "elicitation-sep1034-client-defaults" else None
    async with streamable_http_client(url) as (read_stream, write_stream):
        async with ClientSession(
            read_stream, write_stream, read_timeout_seconds=20, elicitation_callback=callback, client_info=CLIENT_INFO
        ) as session:
            init = await session.initialize()
            emit({"event": "initialize", "protocolVersion": init.protocol_version, "serverInfo": wire(init.server_info)})
            tools = await session.list_tools()
            emit({"event": "tools", "names": [tool.name for tool in tools.tools]})
            if scenario in CALLS:
                name, arguments = CALLS[scenario]
                result = await session.call_tool(name, arguments)
                emit({"event": "result", "tool": name, "result": wire(result)})


def main() -> None:
    if len(sys.argv) < 2:
        print("usage: conformance_client.py [ARGS...] URL", file=sys.stderr)
        sys.exit(2)
    try:
        anyio.run(run, sys.argv[-1], os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize"))
    except BaseException as error:  # noqa: BLE001 - any failure is exit 1
        if isinstance(error, SystemExit):
            raise
        print(f"conformance_client.py: {error!r}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
