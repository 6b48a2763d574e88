"""A CRM-like MCP test server (stdio, the standard library only, no SDK) that does at once
what real servers do with values a fixture cannot pin:

- `tools/list` in pages of two behind opaque cursors, new in every run (a cursor it did
  not hand out in this run is an error);
- a customer id minted per run with a shape, `cus_<12 hex>`, and the customer's resource
  URI built from it, `crm://customers/<id>` (a `resource_link` in the result);
- the customer's owner, an e-mail address the client never sent (personal data), which
  the client later sends back, and its account manager, a person's name the server assigns
  (`Grace Hopper`, a value a values file may list);
- a timestamp (`createdAt`);
- a progress notification naming the minted id, when the client asks for progress, and
  a log message naming the id and the owner, before the result.

Tools (five, three pages):
  create_customer(name)        -> text "created customer <id>", a resource_link to its
                                  URI, structuredContent {id, uri, name, owner, manager,
                                  createdAt}
  get_customer(id)             -> text "<name>, owned by <owner>, managed by <manager>"; an
                                  unknown id is a
                                  tool error "no customer <id>"
  customers_by_owner(owner)    -> structuredContent {"customers": [ids...]}
  archive_customer(id)         -> text "archived <id>" (a client need not call it)
  ping_crm()                   -> text "pong"
Resources: resources/read of a customer's URI -> its record as JSON.

Every `tools/call` and `resources/read` result names the server and its release in
`_meta["io.modelcontextprotocol/serverInfo"]`, as a 2026-07-28 server does; `--release X`
sets the version it names (1.0.0 by default).

`--per-run` adds what changes from one run to the next without the client sending it
back: `ping_crm` answers "pong from at-<8 hex>" (an id minted per run) with
structuredContent {"regions": [...]} in another order in every run.

`--only-stateless` speaks protocol 2026-07-28 only (as a server built for that revision
alone): `initialize` is an unknown method (-32601), `server/discover` answers, and every
result says `"resultType": "complete"`.

Variant: `--variant changed` makes `get_customer` answer "<name> (owner <owner>, manager
<manager>)".

Usage: python3 crm_server.py [--variant default|changed] [--release X] [--per-run] [--only-stateless]
"""

from __future__ import annotations

import argparse
import datetime
import random
import json
import secrets
import sys
import time
from typing import Any

OWNER = "dana.whitfield@northwind-traders.com"
MANAGER = "Grace Hopper"  # the account manager the server assigns: a name a values file may list
PAGE = 2
SUPPORTED = ["2025-11-25", "2025-06-18", "2025-03-26"]
TOOLS = [
    {
        "name": "create_customer",
        "description": "Create a customer; returns its new id and URI.",
        "inputSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        },
    },
    {
        "name": "get_customer",
        "description": "A customer by id.",
        "inputSchema": {
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "required": ["id"],
        },
    },
    {
        "name": "customers_by_owner",
        "description": "The ids of an owner's customers.",
        "inputSchema": {
            "type": "object",
            "properties": {"owner": {"type": "string"}},
            "required": ["owner"],
        },
    },
    {
        "name": "archive_customer",
        "description": "Archive a customer.",
        "inputSchema": {
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "required": ["id"],
        },
    },
    {
        "name": "ping_crm",
        "description": "Is the CRM up?",
        "inputSchema": {"type": "object", "properties": {}},
    },
]


class Crm:
    def __init__(self, variant: str, release: str, per_run: bool = False, only_stateless: bool = False) -> None:
        self.only_stateless = only_stateless
        self.variant = variant
        self.release = release
        self.per_run = per_run
        self.customers: dict[str, dict[str, Any]] = {}
        self.cursors: dict[str, int] = {}

    def handle(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if "id" not in message or method is None:
            return  # a notification, or an answer: nothing to do
        params = message.get("params") or {}
        try:
            result = self.dispatch(method, params)
        except RpcError as e:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": e.code, "message": e.text}})
            return
        if method in ("tools/call", "resources/read"):
            # As a 2026-07-28 server does (rust-mcp-sdk 2.0): its name and release in
            # every result.
            result["_meta"] = {"io.modelcontextprotocol/serverInfo": {"name": "mcp-replay-crm", "version": self.release}}
        send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    def dispatch(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if self.only_stateless:
            if method == "initialize":
                raise RpcError(-32601, "Method not found: initialize")
            if method == "server/discover":
                return {
                    "resultType": "complete",
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {}, "resources": {}, "logging": {}},
                    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "mcp-replay-crm", "version": self.release}},
                }
            result = self.dispatch_any(method, params)
            result["resultType"] = "complete"
            return result
        return self.dispatch_any(method, params)

    def dispatch_any(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            return {
                # The versions it speaks; a client asking for another gets its latest.
                "protocolVersion": params.get("protocolVersion")
                if params.get("protocolVersion") in SUPPORTED
                else SUPPORTED[0],
                "capabilities": {"tools": {}, "resources": {}, "logging": {}},
                "serverInfo": {"name": "mcp-replay-crm", "version": "1.0.0"},
            }
        if method == "ping":
            return {}
        if method == "tools/list":
            return self.tools_page(params.get("cursor"))
        if method == "tools/call":
            return self.call(params)
        if method == "resources/read":
            customer = self.by_uri(params.get("uri", ""))
            return {
                "contents": [
                    {"uri": customer["uri"], "mimeType": "application/json", "text": json.dumps(customer)}
                ]
            }
        raise RpcError(-32601, f"no method {method}")

    def tools_page(self, cursor: str | None) -> dict[str, Any]:
        if cursor is None:
            start = 0
        elif cursor in self.cursors:
            start = self.cursors.pop(cursor)
        else:
            raise RpcError(-32602, f"stale cursor {cursor}")
        page: dict[str, Any] = {"tools": TOOLS[start : start + PAGE]}
        if start + PAGE < len(TOOLS):
            next_cursor = secrets.token_urlsafe(12)
            self.cursors[next_cursor] = start + PAGE
            page["nextCursor"] = next_cursor
        return page

    def call(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        args = params.get("arguments") or {}
        token = (params.get("_meta") or {}).get("progressToken")
        if name == "create_customer":
            cid = f"cus_{secrets.token_hex(6)}"
            customer = {
                "id": cid,
                "uri": f"crm://customers/{cid}",
                "name": args.get("name", ""),
                "owner": OWNER,
                "manager": MANAGER,
                "createdAt": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            }
            self.customers[cid] = customer
            send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/message",
                    "params": {"level": "info", "logger": "crm", "data": f"{cid} assigned to {OWNER}"},
                }
            )
            if token is not None:
                send(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/progress",
                        "params": {"progressToken": token, "progress": 1, "total": 1, "message": f"indexed {cid}"},
                    }
                )
                time.sleep(0.02)  # the indexing: a client reads the progress before the result
            return {
                "content": [
                    {"type": "text", "text": f"created customer {cid}"},
                    {
                        "type": "resource_link",
                        "uri": customer["uri"],
                        "name": customer["name"],
                        "mimeType": "application/json",
                    },
                ],
                "structuredContent": customer,
            }
        if name == "get_customer":
            customer = self.customers.get(args.get("id", ""))
            if customer is None:
                return tool_error(f"no customer {args.get('id')}")
            if self.variant == "changed":
                return text(f"{customer['name']} (owner {customer['owner']}, manager {customer['manager']})")
            return text(f"{customer['name']}, owned by {customer['owner']}, managed by {customer['manager']}")
        if name == "customers_by_owner":
            ids = [c["id"] for c in self.customers.values() if c["owner"] == args.get("owner")]
            return {"content": [{"type": "text", "text": json.dumps(ids)}], "structuredContent": {"customers": ids}}
        if name == "archive_customer":
            return text(f"archived {args.get('id')}")
        if name == "ping_crm":
            if self.per_run:
                # Eight: the same order twice in a row is one chance in 40320.
                regions = ["eu-west", "eu-north", "us-east", "us-west", "ap-south", "ap-east", "sa-east", "af-south"]
                random.shuffle(regions)
                result = text(f"pong from at-{secrets.token_hex(4)}")
                result["structuredContent"] = {"regions": regions}
                return result
            return text("pong")
        raise RpcError(-32602, f"no tool {name}")

    def by_uri(self, uri: str) -> dict[str, Any]:
        for customer in self.customers.values():
            if customer["uri"] == uri:
                return customer
        raise RpcError(-32002, f"no resource {uri}")


class RpcError(Exception):
    def __init__(self, code: int, text: str) -> None:
        super().__init__(text)
        self.code = code
        self.text = text


def text(s: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": s}]}


def tool_error(s: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": s}], "isError": True}


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=("default", "changed"), default="default")
    parser.add_argument("--release", default="1.0.0", help="the version it names in every result")
    parser.add_argument("--per-run", action="store_true", help="values and an order that change every run")
    parser.add_argument("--only-stateless", action="store_true", help="protocol 2026-07-28 only: no initialize")
    args = parser.parse_args()
    crm = Crm(args.variant, args.release, args.per_run, args.only_stateless)
    for line in sys.stdin:
        if line.strip():
            crm.handle(json.loads(line))


if __name__ == "__main__":
    main()
