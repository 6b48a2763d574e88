"""A Python `mcp` SDK server for the 2026-07-28 ("modern", stateless) era over Streamable HTTP.

One tool whose `region` argument is annotated `x-mcp-header: Region`: from 2026-07-28 on, a
`tools/call` of it must carry an `Mcp-Param-Region` header equal to the argument (SEP-2243),
and the SDK's server refuses the call with HTTP 400 and JSON-RPC -32020 otherwise.

Tools:
  query(region, sql) -> text "ran <sql> in <region>"

Usage: python modern_server.py PORT
"""

from __future__ import annotations

import sys
from typing import Annotated

from pydantic import Field

from mcp.server.mcpserver import MCPServer


def build_server() -> MCPServer:
    server = MCPServer("regional", version="1.0.0", log_level="WARNING")

    @server.tool(description="Run a query in a region.", structured_output=False)
    def query(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})], sql: str) -> str:
        return f"ran {sql} in {region}"

    return server


if __name__ == "__main__":
    build_server().run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
