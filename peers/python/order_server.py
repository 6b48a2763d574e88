"""An MCP test server (stdio, the standard library only) whose answers depend on the
order of the client's messages: it asks the client for its roots while a call runs and
does not wait for the answer, and a later call that finds no roots yet asks again.

Tools:
  prepare()    -> sends `roots/list`, then answers "prepared" at once
  get_roots()  -> "roots: <uri>, ..." once the client answered a `roots/list`; before that
                  "no roots yet; asked again", after sending `roots/list` once more

A replay that sends the client's answer before a `get_roots` the client sent first changes
what this server does (it has the roots, and asks nothing more).

Usage: python3 order_server.py
"""

from __future__ import annotations

import json
import sys
from typing import Any

TOOLS = [
    {"name": "prepare", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "get_roots", "inputSchema": {"type": "object", "properties": {}}},
]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main() -> None:
    roots: list[str] | None = None
    asked = 0

    def ask() -> None:
        nonlocal asked
        asked += 1
        send({"jsonrpc": "2.0", "id": f"roots-{asked}", "method": "roots/list"})

    for line in sys.stdin:
        if not line.strip():
            continue
        m = json.loads(line)
        if "method" not in m:
            if "result" in m and str(m.get("id", "")).startswith("roots-"):
                roots = [r["uri"] for r in m["result"].get("roots", [])]
            continue
        if "id" not in m:
            continue
        method, params = m["method"], m.get("params") or {}
        if method == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "mcp-replay-order", "version": "1.0.0"},
            }
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call" and params.get("name") == "prepare":
            ask()
            result = {"content": [{"type": "text", "text": "prepared"}]}
        elif method == "tools/call" and params.get("name") == "get_roots":
            if roots is None:
                ask()
                text = "no roots yet; asked again"
            else:
                text = "roots: " + ", ".join(roots)
            result = {"content": [{"type": "text", "text": text}]}
        else:
            send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": f"no {method}"}})
            continue
        send({"jsonrpc": "2.0", "id": m["id"], "result": result})


if __name__ == "__main__":
    main()
