"""An MCP test server (stdio, Python `mcp` SDK 2.x) whose ids and cursors are new in every
run: the values a fixture cannot pin, which the client must send back.

Tools:
  add_note(text)       -> text "created note-<12 random hex>" + structuredContent {"id": ...}
  get_note(id)         -> text "<text>"; an unknown id is a tool error "no note <id>"
  list_notes(cursor?)  -> one note a page: structuredContent {"notes": [...], "nextCursor":
                          <16 random hex>} while more follow; a cursor it did not hand out
                          in this run is a tool error "stale cursor <cursor>"

Variant: `--variant changed` makes `get_note` answer "note: <text>", so a recording made
against the default server shows a finding when replayed against this one.
"""

from __future__ import annotations

import argparse
import secrets
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError


def build_server(variant: str) -> MCPServer:
    server = MCPServer("mcp-replay-notes", version="1.0.0", log_level="WARNING")
    notes: dict[str, str] = {}
    order: list[str] = []
    cursors: dict[str, int] = {}

    @server.tool(description="Add a note; returns its new id.")
    def add_note(text: str) -> dict[str, Any]:
        note_id = f"note-{secrets.token_hex(6)}"
        notes[note_id] = text
        order.append(note_id)
        return {"id": note_id, "message": f"created {note_id}"}

    @server.tool(description="The text of a note.", structured_output=False)
    def get_note(id: str) -> str:
        if id not in notes:
            raise ToolError(f"no note {id}")
        text = notes[id]
        return f"note: {text}" if variant == "changed" else text

    @server.tool(description="The notes, one a page.")
    def list_notes(cursor: str | None = None) -> dict[str, Any]:
        if cursor is None:
            start = 0
        elif cursor in cursors:
            start = cursors.pop(cursor)
        else:
            raise ToolError(f"stale cursor {cursor}")
        page: dict[str, Any] = {"notes": [notes[i] for i in order[start : start + 1]]}
        if start + 1 < len(order):
            next_cursor = secrets.token_hex(8)
            cursors[next_cursor] = start + 1
            page["nextCursor"] = next_cursor
        return page

    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=("default", "changed"), default="default")
    args = parser.parse_args()
    build_server(args.variant).run("stdio")


if __name__ == "__main__":
    main()
