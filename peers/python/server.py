"""Deterministic MCP test server (stdio) built on the Python `mcp` SDK 2.x.

Used as an external peer by mcp-replay's tests. Everything it writes is a pure
function of what it is sent: no clocks, no randomness, no timers, no unsolicited
notifications.

Tools:
  echo(text)       -> text content "<text>"            (unstructured: content only)
  add(a, b)        -> text content "<a+b>" + structuredContent {"result": a+b}
                      (auto-detected structured output, outputSchema published)
  countdown(n)     -> one notifications/message (info) "countdown from <n>", then
                      n notifications/progress (progress=1..n, total=n,
                      message "T-<n-i>"; only if the request carried
                      _meta.progressToken), then text content "liftoff"
  fail()           -> isError: true, text content
                      "Error executing tool fail: deliberate failure"

Variant: `python server.py --variant changed` (or MCP_PEER_VARIANT=changed)
makes `echo` answer "echo: <text>" instead of "<text>", so a recording made
against the default server shows a finding when replayed against this one.

Usage: python server.py [--variant default|changed]
"""

from __future__ import annotations

import argparse
import os
import warnings

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPDeprecationWarning

# ctx.info() is deprecated at protocol 2026-07-28 (SEP-2577) but is exactly the
# legacy behaviour we want to exercise; keep stderr free of the warning.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

VARIANTS = ("default", "changed")


def build_server(variant: str) -> MCPServer:
    server = MCPServer("mcp-replay-peer", version="1.0.0", log_level="WARNING")

    @server.tool(description="Echo the given text back.", structured_output=False)
    def echo(text: str) -> str:
        if variant == "changed":
            return f"echo: {text}"
        return text

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Count down from n, reporting progress for each step.", structured_output=False)
    async def countdown(n: int, ctx: Context) -> str:
        await ctx.info(f"countdown from {n}")
        for step in range(1, n + 1):
            await ctx.report_progress(step, n, f"T-{n - step}")
        return "liftoff"

    @server.tool(description="Always fails with a tool error (isError: true).", structured_output=False)
    def fail() -> str:
        raise ToolError("deliberate failure")

    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--variant",
        choices=VARIANTS,
        default=os.environ.get("MCP_PEER_VARIANT", "default") or "default",
        help="'changed' makes echo answer 'echo: <text>' (default: $MCP_PEER_VARIANT or 'default')",
    )
    args = parser.parse_args()
    if args.variant not in VARIANTS:
        parser.error(f"unknown variant {args.variant!r} (from MCP_PEER_VARIANT); expected one of {VARIANTS}")
    build_server(args.variant).run("stdio")


if __name__ == "__main__":
    main()
