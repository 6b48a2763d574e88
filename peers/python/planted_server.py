"""A server with planted defects on the Python SDK's low-level Server (it checks neither
arguments nor structured results: the server's own code does), over stdio, for
`mcp-replay explore` (tests/explore.rs). With --fixed, every defect is mended.

Tools:
  divide(a, b)    integers; b = 0: the process exits (a crash); fixed: a tool error
  stats(values)   numbers; outputSchema {mean: number}; an empty list: mean "none" (breaks
                  its own outputSchema); fixed: mean 0
  search(query)   a query over 10,000 characters is never answered (a hang); fixed: a tool
                  error
Invalid arguments (a required field missing, a wrong type, an unknown field) are answered
with a JSON-RPC error -32602; fixed: a tool error with isError.
"""

import os
import sys

import anyio
import mcp.server.stdio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

FIXED = "--fixed" in sys.argv

TOOLS = [
    types.Tool(name="divide", description="a / b", input_schema={
        "type": "object", "additionalProperties": False,
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}),
    types.Tool(name="stats", description="The mean of the values.", input_schema={
        "type": "object", "properties": {"values": {"type": "array", "items": {"type": "number"}}},
        "required": ["values"]},
        output_schema={"type": "object", "properties": {"mean": {"type": "number"}}, "required": ["mean"]}),
    types.Tool(name="search", description="Searches.", input_schema={
        "type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
]


def text(t, error=False, structured=None):
    return types.CallToolResult(content=[types.TextContent(type="text", text=t)], is_error=error,
                                structured_content=structured)


def refuse(why):
    if FIXED:
        return text(why, error=True)
    raise MCPError(-32602, why)


def integer(v):
    return isinstance(v, int) and not isinstance(v, bool)


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    args = params.arguments or {}
    if params.name == "divide":
        a, b = args.get("a"), args.get("b")
        if not integer(a) or not integer(b) or len(args) > 2:
            return refuse("a and b, integers")
        if b == 0:
            if FIXED:
                return text("b must not be 0", error=True)
            os._exit(3)
        return text(str(int(a / b)))
    if params.name == "stats":
        values = args.get("values")
        if not isinstance(values, list) or not all(number(v) for v in values):
            return refuse("values: numbers")
        mean = sum(values) / len(values) if values else (0 if FIXED else "none")
        return text(str(mean), structured={"mean": mean})
    if params.name == "search":
        query = args.get("query")
        if not isinstance(query, str):
            return refuse("query: a string")
        if len(query) > 10_000:
            if FIXED:
                return text("the query is too long", error=True)
            await anyio.sleep_forever()
        return text(f"0 results for {len(query)}")
    raise MCPError(-32602, f"no tool {params.name}")


server = Server("planted-py", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with mcp.server.stdio.stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


anyio.run(main)
